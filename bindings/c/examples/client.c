/*
 * An MCP client in C: connects to a server, prints what it offers, and makes
 * the calls asked for on the command line. It answers the server's sampling
 * requests with a canned reply, accepts elicitation requests with fixed
 * values, offers one root, and prints the server's notifications.
 *
 *   ./client [OPTIONS] -- COMMAND [ARG...]   start COMMAND, talk over stdio
 *   ./client [OPTIONS] --url URL             Streamable HTTP
 *
 * OPTIONS (each may repeat; they run in this order):
 *   --call TOOL ARGS_JSON      call a tool, print its result
 *   --read URI                 read a resource, print it
 *   --prompt NAME ARGS_JSON    get a prompt, print it
 *
 * Examples:
 *   ./client --call echo '{"message":"hi"}' -- node server-everything/dist/index.js stdio
 *   ./client --call add_numbers '{"a":2,"b":3}' -- ../../target/debug/mcp serve everything
 *
 * Build (see ../README.md):
 *   cc examples/client.c -Iinclude -L../../target/debug -lmcp -o client
 */
#include <mcp.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_ACTIONS 32

struct action {
    const char *kind; /* "--call", "--read", "--prompt" */
    const char *name;
    const char *args;
};

/* Answers sampling/createMessage: a real client would ask its model. */
static mcp_result on_sampling(void *userdata, const char *params_json, char **result_json) {
    (void)userdata;
    fprintf(stderr, "client: sampling request: %s\n", params_json);
    *result_json = mcp_string_new(
        "{\"role\":\"assistant\",\"model\":\"c-example-model\",\"stopReason\":\"endTurn\","
        "\"content\":{\"type\":\"text\",\"text\":\"Hello from the C client\"}}");
    return MCP_OK;
}

/* Answers elicitation/create: a real client would ask its user. */
static mcp_result on_elicitation(void *userdata, const char *params_json, char **result_json) {
    (void)userdata;
    fprintf(stderr, "client: elicitation request: %s\n", params_json);
    *result_json = mcp_string_new("{\"action\":\"decline\"}");
    return MCP_OK;
}

static void on_notification(void *userdata, const char *method, const char *params_json) {
    (void)userdata;
    fprintf(stderr, "client: notification %s %s\n", method, params_json);
}

static void on_progress(void *userdata, double progress, double total, const char *message) {
    (void)userdata;
    if (isnan(total))
        fprintf(stderr, "client: progress %g %s\n", progress, message ? message : "");
    else
        fprintf(stderr, "client: progress %g/%g %s\n", progress, total, message ? message : "");
}

/* Prints `label: json`, or why the call failed; returns 0 on success. */
static int report(const char *label, mcp_result result, char *json) {
    if (result == MCP_OK) {
        printf("%s: %s\n", label, json);
        mcp_string_free(json);
        return 0;
    }
    if (result == MCP_ERR_CAPABILITY) {
        printf("%s: (not offered)\n", label);
        return 0;
    }
    int64_t code = 0;
    if (mcp_last_error_rpc_code(&code))
        printf("%s: JSON-RPC error %lld: %s\n", label, (long long)code, mcp_last_error_message());
    else
        printf("%s: %s: %s\n", label, mcp_result_name(result), mcp_last_error_message());
    return 1;
}

static int usage(const char *program) {
    fprintf(stderr,
            "usage: %s [--call TOOL ARGS_JSON] [--read URI] [--prompt NAME ARGS_JSON]\n"
            "          (--url URL | -- COMMAND [ARG...])\n",
            program);
    return 2;
}

int main(int argc, char **argv) {
    struct action actions[MAX_ACTIONS];
    int n_actions = 0;
    const char *url = NULL;
    char **command = NULL;
    for (int i = 1; i < argc; i++) {
        int two = strcmp(argv[i], "--call") == 0 || strcmp(argv[i], "--prompt") == 0;
        int one = strcmp(argv[i], "--read") == 0;
        if ((one || two) && n_actions < MAX_ACTIONS && i + 1 + two < argc) {
            actions[n_actions++] = (struct action){argv[i], argv[i + 1], two ? argv[i + 2] : NULL};
            i += 1 + two;
        } else if (strcmp(argv[i], "--url") == 0 && i + 1 < argc) {
            url = argv[++i];
        } else if (strcmp(argv[i], "--") == 0 && i + 1 < argc) {
            command = &argv[i + 1];
            break;
        } else {
            return usage(argv[0]);
        }
    }
    if (!url == !command) return usage(argv[0]);

    mcp_client *client = NULL;
    mcp_result r = mcp_client_new("c-example-client", "1.0.0", &client);
    if (r != MCP_OK) return report("new", r, NULL);
    mcp_client_on_sampling(client, on_sampling, NULL);
    mcp_client_on_elicitation(client, on_elicitation, NULL);
    mcp_client_on_notification(client, on_notification, NULL);
    mcp_client_set_roots(client, "[{\"uri\":\"file:///tmp\",\"name\":\"tmp\"}]");

    if (url)
        r = mcp_client_connect_http(client, url, NULL);
    else
        r = mcp_client_connect_stdio(client, command[0], (const char *const *)&command[1], NULL);
    int failures = 0;
    if (r != MCP_OK) {
        failures += report("connect", r, NULL);
        mcp_client_free(client);
        return 1;
    }

    char *json = NULL;
    r = mcp_client_server_info(client, &json);
    failures += report("server", r, json);
    failures += report("ping", mcp_client_ping(client, NULL), mcp_string_new("ok"));
    r = mcp_client_list_tools(client, NULL, &json);
    failures += report("tools", r, json);
    r = mcp_client_list_resources(client, NULL, &json);
    failures += report("resources", r, json);
    r = mcp_client_list_prompts(client, NULL, &json);
    failures += report("prompts", r, json);

    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 30000;
    options.on_progress = on_progress;
    for (int i = 0; i < n_actions; i++) {
        char label[256];
        snprintf(label, sizeof label, "%s %s", actions[i].kind + 2, actions[i].name);
        if (strcmp(actions[i].kind, "--call") == 0)
            r = mcp_client_call_tool(client, actions[i].name, actions[i].args, &options, &json);
        else if (strcmp(actions[i].kind, "--read") == 0)
            r = mcp_client_read_resource(client, actions[i].name, &options, &json);
        else
            r = mcp_client_get_prompt(client, actions[i].name, actions[i].args, &options, &json);
        failures += report(label, r, json);
    }

    mcp_client_close(client);
    mcp_client_free(client);
    return failures == 0 ? 0 : 1;
}
