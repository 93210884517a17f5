/*
 * Tool tasks from C, at the revision PROTOCOL asks for (`auto` agrees on
 * 2026-07-28 and its tasks extension; `2025-11-25` pins the core tasks):
 * the C client against `mcp serve everything` (its `test_slow_task`) over
 * stdio — start, status, result, cancel, list — and against a C server
 * served in-process over Streamable HTTP whose tool is marked task-capable
 * (`execution.taskSupport` in mcp_server_add_tool_json).
 * Usage: test_tasks PROTOCOL COMMAND [ARG...]
 *   e.g. test_tasks auto target/debug/mcp serve everything
 */
#include "harness.h"

#include "fixture.h"

static const char *protocol;
static bool legacy;

static mcp_client *new_client(void) {
    mcp_client *client = NULL;
    if (mcp_client_new("c-tasks-test", "1", &client) != MCP_OK) return NULL;
    CHECK_OK(mcp_client_set_protocol(client, protocol));
    CHECK_OK(mcp_client_set_timeout(client, 20000));
    return client;
}

/* A malloc'd copy of the task id in `json` ({"task":{"taskId":"…"}} or a
 * task), or NULL. */
static char *task_id_of(const char *json) {
    char *literal = json_string_literal(json, "taskId");
    if (!literal) return NULL;
    size_t len = strlen(literal);
    if (len < 2) {
        free(literal);
        return NULL;
    }
    memmove(literal, literal + 1, len - 2);
    literal[len - 2] = '\0';
    return literal;
}

static void check_completes(mcp_client *client, const char *tool, const char *args,
                            const char *expected) {
    char *json = NULL;
    CHECK_OK(mcp_client_start_tool_task(client, tool, args, 60000, NULL, &json));
    CHECK_CONTAINS(json, "\"task\":{");
    char *task_id = task_id_of(json);
    CHECK(task_id != NULL);
    mcp_string_free(json);
    if (!task_id) return;
    CHECK_OK(mcp_client_get_task(client, task_id, NULL, &json));
    CHECK_CONTAINS(json, task_id);
    CHECK_CONTAINS(json, "\"status\":\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_tool_task_result(client, task_id, NULL, &json));
    CHECK_CONTAINS(json, expected);
    mcp_string_free(json);
    CHECK_OK(mcp_client_get_task(client, task_id, NULL, &json));
    CHECK_CONTAINS(json, "\"status\":\"completed\"");
    mcp_string_free(json);
    free(task_id);
}

/* --- against `mcp serve everything` --- */

static mcp_client *everything;

static void test_slow_task_completes(void) {
    check_completes(everything, "test_slow_task", "{\"seconds\":1}", "worked for 1 s");
}

static void test_slow_task_cancelled(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_start_tool_task(everything, "test_slow_task", "{\"seconds\":60}", 0, NULL,
                                        &json));
    char *task_id = task_id_of(json);
    CHECK(task_id != NULL);
    mcp_string_free(json);
    if (!task_id) return;
    CHECK_OK(mcp_client_cancel_task(everything, task_id, NULL, &json));
    CHECK_CONTAINS(json, "\"status\":\"cancelled\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_get_task(everything, task_id, NULL, &json));
    CHECK_CONTAINS(json, "\"status\":\"cancelled\"");
    mcp_string_free(json);
    if (legacy) {
        /* Ended: cancelling again is refused (2025-11-25). */
        json = (char *)1;
        CHECK_RC(mcp_client_cancel_task(everything, task_id, NULL, &json), MCP_ERR_RPC);
        CHECK(json == NULL);
    } else {
        /* The extension's cancel only acknowledges: the task stays cancelled,
           and waiting for its result reports that. */
        CHECK_OK(mcp_client_cancel_task(everything, task_id, NULL, &json));
        CHECK_CONTAINS(json, "\"status\":\"cancelled\"");
        mcp_string_free(json);
        CHECK_RC(mcp_client_tool_task_result(everything, task_id, NULL, &json),
                 MCP_ERR_CANCELLED);
    }
    free(task_id);
}

static void test_list_tasks(void) {
    char *json = NULL;
    if (legacy) {
        CHECK_OK(mcp_client_list_tasks(everything, NULL, NULL, &json));
        CHECK_CONTAINS(json, "\"tasks\":[{");
        mcp_string_free(json);
    } else {
        CHECK_RC(mcp_client_list_tasks(everything, NULL, NULL, &json), MCP_ERR_PROTOCOL);
    }
}

static void test_task_arguments_are_checked(void) {
    char *json = (char *)1;
    CHECK_RC(mcp_client_start_tool_task(NULL, "t", NULL, 0, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK(json == NULL);
    CHECK_RC(mcp_client_start_tool_task(everything, NULL, NULL, 0, NULL, &json),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_start_tool_task(everything, "test_slow_task", "[1]", 0, NULL, &json),
             MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_get_task(everything, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_get_task(everything, "no-such-task", NULL, &json), MCP_ERR_RPC);
    CHECK_RC(mcp_client_tool_task_result(everything, "t", NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_cancel_task(everything, "t", NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_list_tasks(NULL, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
}

/* --- against a C server --- */

static mcp_result slow_in_c(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    sleep_ms(100);
    *out = mcp_string_new("{\"content\":[{\"type\":\"text\",\"text\":\"done in C\"}]}");
    return MCP_OK;
}

static void test_c_server_tool_as_task(void) {
    mcp_server *server = NULL;
    CHECK_OK(mcp_server_new("c-tasks", "1", &server));
    if (!server) return;
    CHECK_OK(mcp_server_add_tool_json(
        server,
        "{\"name\":\"slow_in_c\",\"inputSchema\":{\"type\":\"object\"},"
        "\"execution\":{\"taskSupport\":\"optional\"}}",
        slow_in_c, NULL));
    mcp_http_options *options = NULL;
    CHECK_OK(mcp_http_options_new(&options));
    uint16_t port = 0;
    CHECK_OK(mcp_server_start_http(server, options, &port));
    mcp_http_options_free(options);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);
    mcp_client *client = new_client();
    if (client && mcp_client_connect_http(client, url, NULL) == MCP_OK) {
        char *json = NULL;
        CHECK_OK(mcp_client_server_info(client, &json));
        if (legacy) CHECK_CONTAINS(json, "\"tasks\":{");
        mcp_string_free(json);
        check_completes(client, "slow_in_c", NULL, "done in C");
        /* Called without a task, it answers directly. */
        CHECK_OK(mcp_client_call_tool(client, "slow_in_c", NULL, NULL, &json));
        CHECK_CONTAINS(json, "done in C");
        mcp_string_free(json);
    } else {
        CHECK(!"connected to the C server");
    }
    mcp_client_free(client);
    CHECK_OK(mcp_server_stop(server));
    mcp_server_free(server);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s PROTOCOL COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    protocol = argv[1];
    legacy = strcmp(protocol, "auto") != 0 && strcmp(protocol, "2026-07-28") != 0;
    everything = new_client();
    if (!everything ||
        mcp_client_connect_stdio(everything, argv[2], (const char *const *)&argv[3], NULL) !=
            MCP_OK) {
        printf("FAIL connect %s: %s\n", argv[2], mcp_last_error_message());
        mcp_client_free(everything);
        return 1;
    }
    RUN(test_slow_task_completes);
    RUN(test_slow_task_cancelled);
    RUN(test_list_tasks);
    RUN(test_task_arguments_are_checked);
    mcp_client_free(everything);
    RUN(test_c_server_tool_as_task);
    return finish();
}
