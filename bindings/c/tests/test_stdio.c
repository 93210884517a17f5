/*
 * A client talks to the fixture server (fixture_server, a child process)
 * over stdio: every client call, every server callback kind, the server's
 * requests to the client (sampling, elicitation, roots), notifications,
 * callbacks calling back into the library, the MCP_METHOD_* names on the wire,
 * errors, timeouts, concurrent calls from several threads, and a server that
 * dies mid-call.
 * One program of three files: this one (main, the shared client, the tests
 * of its calls), test_stdio_callbacks.c (the client's callbacks, the tests
 * of the server's requests and notifications) and test_stdio_lifecycle.c
 * (clients of their own: close, a server that dies, stops or is freed, a
 * client freed in its callback); test_stdio.h declares what they share.
 * Usage: test_stdio FIXTURE_SERVER [REVISION]  (default 2025-11-25, every
 * test; another revision runs the calls and the server's requests to the
 * client, the fixture and callbacks unchanged)
 */
#include "test_stdio.h"

#include <math.h>
#include <stddef.h>
#include <pthread.h>

const char *fixture_path;

/* The revision the shared client asks for: 2025-11-25 unless given on the
   command line. */
const char *revision = "2025-11-25";

/* A client of a new fixture server process, with every handler set, in a
   session at `revision`. At 2025-11-25 every test runs (server requests,
   subscriptions, list-changed notifications); at 2026-07-28 the tests of
   what C code sees the same under both run: the fixture's tools call
   mcp_context_create_message / _elicit / _list_roots, which that revision
   carries as input-required rounds, answered by the same client callbacks. */
mcp_client *connect_fixture(void) {
    mcp_client *client = NULL;
    if (mcp_client_new("c-test-client", "0.0.1", &client) != MCP_OK) return NULL;
    CHECK_OK(mcp_client_set_protocol(client, revision));
    CHECK_OK(mcp_client_set_timeout(client, 20000));
    CHECK_OK(mcp_client_on_notification(client, on_notification, &seen));
    CHECK_OK(mcp_client_on_stderr(client, on_stderr, NULL));
    CHECK_OK(mcp_client_on_sampling(client, on_sampling, NULL));
    CHECK_OK(mcp_client_on_elicitation(client, on_elicitation, NULL));
    CHECK_OK(mcp_client_set_roots(client, "[{\"uri\":\"file:///initial\",\"name\":\"initial\"}]"));
    mcp_result r = mcp_client_connect_stdio(client, fixture_path, NULL, sanitizer_env());
    CHECK_OK(r);
    if (r != MCP_OK) {
        mcp_client_free(client);
        return NULL;
    }
    return client;
}

/* Calls a tool; returns the result JSON (free it) or NULL. */
char *call(mcp_client *client, const char *tool, const char *args) {
    char *json = NULL;
    mcp_result r = mcp_client_call_tool(client, tool, args, NULL, &json);
    if (r != MCP_OK) {
        fprintf(stderr, "call %s: %s: %s\n", tool, mcp_result_name(r), mcp_last_error_message());
        return NULL;
    }
    return json;
}

mcp_client *client; /* the shared client of most tests */

static void test_connect_and_info(void) {
    char *info = NULL;
    CHECK_OK(mcp_client_server_info(client, &info));
    CHECK_CONTAINS(info, "\"name\":\"c-fixture\"");
    char expected[64];
    snprintf(expected, sizeof expected, "\"protocolVersion\":\"%s\"", revision);
    CHECK_CONTAINS(info, expected);
    CHECK_CONTAINS(info, "\"instructions\":\"Fixture server for the C tests.\"");
    CHECK_CONTAINS(info, "\"tools\":{\"listChanged\":true}");
    mcp_string_free(info);
    CHECK(wait_until(&seen.stderr_ready, 1, 5000));
}

static void test_ping(void) {
    CHECK_OK(mcp_client_ping(client, NULL));
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 5000;
    CHECK_OK(mcp_client_ping(client, &options));
}

/* A call's traceparent and tracestate (mcp_call_options) reach the server
 * callback (mcp_context_traceparent/_tracestate); malformed ones are
 * ignored, and options of the first layout (no trace fields) still work. */
static void test_trace_context(void) {
    const char *parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    char *json = NULL;
    options.traceparent = parent;
    options.tracestate = "vendor=value,other=1";
    CHECK_OK(mcp_client_call_tool(client, "trace", NULL, &options, &json));
    CHECK_CONTAINS(json, "traceparent=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 ");
    CHECK_CONTAINS(json, "tracestate=vendor=value,other=1");
    mcp_string_free(json);
    CHECK_CALL(client, "trace", NULL, "traceparent=none tracestate=none");
    /* A malformed tracestate is dropped, the traceparent kept. */
    options.tracestate = "=no key";
    CHECK_OK(mcp_client_call_tool(client, "trace", NULL, &options, &json));
    CHECK_CONTAINS(json, "4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01 tracestate=none");
    mcp_string_free(json);
    /* A malformed traceparent: as if none were given. */
    const char *malformed[] = {"", "00-zz", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
                               "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                               "\xff\xfe not UTF-8"};
    options.tracestate = "vendor=value";
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
        options.traceparent = malformed[i];
        CHECK_OK(mcp_client_call_tool(client, "trace", NULL, &options, &json));
        CHECK_CONTAINS(json, "traceparent=none tracestate=none");
        mcp_string_free(json);
    }
    /* The first layout (a program built against a header without them). */
    options.traceparent = parent;
    options.struct_size = offsetof(mcp_call_options, traceparent);
    CHECK_OK(mcp_client_call_tool(client, "trace", NULL, &options, &json));
    CHECK_CONTAINS(json, "traceparent=none tracestate=none");
    mcp_string_free(json);
}

static void test_list_tools(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_tools(client, NULL, &json));
    const char *names[] = {"echo", "add", "fail", "bad_json", "progress", "log", "sample",
                           "elicit", "roots", "sleep", "pid", "add_tool", "touch", "stop"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char quoted[64];
        snprintf(quoted, sizeof quoted, "\"name\":\"%s\"", names[i]);
        CHECK_CONTAINS(json, quoted);
    }
    CHECK_CONTAINS(json, "\"required\":[\"a\",\"b\"]");
    mcp_string_free(json);
}

static void test_call_tools(void) {
    CHECK_CALL(client, "add", "{\"a\":2,\"b\":3}", "\"text\":\"5\"");
    CHECK_CALL(client, "add", "{\"a\":-1.5,\"b\":0.25}", "\"text\":\"-1.25\"");
    /* Escapes and non-ASCII survive the round trip. */
    CHECK_CALL(client, "echo", "{\"message\":\"q\\\" b\\\\ \\u00e9 ü\"}",
               "\"text\":\"q\\\" b\\\\ é ü\"");
    CHECK_CALL(client, "pid", NULL, "\"type\":\"text\"");
    char *json = call(client, "add", "{\"a\":1,\"b\":1}");
    CHECK(json && !strstr(json, "\"isError\":true"));
    mcp_string_free(json);
}

static void test_tool_failures(void) {
    CHECK_CALL(client, "fail", "{}", "deliberate failure");
    CHECK_CALL(client, "fail", "{}", "\"isError\":true");
    CHECK_CALL(client, "fail_silently", "{}", "MCP_ERR_CALLBACK");
    CHECK_CALL(client, "bad_json", "{}", "does not decode");
    CHECK_CALL(client, "no_result", "{}", "without setting its result");
    CHECK_CALL(client, "add", "{\"a\":\"two\"}", "Invalid arguments");
    /* An unknown tool: the server answers a JSON-RPC error. */
    char *json = (char *)1;
    CHECK_RC(mcp_client_call_tool(client, "no_such_tool", NULL, NULL, &json), MCP_ERR_RPC);
    CHECK(json == NULL);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code));
    CHECK(code == -32602);
    CHECK_CONTAINS(mcp_last_error_message(), "no_such_tool");
    CHECK(mcp_last_error_code() == MCP_ERR_RPC);
}

/* A tool declared with mcp_server_add_tool_json: every field is listed,
 * structured content comes back; a callback's JSON-RPC error reaches the
 * client as one. */
static void test_tool_definitions_and_rpc_errors(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_tools(client, NULL, &json));
    CHECK_CONTAINS(json, "\"title\":\"Structured weather\"");
    CHECK_CONTAINS(json, "\"outputSchema\":{\"type\":\"object\"");
    CHECK_CONTAINS(json, "\"readOnlyHint\":true");
    CHECK_CONTAINS(json, "\"src\":\"https://example.com/sun.png\"");
    CHECK_CONTAINS(json, "\"_meta\":{\"example.com/origin\":\"fixture\"}");
    mcp_string_free(json);
    CHECK_CALL(client, "structured", "{\"n\":3}", "\"structuredContent\":{\"celsius\":21.5,\"n\":3}");
    json = (char *)1;
    CHECK_RC(mcp_client_call_tool(client, "rpc_error", NULL, NULL, &json), MCP_ERR_RPC);
    CHECK(json == NULL);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code) && code == -32001);
    CHECK_CONTAINS(mcp_last_error_message(), "not now");
    CHECK_CONTAINS(mcp_last_error_rpc_data(), "\"retry\":true");
    /* Arguments that fail the input schema: a tool error, not a JSON-RPC one. */
    CHECK_CALL(client, "structured", "{\"n\":\"three\"}", "\"isError\":true");
    CHECK_CALL(client, "structured", "{\"n\":\"three\"}", "Invalid arguments");
}

static void test_resources(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_resources(client, NULL, &json));
    CHECK_CONTAINS(json, "\"uri\":\"test://static\"");
    CHECK_CONTAINS(json, "\"uri\":\"test://counter\"");
    CHECK_CONTAINS(json, "\"mimeType\":\"text/plain\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_resource(client, "test://static", NULL, &json));
    CHECK_CONTAINS(json, "\"text\":\"static text\"");
    mcp_string_free(json);
    /* The callback's own JSON-RPC error, with its data. */
    json = (char *)1;
    CHECK_RC(mcp_client_read_resource(client, "test://gone", NULL, &json), MCP_ERR_RPC);
    CHECK(json == NULL);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code) && code == -32002);
    CHECK_CONTAINS(mcp_last_error_message(), "gone");
    CHECK_CONTAINS(mcp_last_error_rpc_data(), "\"uri\":\"test://gone\"");
    /* An unknown URI. */
    CHECK_RC(mcp_client_read_resource(client, "test://nothing", NULL, &json), MCP_ERR_RPC);
    CHECK(mcp_last_error_rpc_code(&code) && code == -32002);
    /* Templates. */
    CHECK_OK(mcp_client_list_resource_templates(client, NULL, &json));
    CHECK_CONTAINS(json, "\"uriTemplate\":\"test://items/{id}\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_read_resource(client, "test://items/42", NULL, &json));
    CHECK_CONTAINS(json, "\"text\":\"item 42\"");
    CHECK_CONTAINS(json, "\"uri\":\"test://items/42\"");
    mcp_string_free(json);
}

static void test_prompts(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_list_prompts(client, NULL, &json));
    CHECK_CONTAINS(json, "\"name\":\"greet\"");
    CHECK_CONTAINS(json, "\"required\":true");
    CHECK_CONTAINS(json, "\"name\":\"broken\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_get_prompt(client, "greet", "{\"name\":\"Ada\"}", NULL, &json));
    CHECK_CONTAINS(json, "\"text\":\"Hello, Ada\"");
    CHECK_CONTAINS(json, "\"role\":\"user\"");
    mcp_string_free(json);
    int64_t code = 0;
    CHECK_RC(mcp_client_get_prompt(client, "greet", NULL, NULL, &json), MCP_ERR_RPC);
    CHECK(mcp_last_error_rpc_code(&code) && code == -32602);
    CHECK_RC(mcp_client_get_prompt(client, "broken", NULL, NULL, &json), MCP_ERR_RPC);
    CHECK(mcp_last_error_rpc_code(&code) && code == -32603);
    CHECK_CONTAINS(mcp_last_error_message(), "the prompt broke");
    CHECK_RC(mcp_client_get_prompt(client, "nope", NULL, NULL, &json), MCP_ERR_RPC);
}

static struct {
    atomic_int calls;
    double values[8];
    double totals[8];
    char messages[8][32];
    pthread_t thread;
    int same_thread;
} progress_seen;

static void on_progress(void *userdata, double progress, double total, const char *message) {
    CHECK(userdata == &progress_seen);
    int i = atomic_fetch_add(&progress_seen.calls, 1);
    if (!pthread_equal(pthread_self(), progress_seen.thread)) progress_seen.same_thread = 0;
    if (i < 8) {
        progress_seen.values[i] = progress;
        progress_seen.totals[i] = total;
        snprintf(progress_seen.messages[i], sizeof progress_seen.messages[i], "%s",
                 message ? message : "(null)");
    }
}

static void test_completion(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_complete(client,
                                 "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                                 "\"argument\":{\"name\":\"name\",\"value\":\"Al\"}}",
                                 NULL, &json));
    CHECK_CONTAINS(json, "\"values\":[\"Alice\",\"Alan\"]");
    mcp_string_free(json);
    json = (char *)1;
    CHECK_RC(mcp_client_complete(client, "{\"ref\":5}", NULL, &json), MCP_ERR_INVALID_JSON);
    CHECK(json == NULL);
}

static void test_progress(void) {
    atomic_store(&progress_seen.calls, 0);
    progress_seen.thread = pthread_self();
    progress_seen.same_thread = 1;
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.on_progress = on_progress;
    options.userdata = &progress_seen;
    char *json = NULL;
    CHECK_OK(mcp_client_call_tool(client, "progress", NULL, &options, &json));
    CHECK_CONTAINS(json, "done");
    mcp_string_free(json);
    /* Progress callbacks all ran on this thread, before the call returned. */
    CHECK(atomic_load(&progress_seen.calls) == 4);
    CHECK(progress_seen.same_thread);
    CHECK(progress_seen.values[0] == 0 && progress_seen.values[2] == 2);
    CHECK(progress_seen.values[3] == 3);
    CHECK(progress_seen.totals[0] == 3 && isnan(progress_seen.totals[3]));
    CHECK(strcmp(progress_seen.messages[1], "step 1") == 0);
    CHECK(strcmp(progress_seen.messages[3], "(null)") == 0);
    /* Without a progress callback the tool still works (progress is dropped). */
    CHECK_CALL(client, "progress", NULL, "done");
}

static void test_timeout(void) {
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 200;
    char *json = (char *)1;
    double start = now_ms();
    CHECK_RC(mcp_client_call_tool(client, "sleep", "{\"ms\":3000}", &options, &json),
             MCP_ERR_TIMEOUT);
    CHECK(json == NULL);
    CHECK(now_ms() - start < 2000);
    CHECK_RC(mcp_client_ping(client, &options), MCP_OK);
    /* Timeouts of the other kinds of call. */
    options.timeout_ms = 1;
    CHECK_OK(mcp_client_call_tool(client, "echo", "{\"message\":\"fast\"}", NULL, &json));
    mcp_string_free(json);
    CHECK_RC(mcp_client_request(client, MCP_METHOD_TOOLS_CALL,
                                "{\"name\":\"sleep\",\"arguments\":{\"ms\":2000}}", &options,
                                &json),
             MCP_ERR_TIMEOUT);
}

struct worker {
    int id;
    int failures;
};

static void *worker_main(void *arg) {
    struct worker *w = arg;
    for (int i = 0; i < 25; i++) {
        char args[128], expected[128];
        snprintf(args, sizeof args, "{\"message\":\"worker %d call %d\"}", w->id, i);
        snprintf(expected, sizeof expected, "\"text\":\"worker %d call %d\"", w->id, i);
        char *json = NULL;
        if (mcp_client_call_tool(client, "echo", args, NULL, &json) != MCP_OK ||
            !strstr(json, expected))
            w->failures++;
        mcp_string_free(json);
        snprintf(args, sizeof args, "{\"a\":%d,\"b\":%d}", w->id, i);
        snprintf(expected, sizeof expected, "\"text\":\"%d\"", w->id + i);
        json = NULL;
        if (mcp_client_call_tool(client, "add", args, NULL, &json) != MCP_OK ||
            !strstr(json, expected))
            w->failures++;
        mcp_string_free(json);
        if (mcp_client_ping(client, NULL) != MCP_OK) w->failures++;
    }
    return NULL;
}

static void *slow_call(void *arg) {
    char *json = NULL;
    *(mcp_result *)arg = mcp_client_call_tool(client, "sleep", "{\"ms\":1500}", NULL, &json);
    mcp_string_free(json);
    return NULL;
}

/* Over the 4 MiB message limit, both ways: each call fails at once (not at
 * its timeout) with an error that says so, and the session goes on. */
static void test_message_limit(void) {
    char *args = echo_args_of_size((4u << 20) + 100);
    CHECK(args != NULL);
    if (!args) return;
    char *json = NULL;
    double start = now_ms();
    CHECK_RC(mcp_client_call_tool(client, "echo", args, NULL, &json), MCP_ERR_RPC);
    int64_t code = 0;
    CHECK(mcp_last_error_rpc_code(&code) && code == -32600);
    CHECK_CONTAINS(mcp_last_error_message(), "exceeds the limit of 4194304 bytes");
    CHECK(now_ms() - start < 10000);
    CHECK(json == NULL);
    free(args);

    start = now_ms();
    CHECK_RC(mcp_client_call_tool(client, "big", NULL, NULL, &json), MCP_ERR_TRANSPORT);
    CHECK_CONTAINS(mcp_last_error_message(), "larger than the message limit of 4194304 bytes");
    CHECK(now_ms() - start < 10000);
    CHECK(json == NULL);

    CHECK_OK(mcp_client_ping(client, NULL));
    CHECK_CALL(client, "add", "{\"a\":1,\"b\":2}", "\"3\"");
}

static void test_concurrent_calls(void) {
    enum { N = 8 };
    pthread_t threads[N];
    struct worker workers[N];
    for (int i = 0; i < N; i++) {
        workers[i] = (struct worker){.id = i, .failures = 0};
        CHECK(pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(workers[i].failures == 0);
    }
    /* A slow tool does not hold up other requests. */
    mcp_result slow_result = MCP_ERR_INTERNAL;
    pthread_t slow;
    CHECK(pthread_create(&slow, NULL, slow_call, &slow_result) == 0);
    sleep_ms(100);
    double start = now_ms();
    CHECK_OK(mcp_client_ping(client, NULL));
    CHECK_CALL(client, "add", "{\"a\":1,\"b\":2}", "\"text\":\"3\"");
    CHECK(now_ms() - start < 1000); /* well before the slow call ends */
    pthread_join(slow, NULL);
    CHECK(slow_result == MCP_OK);
}

static void test_generic_request_and_notify(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_request(client, MCP_METHOD_TOOLS_LIST, NULL, NULL, &json));
    CHECK_CONTAINS(json, "\"tools\":[");
    mcp_string_free(json);
    CHECK_OK(mcp_client_request(client, MCP_METHOD_RESOURCES_READ, "{\"uri\":\"test://static\"}",
                                NULL, &json));
    CHECK_CONTAINS(json, "static text");
    mcp_string_free(json);
    int64_t code = 0;
    CHECK_OK(mcp_client_request(client, MCP_METHOD_COMPLETION_COMPLETE,
                                "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                                "\"argument\":{\"name\":\"name\",\"value\":\"B\"}}",
                                NULL, &json));
    CHECK_CONTAINS(json, "\"values\":[\"Bob\"]");
    mcp_string_free(json);
    json = NULL;
    CHECK_RC(mcp_client_request(client, "no/such/method", NULL, NULL, &json), MCP_ERR_RPC);
    CHECK(mcp_last_error_rpc_code(&code) && code == -32601);
    /* Progress through the generic request. */
    atomic_store(&progress_seen.calls, 0);
    progress_seen.thread = pthread_self();
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.on_progress = on_progress;
    options.userdata = &progress_seen;
    CHECK_OK(mcp_client_request(client, MCP_METHOD_TOOLS_CALL, "{\"name\":\"progress\"}", &options,
                                &json));
    CHECK_CONTAINS(json, "done");
    mcp_string_free(json);
    CHECK(atomic_load(&progress_seen.calls) == 4);
    CHECK_OK(mcp_client_notify(client, MCP_METHOD_NOTIFICATIONS_ROOTS_LIST_CHANGED, NULL));
    CHECK_OK(mcp_client_notify(client, "notifications/custom", "{\"x\":1}"));
    CHECK_OK(mcp_client_ping(client, NULL));
}

/* The header's MCP_METHOD_* names are the wire names: requests sent by them
 * reach the server's handlers, and notifications arrive under them (the
 * notification callback compares with MCP_METHOD_NOTIFICATIONS_MESSAGE). */
static void test_method_names(void) {
    static const struct {
        const char *method;
        const char *params;
        const char *expect;
    } requests[] = {
        {MCP_METHOD_PING, NULL, "{}"},
        {MCP_METHOD_TOOLS_LIST, NULL, "\"name\":\"add\""},
        {MCP_METHOD_TOOLS_CALL, "{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}}",
         "\"text\":\"5\""},
        {MCP_METHOD_RESOURCES_LIST, NULL, "\"uri\":\"test://static\""},
        {MCP_METHOD_RESOURCES_TEMPLATES_LIST, NULL, "\"uriTemplate\":\"test://items/{id}\""},
        {MCP_METHOD_RESOURCES_READ, "{\"uri\":\"test://static\"}", "static text"},
        {MCP_METHOD_PROMPTS_LIST, NULL, "\"name\":\"greet\""},
        {MCP_METHOD_PROMPTS_GET, "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}",
         "Hello, Ada"},
        {MCP_METHOD_LOGGING_SET_LEVEL, "{\"level\":\"debug\"}", "{}"},
    };
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        char *json = NULL;
        CHECK_OK(mcp_client_request(client, requests[i].method, requests[i].params, NULL, &json));
        CHECK_CONTAINS(json, requests[i].expect);
        mcp_string_free(json);
    }
    int before = atomic_load(&seen.logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&seen.logs, before + 2, 5000));
    /* They are string literals. */
    CHECK(strcmp("method " MCP_METHOD_TOOLS_CALL, "method tools/call") == 0);
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: %s FIXTURE_SERVER [REVISION]\n", argv[0]);
        return 2;
    }
    fixture_path = argv[1];
    if (argc == 3) revision = argv[2];
    client = connect_fixture();
    if (!client) {
        printf("FAIL connect: %s\n", mcp_last_error_message());
        return 1;
    }
    seen.client = client;
    RUN(test_connect_and_info);
    if (strcmp(revision, "2025-11-25") != 0) {
        /* The same client code, callbacks and fixture at another revision. */
        RUN(test_ping);
        RUN(test_call_tools);
        RUN(test_sampling);
        RUN(test_elicitation);
        RUN(test_roots);
        RUN(test_client_info);
        RUN(test_trace_context);
        mcp_client_free(client);
        seen.client = NULL;
        return finish();
    }
    RUN(test_ping);
    RUN(test_list_tools);
    RUN(test_call_tools);
    RUN(test_tool_failures);
    RUN(test_tool_definitions_and_rpc_errors);
    RUN(test_resources);
    RUN(test_prompts);
    RUN(test_completion);
    RUN(test_progress);
    RUN(test_logging);
    RUN(test_sampling);
    RUN(test_elicitation);
    RUN(test_roots);
    RUN(test_client_info);
    RUN(test_trace_context);
    RUN(test_list_changed_reentrant);
    RUN(test_subscriptions);
    RUN(test_timeout);
    RUN(test_message_limit);
    RUN(test_concurrent_calls);
    RUN(test_generic_request_and_notify);
    RUN(test_method_names);
    mcp_client_free(client);
    seen.client = NULL;
    RUN(test_close);
    RUN(test_server_killed_mid_call);
    RUN(test_server_stops_itself);
    RUN(test_free_inside_callback);
    RUN(test_server_freed_inside_callback);
    RUN(test_parallel_lifecycles);
    return finish();
}
