/*
 * An MCP server in C: two tools, a resource, a resource template and a
 * prompt, served over stdio (default) or Streamable HTTP.
 *
 *   ./server                  serve one client on stdin/stdout
 *   ./server --http 127.0.0.1:8080
 *                             serve http://127.0.0.1:8080/mcp until Ctrl-C
 *
 * Build (see ../README.md):
 *   cc examples/server.c -Iinclude -L../../target/debug -lmcp -o server
 *
 * JSON arrives and leaves as text. A real server would parse it with a JSON
 * library (cJSON, jansson, ...); to stay dependency-free this example picks
 * values out with two small helpers, which is enough for the compact JSON
 * the library passes to callbacks.
 */
#define _POSIX_C_SOURCE 200809L

#include <mcp.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- tiny JSON helpers (compact JSON from the library only) ---- */

/* The number after "key": in json, or `fallback`. */
static double json_number(const char *json, const char *key, double fallback) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = strstr(json, pattern);
    return at ? strtod(at + strlen(pattern), NULL) : fallback;
}

/* A copy of the string literal after "key": (quotes and escapes included,
 * so it can be pasted into other JSON as is), or NULL. Free with free(). */
static char *json_string_literal(const char *json, const char *key) {
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
    const char *start = strstr(json, pattern);
    if (!start) return NULL;
    start += strlen(pattern) - 1; /* at the opening quote */
    const char *end = start + 1;
    while (*end && *end != '"') end += (*end == '\\' && end[1]) ? 2 : 1;
    if (*end != '"') return NULL;
    size_t len = (size_t)(end - start) + 1;
    char *literal = malloc(len + 1);
    if (!literal) return NULL;
    memcpy(literal, start, len);
    literal[len] = '\0';
    return literal;
}

/* Hands `json` to the library as a callback result. */
static mcp_result reply(char **result_json, const char *json) {
    *result_json = mcp_string_new(json);
    return *result_json ? MCP_OK : MCP_ERR_CALLBACK;
}

/* ---- tools ---- */

static mcp_result add_tool(void *userdata, mcp_context *context, const char *arguments_json,
                           char **result_json) {
    (void)userdata;
    double a = json_number(arguments_json, "a", 0), b = json_number(arguments_json, "b", 0);
    mcp_context_log(context, "info", "add", "adding two numbers");
    char json[256];
    snprintf(json, sizeof json, "{\"content\":[{\"type\":\"text\",\"text\":\"%g\"}]}", a + b);
    return reply(result_json, json);
}

static mcp_result echo_tool(void *userdata, mcp_context *context, const char *arguments_json,
                            char **result_json) {
    (void)userdata;
    char *message = json_string_literal(arguments_json, "message");
    if (!message) {
        *result_json = mcp_string_new("the message is missing");
        return MCP_ERR_CALLBACK; /* the client gets a result with isError: true */
    }
    mcp_context_progress(context, 1, 1, "echoed");
    size_t size = strlen(message) + 64;
    char *json = malloc(size);
    if (!json) {
        free(message);
        return MCP_ERR_CALLBACK;
    }
    snprintf(json, size, "{\"content\":[{\"type\":\"text\",\"text\":%s}]}", message);
    free(message);
    /* A malloc'd string may be handed over as is: mcp_string_free is free. */
    *result_json = json;
    return MCP_OK;
}

/* ---- resources, templates, prompts ---- */

static mcp_result readme_resource(void *userdata, mcp_context *context, const char *params_json,
                                  char **result_json) {
    (void)userdata, (void)context, (void)params_json;
    return reply(result_json,
                 "{\"contents\":[{\"uri\":\"demo://readme\",\"mimeType\":\"text/plain\","
                 "\"text\":\"This server is written in C on top of libmcp.\"}]}");
}

static mcp_result greeting_template(void *userdata, mcp_context *context,
                                    const char *params_json, char **result_json) {
    (void)userdata, (void)context;
    /* params_json: {"uri":"demo://greeting/Ada","variables":{"name":"Ada"}} */
    char *uri = json_string_literal(params_json, "uri");
    char *name = json_string_literal(params_json, "name");
    if (!uri || !name) {
        free(uri), free(name);
        return MCP_ERR_CALLBACK; /* becomes a JSON-RPC error, code -32603 */
    }
    char json[1024];
    /* name is a JSON string literal "..." ; strip its quotes for the text. */
    snprintf(json, sizeof json,
             "{\"contents\":[{\"uri\":%s,\"text\":\"Hello, %.*s!\"}]}", uri,
             (int)strlen(name) - 2, name + 1);
    free(uri), free(name);
    return reply(result_json, json);
}

static mcp_result summarize_prompt(void *userdata, mcp_context *context,
                                   const char *arguments_json, char **result_json) {
    (void)userdata, (void)context;
    char *topic = json_string_literal(arguments_json, "topic");
    char json[1024];
    snprintf(json, sizeof json,
             "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\","
             "\"text\":\"Summarize this topic: %.*s\"}}]}",
             topic ? (int)strlen(topic) - 2 : 0, topic ? topic + 1 : "");
    free(topic);
    return reply(result_json, json);
}

/* ---- main ---- */

static int fail(const char *what, mcp_result result) {
    fprintf(stderr, "server: %s failed: %s: %s\n", what, mcp_result_name(result),
            mcp_last_error_message());
    return 1;
}

int main(int argc, char **argv) {
    const char *http = NULL;
    if (argc == 3 && strcmp(argv[1], "--http") == 0) {
        http = argv[2];
    } else if (argc != 1) {
        fprintf(stderr, "usage: %s [--http ADDRESS]\n", argv[0]);
        return 2;
    }

    /* For --http, SIGINT and SIGTERM are awaited with sigwait: block them
     * before the library starts its threads, which inherit the mask. */
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    if (http) pthread_sigmask(SIG_BLOCK, &signals, NULL);

    mcp_server *server = NULL;
    mcp_result r = mcp_server_new("c-example-server", "1.0.0", &server);
    if (r != MCP_OK) return fail("mcp_server_new", r);

    r = mcp_server_add_tool(server, "add", "Adds two numbers",
                            "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},"
                            "\"b\":{\"type\":\"number\"}},\"required\":[\"a\",\"b\"]}",
                            add_tool, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_tool(server, "echo", "Echoes a message",
                                "{\"type\":\"object\",\"properties\":{\"message\":"
                                "{\"type\":\"string\"}},\"required\":[\"message\"]}",
                                echo_tool, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource(server, "demo://readme", "readme", "About this server",
                                    "text/plain", readme_resource, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_resource_template(server, "demo://greeting/{name}", "greeting",
                                             "A greeting for anyone", "text/plain",
                                             greeting_template, NULL);
    if (r == MCP_OK)
        r = mcp_server_add_prompt(server, "summarize", "Asks for a summary",
                                  "[{\"name\":\"topic\",\"description\":\"What to summarize\","
                                  "\"required\":true}]",
                                  summarize_prompt, NULL);
    if (r != MCP_OK) {
        fail("registering", r);
        mcp_server_free(server);
        return 1;
    }

    if (!http) {
        /* Blocks until the client closes stdin. */
        r = mcp_server_serve_stdio(server);
        mcp_server_free(server);
        return r == MCP_OK ? 0 : fail("mcp_server_serve_stdio", r);
    }

    /* HTTP: serve in the background, wait here for Ctrl-C or SIGTERM. */
    uint16_t port = 0;
    r = mcp_server_serve_http(server, http, &port);
    if (r != MCP_OK) {
        fail("mcp_server_serve_http", r);
        mcp_server_free(server);
        return 1;
    }
    fprintf(stderr, "server: serving %s on port %u (endpoint /mcp)\n", http, (unsigned)port);
    int signal_number = 0;
    sigwait(&signals, &signal_number);
    mcp_server_stop(server);
    mcp_server_free(server);
    return 0;
}
