/*
 * The API without a peer: handle lifecycles, strings, result codes, the last
 * error, and every argument error (NULL, invalid JSON, invalid UTF-8, wrong
 * state), and loading a skills directory. Usage: test_api FIXTURE_SERVER
 */
#include "harness.h"

#include <sys/stat.h>

#include "fixture.h"

#include <stddef.h>

static const char *fixture_path;

/* An argument with invalid UTF-8. */
static const char bad_utf8[] = {'a', (char)0xff, 'b', 0};

static mcp_result dummy_tool(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("{\"content\":[]}");
    return MCP_OK;
}

static mcp_result dummy_resource(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx, (void)params, (void)out;
    return MCP_ERR_CALLBACK;
}

static mcp_result dummy_request(void *ud, const char *params, char **out) {
    (void)ud, (void)params, (void)out;
    return MCP_ERR_CALLBACK;
}

static void dummy_notification(void *ud, const char *method, const char *params) {
    (void)ud, (void)method, (void)params;
}

static void dummy_line(void *ud, const char *line) { (void)ud, (void)line; }

static void test_version_and_names(void) {
    CHECK(strlen(mcp_version()) > 0);
    /* The header's version macros are the library's version. */
    char macros[64];
    snprintf(macros, sizeof macros, "%d.%d.%d", MCP_VERSION_MAJOR, MCP_VERSION_MINOR,
             MCP_VERSION_PATCH);
    CHECK(strcmp(macros, mcp_version()) == 0);
    CHECK(strcmp(MCP_VERSION_STRING, mcp_version()) == 0);
    CHECK(strcmp(mcp_result_name(MCP_OK), "MCP_OK") == 0);
    CHECK(strcmp(mcp_result_name(MCP_ERR_TIMEOUT), "MCP_ERR_TIMEOUT") == 0);
    CHECK(strcmp(mcp_result_name(MCP_ERR_INTERNAL), "MCP_ERR_INTERNAL") == 0);
    CHECK(strcmp(mcp_result_name(9999), "MCP_ERR_UNKNOWN") == 0);
    /* The codes are stable. */
    CHECK(MCP_OK == 0 && MCP_ERR_NULL_ARGUMENT == 1 && MCP_ERR_RPC == 5 && MCP_ERR_PANIC == 13);
}

static void test_strings(void) {
    char *s = mcp_string_new("héllo");
    CHECK(s && strcmp(s, "héllo") == 0);
    mcp_string_free(s);
    CHECK(mcp_string_new(NULL) == NULL);
    mcp_string_free(NULL);
    char *quoted = (char *)1;
    CHECK_OK(mcp_json_quote("a \"b\" \\ c\n", &quoted));
    CHECK(quoted && strcmp(quoted, "\"a \\\"b\\\" \\\\ c\\n\"") == 0);
    mcp_string_free(quoted);
    quoted = (char *)1;
    CHECK_RC(mcp_json_quote(NULL, &quoted), MCP_ERR_NULL_ARGUMENT);
    CHECK(quoted == NULL); /* out-parameters are NULL after a failure */
    CHECK_RC(mcp_json_quote("x", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_json_quote(bad_utf8, &quoted), MCP_ERR_INVALID_ARGUMENT);
    /* strdup'd strings may be freed by the library. */
    mcp_string_free(strdup("from strdup"));
}

static void test_last_error(void) {
    CHECK_RC(mcp_json_quote(NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK(mcp_last_error_code() == MCP_ERR_NULL_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "json_out");
    int64_t code = 42;
    CHECK(!mcp_last_error_rpc_code(&code));
    CHECK(code == 42);
    CHECK(!mcp_last_error_rpc_code(NULL));
    CHECK(mcp_last_error_rpc_data() == NULL);
    /* Successful calls leave the last error alone. */
    char *s = NULL;
    CHECK_OK(mcp_json_quote("ok", &s));
    mcp_string_free(s);
    CHECK(mcp_last_error_code() == MCP_ERR_NULL_ARGUMENT);
}

static void test_client_lifecycle(void) {
    mcp_client *client = (mcp_client *)1;
    CHECK_RC(mcp_client_new(NULL, "1", &client), MCP_ERR_NULL_ARGUMENT);
    CHECK(client == NULL);
    CHECK_RC(mcp_client_new("c", NULL, &client), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_new("c", "1", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_new(bad_utf8, "1", &client), MCP_ERR_INVALID_ARGUMENT);
    mcp_client_free(NULL);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(mcp_client_new("c", "1", &client));
        CHECK(client != NULL);
        mcp_client_free(client);
    }
}

static void test_server_lifecycle(void) {
    mcp_server *server = (mcp_server *)1;
    CHECK_RC(mcp_server_new(NULL, "1", &server), MCP_ERR_NULL_ARGUMENT);
    CHECK(server == NULL);
    CHECK_RC(mcp_server_new("s", "1", NULL), MCP_ERR_NULL_ARGUMENT);
    mcp_server_free(NULL);
    CHECK_OK(mcp_server_new("s", "1", &server));
    mcp_server_free(server);
    /* A full fixture, never served. */
    server = fixture_server_new();
    CHECK(server != NULL);
    mcp_server_free(server);
}

static void test_client_null_arguments(void) {
    char *json = (char *)1;
    CHECK_RC(mcp_client_ping(NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_list_tools(NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK(json == NULL);
    CHECK_RC(mcp_client_call_tool(NULL, "t", NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_list_resources(NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_list_resource_templates(NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_read_resource(NULL, "u", NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_subscribe_resource(NULL, "u", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_unsubscribe_resource(NULL, "u", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_list_prompts(NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_get_prompt(NULL, "p", NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_logging_level(NULL, "info", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_request(NULL, MCP_METHOD_PING, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_notify(NULL, "x", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_server_info(NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_close(NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_connect_stdio(NULL, "x", NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_connect_http(NULL, "http://x", NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_timeout(NULL, 1), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_roots(NULL, "[]"), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_on_sampling(NULL, dummy_request, NULL), MCP_ERR_NULL_ARGUMENT);

    mcp_client *client = NULL;
    CHECK_OK(mcp_client_new("c", "1", &client));
    CHECK_RC(mcp_client_list_tools(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_call_tool(client, NULL, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_read_resource(client, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_get_prompt(client, NULL, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_request(client, NULL, NULL, NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_connect_stdio(client, NULL, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_connect_http(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_on_sampling(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_on_elicitation(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_on_notification(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_on_stderr(client, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_roots(client, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_protocol_version(client, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_protocol(client, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_client_set_protocol(NULL, "auto"), MCP_ERR_NULL_ARGUMENT);
    CHECK(mcp_client_protocol_version(NULL) == NULL);
    mcp_client_free(client);
}

/* Cleanups run once, at free, last registered first. */
static char cleanup_order[8];
static atomic_int cleanup_count;

static void record_cleanup(void *userdata) {
    int n = atomic_fetch_add(&cleanup_count, 1);
    if (n < 7) cleanup_order[n] = *(const char *)userdata;
}

static void test_cleanups_at_free(void) {
    static const char a = 'a', b = 'b', c = 'c';
    mcp_server *server = NULL;
    CHECK_OK(mcp_server_new("s", "1", &server));
    CHECK_RC(mcp_server_on_free(server, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_on_free(NULL, record_cleanup, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_server_on_free(server, record_cleanup, (void *)&a));
    CHECK_OK(mcp_server_on_free(server, record_cleanup, (void *)&b));
    CHECK(atomic_load(&cleanup_count) == 0);
    mcp_server_free(server);
    CHECK(atomic_load(&cleanup_count) == 2);
    CHECK(strncmp(cleanup_order, "ba", 2) == 0);
    mcp_client *client = NULL;
    CHECK_OK(mcp_client_new("c", "1", &client));
    CHECK_OK(mcp_client_on_free(client, record_cleanup, (void *)&c));
    mcp_client_free(client);
    CHECK(atomic_load(&cleanup_count) == 3);
    CHECK(cleanup_order[2] == 'c');
}

/* mcp_call_options must say its size. */
static void test_call_options_size(void) {
    mcp_client *c = NULL;
    CHECK_OK(mcp_client_new("sized", "1", &c));
    mcp_call_options zeroed;
    memset(&zeroed, 0, sizeof zeroed);
    CHECK_RC(mcp_client_ping(c, &zeroed), MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "MCP_CALL_OPTIONS_INIT");
    mcp_call_options sized = MCP_CALL_OPTIONS_INIT;
    CHECK(sized.struct_size == sizeof(mcp_call_options));
    /* Read, then refused because the client is not connected. */
    CHECK_RC(mcp_client_ping(c, &sized), MCP_ERR_INVALID_STATE);
    /* The first version's (up to `cancel`, before the trace context):
     * read. */
    sized.struct_size = offsetof(mcp_call_options, traceparent);
    CHECK_RC(mcp_client_ping(c, &sized), MCP_ERR_INVALID_STATE);
    /* Smaller than the first version's: refused. */
    sized.struct_size = offsetof(mcp_call_options, traceparent) - 1;
    CHECK_RC(mcp_client_ping(c, &sized), MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "smaller than sizeof(mcp_call_options)");
    /* Larger (a newer header with fields this library does not know):
     * accepted, the extra fields ignored. */
    struct {
        mcp_call_options known;
        uint64_t unknown[4];
    } newer = {MCP_CALL_OPTIONS_INIT, {1, 2, 3, 4}};
    newer.known.struct_size = sizeof newer;
    CHECK_RC(mcp_client_ping(c, &newer.known), MCP_ERR_INVALID_STATE);
    mcp_client_free(c);
}

static void test_client_invalid_arguments(void) {
    mcp_client *client = NULL;
    CHECK_OK(mcp_client_new("c", "1", &client));
    char *json = (char *)1;
    /* Invalid JSON and the wrong JSON shapes. */
    CHECK_RC(mcp_client_call_tool(client, "t", "{not json", NULL, &json), MCP_ERR_INVALID_JSON);
    CHECK(json == NULL);
    CHECK_RC(mcp_client_call_tool(client, "t", "[1,2]", NULL, &json), MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_get_prompt(client, "p", "{\"n\":1}", NULL, &json), MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_request(client, "x", "42", NULL, &json), MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_notify(client, "x", "\"s\""), MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_set_roots(client, "{\"uri\":1}"), MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_client_set_roots(client, "[{\"name\":\"no uri\"}]"), MCP_ERR_INVALID_JSON);
    /* Invalid UTF-8, values and names. */
    CHECK_RC(mcp_client_call_tool(client, bad_utf8, NULL, NULL, &json), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_client_set_protocol_version(client, "1999-01-01"), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_client_set_protocol(client, "newest"), MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "\"auto\", \"legacy\" or one of");
    CHECK_CONTAINS(mcp_last_error_message(), "2026-07-28");
    CHECK_RC(mcp_client_set_timeout(client, 0), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_client_set_logging_level(client, "loud", NULL), MCP_ERR_INVALID_ARGUMENT);
    const char *bad_env[] = {"NO_EQUALS_SIGN", NULL};
    CHECK_RC(mcp_client_connect_stdio(client, "true", NULL, bad_env), MCP_ERR_INVALID_ARGUMENT);
    const char *bad_headers[] = {"no colon", NULL};
    CHECK_RC(mcp_client_connect_http(client, "http://127.0.0.1:1/mcp", bad_headers),
             MCP_ERR_INVALID_ARGUMENT);
    const char *bad_header_name[] = {"bad name: x", NULL};
    CHECK_RC(mcp_client_connect_http(client, "http://127.0.0.1:1/mcp", bad_header_name),
             MCP_ERR_INVALID_ARGUMENT);
    /* Valid configuration. */
    CHECK_OK(mcp_client_set_protocol(client, "auto"));
    CHECK_OK(mcp_client_set_protocol(client, "legacy"));
    CHECK_OK(mcp_client_set_protocol(client, "2026-07-28"));
    CHECK_OK(mcp_client_set_protocol_version(client, "2025-06-18"));
    CHECK_OK(mcp_client_set_timeout(client, 5000));
    CHECK_OK(mcp_client_set_roots(client, "[{\"uri\":\"file:///tmp\"}]"));
    CHECK_OK(mcp_client_on_notification(client, dummy_notification, NULL));
    CHECK_OK(mcp_client_on_stderr(client, dummy_line, NULL));
    mcp_client_free(client);
}

static void test_client_state_errors(void) {
    mcp_client *client = NULL;
    CHECK_OK(mcp_client_new("c", "1", &client));
    char *json = (char *)1;
    /* Calls before connecting. */
    CHECK_RC(mcp_client_ping(client, NULL), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_client_list_tools(client, NULL, &json), MCP_ERR_INVALID_STATE);
    CHECK(json == NULL);
    CHECK_RC(mcp_client_server_info(client, &json), MCP_ERR_INVALID_STATE);
    CHECK_CONTAINS(mcp_last_error_message(), "not connected");
    CHECK(mcp_client_protocol_version(client) == NULL);
    CHECK_CONTAINS(mcp_last_error_message(), "not connected");
    CHECK_OK(mcp_client_close(client)); /* closing an unconnected client is fine */
    CHECK_RC(mcp_client_ping(client, NULL), MCP_ERR_CLOSED);
    CHECK_RC(mcp_client_connect_stdio(client, fixture_path, NULL, NULL), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_client_set_timeout(client, 10), MCP_ERR_INVALID_STATE);
    mcp_client_free(client);
}

static void test_connect_failures(void) {
    mcp_client *client = NULL;
    CHECK_OK(mcp_client_new("c", "1", &client));
    CHECK_OK(mcp_client_set_timeout(client, 10000));
    /* No such program. */
    CHECK_RC(mcp_client_connect_stdio(client, "/nonexistent/mcp-server", NULL, NULL),
             MCP_ERR_TRANSPORT);
    CHECK_CONTAINS(mcp_last_error_message(), "/nonexistent/mcp-server");
    /* A program that exits at once. */
    CHECK_RC(mcp_client_connect_stdio(client, "true", NULL, NULL), MCP_ERR_CLOSED);
    /* A program that is not an MCP server: it answers nothing. */
    const char *args[] = {"-c", "echo not-json; sleep 5", NULL};
    mcp_client *slow = NULL;
    CHECK_OK(mcp_client_new("c", "1", &slow));
    CHECK_OK(mcp_client_set_timeout(slow, 300));
    double start = now_ms();
    CHECK_RC(mcp_client_connect_stdio(slow, "sh", args, NULL), MCP_ERR_TIMEOUT);
    CHECK(now_ms() - start < 3000);
    mcp_client_free(slow);
    /* Nobody listening over HTTP. */
    CHECK_RC(mcp_client_connect_http(client, "http://127.0.0.1:9/mcp", NULL), MCP_ERR_TRANSPORT);
    /* After failures the client can still connect. */
    CHECK_OK(mcp_client_connect_stdio(client, fixture_path, NULL, sanitizer_env()));
    CHECK_OK(mcp_client_ping(client, NULL));
    CHECK_RC(mcp_client_connect_stdio(client, fixture_path, NULL, NULL), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_client_on_sampling(client, dummy_request, NULL), MCP_ERR_INVALID_STATE);
    /* Roots can change after connecting only if they were declared before. */
    CHECK_RC(mcp_client_set_roots(client, "[]"), MCP_ERR_INVALID_STATE);
    mcp_client_free(client);
}

static void test_server_registration_errors(void) {
    mcp_server *server = NULL;
    CHECK_OK(mcp_server_new("s", "1", &server));
    const char *schema = "{\"type\":\"object\"}";
    CHECK_RC(mcp_server_add_tool(NULL, "t", NULL, schema, dummy_tool, NULL), MCP_ERR_NULL_ARGUMENT);
    /* Tools as JSON: required fields, unknown fields, bad schemas. */
    CHECK_RC(mcp_server_add_tool_json(server, NULL, dummy_tool, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_tool_json(server, "{\"name\":\"t\"}", dummy_tool, NULL),
             MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_server_add_tool_json(server, "{\"name\":\"t\",\"inputSchema\":{\"type\":"
                                              "\"object\"},\"inputschema\":1}",
                                      dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "inputschema");
    CHECK_RC(mcp_server_add_tool_json(server, "{\"name\":\"bad name!\",\"inputSchema\":{\"type\":"
                                              "\"object\"}}",
                                      dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_add_tool_json(server, "{\"name\":\"t\",\"inputSchema\":{\"type\":"
                                              "\"object\"},\"outputSchema\":{\"type\":\"string\"}}",
                                      dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_add_tool_json(server, "{\"name\":\"t\",\"inputSchema\":{\"type\":"
                                              "\"object\"}}",
                                      NULL, NULL),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, NULL, NULL, schema, dummy_tool, NULL),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, "t", NULL, NULL, dummy_tool, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, "t", NULL, schema, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, "bad name", NULL, schema, dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, "t", NULL, "{oops", dummy_tool, NULL),
             MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_server_add_tool(server, "t", NULL, "{\"type\":\"string\"}", dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_add_tool(server, "t", bad_utf8, schema, dummy_tool, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_OK(mcp_server_add_tool(server, "t", NULL, schema, dummy_tool, NULL));
    CHECK_OK(mcp_server_add_tool(server, "t", "replaced", schema, dummy_tool, NULL));
    bool removed = false;
    CHECK_OK(mcp_server_remove_tool(server, "t", &removed));
    CHECK(removed);
    CHECK_OK(mcp_server_remove_tool(server, "t", &removed));
    CHECK(!removed);
    CHECK_OK(mcp_server_remove_tool(server, "t", NULL));
    CHECK_RC(mcp_server_add_resource(server, NULL, "n", NULL, NULL, dummy_resource, NULL),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_resource(server, "u://x", NULL, NULL, NULL, dummy_resource, NULL),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_add_resource(server, "u://x", "n", NULL, NULL, NULL, NULL),
             MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_server_add_resource(server, "u://x", "n", NULL, NULL, dummy_resource, NULL));
    CHECK_OK(mcp_server_remove_resource(server, "u://x", &removed));
    CHECK(removed);
    CHECK_RC(mcp_server_add_resource_template(server, "u://{unclosed", "n", NULL, NULL,
                                              dummy_resource, NULL),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_add_prompt(server, "p", NULL, "[{\"nom\":\"x\"}]", NULL, NULL),
             MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_server_add_prompt(server, "p", NULL, "not json", NULL, NULL),
             MCP_ERR_INVALID_JSON);
    CHECK_RC(mcp_server_add_prompt(server, "p", NULL, NULL, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_server_remove_prompt(server, "p", &removed));
    CHECK(!removed);
    CHECK_RC(mcp_server_declare(server, 8), MCP_ERR_INVALID_ARGUMENT);
    CHECK_OK(mcp_server_declare(server, MCP_CAPABILITY_PROMPTS));
    CHECK_RC(mcp_server_set_instructions(server, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_set_instructions(NULL, "x"), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_notify_resource_updated(server, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    size_t notified = 7;
    CHECK_OK(mcp_server_notify_resource_updated(server, "u://x", &notified));
    CHECK(notified == 0);
    mcp_server_free(server);
}

static void test_server_serving_errors(void) {
    mcp_server *server = NULL;
    CHECK_OK(mcp_server_new("s", "1", &server));
    uint16_t port = 0;
    CHECK_RC(mcp_server_serve_http(NULL, "127.0.0.1:0", &port), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_serve_http(server, NULL, &port), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_serve_http(server, "localhost", &port), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_server_serve_http(server, "127.0.0.1:99999", &port), MCP_ERR_INVALID_ARGUMENT);
    CHECK_OK(mcp_server_serve_http(server, "127.0.0.1:0", &port));
    CHECK(port != 0);
    /* Served now: the completion callback can no longer be set. */
    CHECK_RC(mcp_server_set_completion(server, dummy_tool, NULL), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_server_set_completion(server, NULL, NULL), MCP_ERR_NULL_ARGUMENT);
    /* The port is taken now. */
    mcp_server *other = NULL;
    CHECK_OK(mcp_server_new("s2", "1", &other));
    char address[64];
    snprintf(address, sizeof address, "127.0.0.1:%u", (unsigned)port);
    uint16_t other_port = 0;
    CHECK_RC(mcp_server_serve_http(other, address, &other_port), MCP_ERR_TRANSPORT);
    CHECK(other_port == 0);
    mcp_server_free(other);
    /* Serving has begun: these only apply before. */
    CHECK_RC(mcp_server_set_instructions(server, "late"), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_server_declare(server, MCP_CAPABILITY_TOOLS), MCP_ERR_INVALID_STATE);
    /* Nothing was registered or declared: adding a tool now is refused. */
    CHECK_RC(mcp_server_add_tool(server, "t", NULL, "{\"type\":\"object\"}", dummy_tool, NULL),
             MCP_ERR_CAPABILITY);
    CHECK_RC(mcp_server_stop(NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_server_stop(server));
    CHECK_OK(mcp_server_stop(server));
    CHECK_RC(mcp_server_serve_http(server, "127.0.0.1:0", &port), MCP_ERR_INVALID_STATE);
    CHECK_RC(mcp_server_serve_stdio(server), MCP_ERR_INVALID_STATE);
    mcp_server_free(server);
}

/* Writes TEXT to DIR/REL, creating REL's folder. */
static void write_file(const char *dir, const char *rel, const char *text) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    char *slash = strrchr(path, '/');
    *slash = '\0';
    mkdir(path, 0700);
    *slash = '/';
    FILE *file = fopen(path, "w");
    CHECK(file != NULL);
    if (!file) return;
    fputs(text, file);
    fclose(file);
}

/* Serving a skills directory: loaded, refused with the skill named when
   one breaks the rules (nothing changes), or when the directory is not. */
static void test_server_skills(void) {
    mcp_server *server = NULL;
    CHECK_OK(mcp_server_new("s", "1", &server));
    char dir[] = "/tmp/mcp-c-skills-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    write_file(dir, "notes/SKILL.md", "---\nname: notes\ndescription: Take notes.\n---\nBody\n");
    CHECK_RC(mcp_server_set_skills_dir(NULL, dir, true), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_server_set_skills_dir(server, NULL, true), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_server_set_skills_dir(server, dir, true));
    write_file(dir, "broken/SKILL.md", "---\nname: not-broken\ndescription: x\n---\n");
    CHECK_RC(mcp_server_set_skills_dir(server, dir, false), MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "not-broken");
    CHECK_RC(mcp_server_set_skills_dir(server, "/nonexistent/skills", false),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_CONTAINS(mcp_last_error_message(), "/nonexistent/skills");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    CHECK(system(command) == 0);
    mcp_server_free(server);
}

static void test_context_null_arguments(void) {
    char *json = (char *)1;
    CHECK_RC(mcp_context_progress(NULL, 1, 2, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_context_log(NULL, "info", NULL, "m"), MCP_ERR_NULL_ARGUMENT);
    CHECK(!mcp_context_is_cancelled(NULL));
    CHECK(mcp_context_traceparent(NULL) == NULL);
    CHECK(mcp_context_tracestate(NULL) == NULL);
    CHECK_RC(mcp_context_create_message(NULL, "{}", &json), MCP_ERR_NULL_ARGUMENT);
    CHECK(json == NULL);
    CHECK_RC(mcp_context_elicit(NULL, "{}", &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_context_list_roots(NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_context_client_info(NULL, &json), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_context_list_roots(NULL, NULL), MCP_ERR_NULL_ARGUMENT);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURE_SERVER\n", argv[0]);
        return 2;
    }
    fixture_path = argv[1];
    RUN(test_version_and_names);
    RUN(test_strings);
    RUN(test_last_error);
    RUN(test_client_lifecycle);
    RUN(test_server_lifecycle);
    RUN(test_client_null_arguments);
    RUN(test_client_invalid_arguments);
    RUN(test_call_options_size);
    RUN(test_cleanups_at_free);
    RUN(test_client_state_errors);
    RUN(test_connect_failures);
    RUN(test_server_registration_errors);
    RUN(test_server_serving_errors);
    RUN(test_server_skills);
    RUN(test_context_null_arguments);
    return finish();
}
