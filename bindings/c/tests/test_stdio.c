/*
 * A client talks to the fixture server (fixture_server, a child process)
 * over stdio: every client call, every server callback kind, the server's
 * requests to the client (sampling, elicitation, roots), notifications,
 * callbacks calling back into the library, the MCP_METHOD_* names on the wire,
 * errors, timeouts, concurrent calls from several threads, and a server that
 * dies mid-call.
 * Usage: test_stdio FIXTURE_SERVER [REVISION]  (default 2025-11-25, every
 * test; another revision runs the calls and the server's requests to the
 * client, the fixture and callbacks unchanged)
 */
#include "harness.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

static const char *fixture_path;

/* What the callbacks saw. */
static struct {
    mcp_client *client; /* the client the callbacks call back into */
    atomic_int notifications;
    atomic_int tools_changed;
    atomic_int resources_updated;
    atomic_int logs;
    atomic_int stderr_ready;
    atomic_int dynamic_listed; /* 1: "dynamic" seen by a re-entrant list; 2: not seen */
    atomic_int sampling_calls;
    atomic_int sampling_mode;
    atomic_int sampling_ping; /* result of a re-entrant ping, +1 */
    atomic_int elicitation_calls;
    pthread_mutex_t lock;
    char last_log[1024];
    char last_updated[1024];
    char last_sampling[2048];
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void copy_locked(char *dst, size_t size, const char *src) {
    pthread_mutex_lock(&seen.lock);
    snprintf(dst, size, "%s", src);
    pthread_mutex_unlock(&seen.lock);
}

static int contains_locked(const char *text, const char *needle) {
    pthread_mutex_lock(&seen.lock);
    int found = strstr(text, needle) != NULL;
    pthread_mutex_unlock(&seen.lock);
    return found;
}

static void on_notification(void *userdata, const char *method, const char *params) {
    CHECK(userdata == &seen);
    atomic_fetch_add(&seen.notifications, 1);
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED) == 0) {
        /* Call back into the library from the notification callback. */
        char *json = NULL;
        mcp_result r = mcp_client_list_tools(seen.client, NULL, &json);
        if (r == MCP_OK) {
            atomic_store(&seen.dynamic_listed, strstr(json, "\"dynamic\"") ? 1 : 2);
            mcp_string_free(json);
        } else {
            atomic_store(&seen.dynamic_listed, 3);
        }
        atomic_fetch_add(&seen.tools_changed, 1);
    } else if (strcmp(method, MCP_METHOD_NOTIFICATIONS_MESSAGE) == 0) {
        copy_locked(seen.last_log, sizeof seen.last_log, params);
        atomic_fetch_add(&seen.logs, 1);
    } else if (strcmp(method, MCP_METHOD_NOTIFICATIONS_RESOURCES_UPDATED) == 0) {
        copy_locked(seen.last_updated, sizeof seen.last_updated, params);
        atomic_fetch_add(&seen.resources_updated, 1);
    }
}

static void on_stderr(void *userdata, const char *line) {
    (void)userdata;
    if (strstr(line, "fixture_server: ready")) atomic_fetch_add(&seen.stderr_ready, 1);
}

static mcp_result on_sampling(void *userdata, const char *params, char **result) {
    (void)userdata;
    atomic_fetch_add(&seen.sampling_calls, 1);
    copy_locked(seen.last_sampling, sizeof seen.last_sampling, params);
    switch (atomic_load(&seen.sampling_mode)) {
    case 0:
        /* Re-entrant: a request on the same client from its own callback. */
        atomic_store(&seen.sampling_ping, (int)mcp_client_ping(seen.client, NULL) + 1);
        *result = mcp_string_new("{\"role\":\"assistant\",\"model\":\"c-test\",\"content\":"
                                 "{\"type\":\"text\",\"text\":\"sampled by C\"}}");
        return MCP_OK;
    case 1:
        *result = mcp_string_new("{\"code\":-1,\"message\":\"User rejected sampling\"}");
        return MCP_ERR_RPC;
    case 2:
        return MCP_ERR_CALLBACK;
    default:
        *result = mcp_string_new("{\"role\":\"assistant\"}"); /* not a CreateMessageResult */
        return MCP_OK;
    }
}

static mcp_result on_elicitation(void *userdata, const char *params, char **result) {
    (void)userdata;
    atomic_fetch_add(&seen.elicitation_calls, 1);
    if (!strstr(params, "Your name?")) return MCP_ERR_CALLBACK;
    *result = mcp_string_new("{\"action\":\"accept\",\"content\":{\"name\":\"C tester\"}}");
    return MCP_OK;
}

/* The revision the shared client asks for: 2025-11-25 unless given on the
   command line. */
static const char *revision = "2025-11-25";

/* A client of a new fixture server process, with every handler set, in a
   session at `revision`. At 2025-11-25 every test runs (server requests,
   subscriptions, list-changed notifications); at 2026-07-28 the tests of
   what C code sees the same under both run: the fixture's tools call
   mcp_context_create_message / _elicit / _list_roots, which that revision
   carries as input-required rounds, answered by the same client callbacks. */
static mcp_client *connect_fixture(void) {
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
static char *call(mcp_client *client, const char *tool, const char *args) {
    char *json = NULL;
    mcp_result r = mcp_client_call_tool(client, tool, args, NULL, &json);
    if (r != MCP_OK) {
        fprintf(stderr, "call %s: %s: %s\n", tool, mcp_result_name(r), mcp_last_error_message());
        return NULL;
    }
    return json;
}

#define CHECK_CALL(client, tool, args, needle)                                          \
    do {                                                                                \
        char *check_json_ = call((client), (tool), (args));                             \
        CHECK_CONTAINS(check_json_, (needle));                                          \
        mcp_string_free(check_json_);                                                   \
    } while (0)

static mcp_client *client; /* the shared client of most tests */

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

static void test_logging(void) {
    CHECK_OK(mcp_client_set_logging_level(client, "debug", NULL));
    int before = atomic_load(&seen.logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&seen.logs, before + 2, 5000));
    CHECK(contains_locked(seen.last_log, "\"data\":\"warning message\""));
    CHECK(contains_locked(seen.last_log, "\"logger\":\"fixture\""));
    CHECK(contains_locked(seen.last_log, "\"level\":\"warning\""));
    /* Above the level only. */
    CHECK_OK(mcp_client_set_logging_level(client, "warning", NULL));
    before = atomic_load(&seen.logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&seen.logs, before + 1, 5000));
    sleep_ms(100);
    CHECK(atomic_load(&seen.logs) == before + 1);
    CHECK_RC(mcp_client_set_logging_level(client, "loud", NULL), MCP_ERR_INVALID_ARGUMENT);
}

static void test_sampling(void) {
    atomic_store(&seen.sampling_mode, 0);
    CHECK_CALL(client, "sample", NULL, "sampled by C");
    CHECK(atomic_load(&seen.sampling_calls) >= 1);
    CHECK(contains_locked(seen.last_sampling, "hello from the fixture"));
    CHECK(atomic_load(&seen.sampling_ping) == MCP_OK + 1);
    if (strcmp(revision, "2025-11-25") == 0) {
        /* The callback's JSON-RPC error reaches the server as given. */
        atomic_store(&seen.sampling_mode, 1);
        CHECK_CALL(client, "sample", NULL, "MCP_ERR_RPC -1: ");
        CHECK_CALL(client, "sample", NULL, "User rejected sampling");
        /* A failure without details: internal error. */
        atomic_store(&seen.sampling_mode, 2);
        CHECK_CALL(client, "sample", NULL, "-32603");
        /* A result that does not decode. */
        atomic_store(&seen.sampling_mode, 3);
        CHECK_CALL(client, "sample", NULL, "does not decode");
    } else {
        /* Input-required rounds have no way to send the server an error:
         * the client cannot give the input, so its own call fails, saying
         * why. */
        static const struct {
            int mode;
            const char *why;
        } failures[] = {{1, "User rejected sampling"},
                        {2, "MCP_ERR_CALLBACK"},
                        {3, "does not decode"}};
        for (size_t i = 0; i < sizeof failures / sizeof failures[0]; i++) {
            atomic_store(&seen.sampling_mode, failures[i].mode);
            char *json = NULL;
            CHECK_RC(mcp_client_call_tool(client, "sample", NULL, NULL, &json),
                     MCP_ERR_PROTOCOL);
            CHECK_CONTAINS(mcp_last_error_message(), "sampling/createMessage");
            CHECK_CONTAINS(mcp_last_error_message(), failures[i].why);
            CHECK(json == NULL);
        }
        CHECK_OK(mcp_client_ping(client, NULL));
    }
    atomic_store(&seen.sampling_mode, 0);
}

static void test_elicitation(void) {
    CHECK_CALL(client, "elicit", NULL, "accept");
    CHECK_CALL(client, "elicit", NULL, "C tester");
    CHECK(atomic_load(&seen.elicitation_calls) >= 2);
}

static void test_roots(void) {
    CHECK_CALL(client, "roots", NULL, "file:///initial");
    CHECK_OK(mcp_client_set_roots(client, "[{\"uri\":\"file:///changed\"}]"));
    CHECK_CALL(client, "roots", NULL, "file:///changed");
    CHECK_RC(mcp_client_set_roots(client, "nope"), MCP_ERR_INVALID_JSON);
}

static void test_client_info(void) {
    CHECK_CALL(client, "client_info", NULL, "c-test-client");
    CHECK_CALL(client, "client_info", NULL, "sampling");
    CHECK_CALL(client, "client_info", NULL, "elicitation");
}

static void test_list_changed_reentrant(void) {
    int before = atomic_load(&seen.tools_changed);
    CHECK_CALL(client, "add_tool", NULL, "added");
    CHECK(wait_until(&seen.tools_changed, before + 1, 5000));
    /* The notification callback listed the tools itself and saw the new one. */
    CHECK(atomic_load(&seen.dynamic_listed) == 1);
    CHECK_CALL(client, "dynamic", NULL, "dynamic tool");
    CHECK_CALL(client, "remove_tool", NULL, "removed");
    CHECK(wait_until(&seen.tools_changed, before + 2, 5000));
    CHECK(atomic_load(&seen.dynamic_listed) == 2);
    CHECK_CALL(client, "remove_tool", NULL, "absent");
    char *json = NULL;
    CHECK_RC(mcp_client_call_tool(client, "dynamic", NULL, NULL, &json), MCP_ERR_RPC);
}

static void test_subscriptions(void) {
    CHECK_OK(mcp_client_subscribe_resource(client, "test://counter", NULL));
    int before = atomic_load(&seen.resources_updated);
    CHECK_CALL(client, "touch", NULL, "notified 1");
    CHECK(wait_until(&seen.resources_updated, before + 1, 5000));
    CHECK(contains_locked(seen.last_updated, "\"uri\":\"test://counter\""));
    char *json = NULL;
    CHECK_OK(mcp_client_read_resource(client, "test://counter", NULL, &json));
    CHECK_CONTAINS(json, "\"text\":\"1\"");
    mcp_string_free(json);
    CHECK_OK(mcp_client_unsubscribe_resource(client, "test://counter", NULL));
    CHECK_CALL(client, "touch", NULL, "notified 0");
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

static void test_close(void) {
    mcp_client *c = connect_fixture();
    CHECK(c != NULL);
    if (!c) return;
    CHECK_OK(mcp_client_ping(c, NULL));
    CHECK_OK(mcp_client_close(c));
    char *json = (char *)1;
    CHECK_RC(mcp_client_ping(c, NULL), MCP_ERR_CLOSED);
    CHECK_RC(mcp_client_list_tools(c, NULL, &json), MCP_ERR_CLOSED);
    CHECK(json == NULL);
    CHECK_OK(mcp_client_close(c));
    mcp_client_free(c);
}

static void *long_call(void *arg) {
    mcp_client *c = *(mcp_client **)arg;
    char *json = NULL;
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 30000;
    mcp_result r = mcp_client_call_tool(c, "sleep", "{\"ms\":20000}", &options, &json);
    mcp_string_free(json);
    return (void *)(intptr_t)r;
}

static void test_server_killed_mid_call(void) {
    mcp_client *c = connect_fixture();
    CHECK(c != NULL);
    if (!c) return;
    char *json = call(c, "pid", NULL);
    CHECK(json != NULL);
    long pid = 0;
    if (json) {
        const char *at = strstr(json, "\"text\":\"");
        pid = at ? strtol(at + 8, NULL, 10) : 0;
        mcp_string_free(json);
    }
    CHECK(pid > 1);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, long_call, &c) == 0);
    sleep_ms(300);
    double start = now_ms();
    if (pid > 1) kill((pid_t)pid, SIGKILL);
    void *result = NULL;
    pthread_join(thread, &result);
    CHECK((mcp_result)(intptr_t)result == MCP_ERR_CLOSED);
    CHECK(now_ms() - start < 5000);
    CHECK_RC(mcp_client_ping(c, NULL), MCP_ERR_CLOSED);
    CHECK_CONTAINS(mcp_last_error_message(), "closed");
    mcp_client_free(c);
}

static void test_server_stops_itself(void) {
    mcp_client *c = connect_fixture();
    CHECK(c != NULL);
    if (!c) return;
    char *json = NULL;
    mcp_result r = mcp_client_call_tool(c, "stop", NULL, NULL, &json);
    /* The session may end before the answer is sent. */
    CHECK(r == MCP_OK || r == MCP_ERR_CLOSED);
    mcp_string_free(json);
    double deadline = now_ms() + 5000;
    while (mcp_client_ping(c, NULL) == MCP_OK && now_ms() < deadline) sleep_ms(20);
    CHECK_RC(mcp_client_ping(c, NULL), MCP_ERR_CLOSED);
    mcp_client_free(c);
}

/* A server freed from inside its own tool callback: the call still gets its
 * answer, then the server process ends. */
static void test_server_freed_inside_callback(void) {
    mcp_client *c = connect_fixture();
    CHECK(c != NULL);
    if (!c) return;
    CHECK_CALL(c, "free_server", NULL, "freed, and still answered");
    double deadline = now_ms() + 5000;
    while (mcp_client_ping(c, NULL) == MCP_OK && now_ms() < deadline) sleep_ms(20);
    CHECK_RC(mcp_client_ping(c, NULL), MCP_ERR_CLOSED);
    mcp_client_free(c);
}

/* A client freed from inside its own notification callback. */
static struct {
    mcp_client *client;
    atomic_int armed;
    atomic_int freed;
    atomic_int cleaned; /* 1 + freed when the on_free cleanup ran */
} self_free;

static void free_self(void *userdata, const char *method, const char *params) {
    (void)userdata, (void)params;
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED) != 0) return;
    /* Wait (bounded) until the main thread's call has returned. */
    if (!wait_until(&self_free.armed, 1, 5000)) return;
    mcp_client_free(self_free.client);
    sleep_ms(100); /* the cleanup must still wait for this callback */
    atomic_store(&self_free.freed, 1);
}

static void cleanup_self_freed(void *userdata) {
    CHECK(userdata == &self_free);
    atomic_store(&self_free.cleaned, 1 + atomic_load(&self_free.freed));
}

static void test_free_inside_callback(void) {
    mcp_client *c = NULL;
    CHECK_OK(mcp_client_new("self-freeing", "1", &c));
    /* A 2025-11-25 session, where list-changed notifications come unasked. */
    CHECK_OK(mcp_client_set_protocol(c, "2025-11-25"));
    CHECK_OK(mcp_client_on_notification(c, free_self, NULL));
    CHECK_OK(mcp_client_on_free(c, cleanup_self_freed, &self_free));
    CHECK_OK(mcp_client_connect_stdio(c, fixture_path, NULL, sanitizer_env()));
    self_free.client = c;
    CHECK_CALL(c, "add_tool", NULL, "added");
    atomic_store(&self_free.armed, 1);
    CHECK(wait_until(&self_free.freed, 1, 10000));
    /* The cleanup ran, once the freeing callback had returned. */
    CHECK(wait_until(&self_free.cleaned, 1, 10000));
    CHECK(atomic_load(&self_free.cleaned) == 2);
    /* c is gone; let its background shutdown finish. */
    sleep_ms(300);
}

static void *lifecycle_main(void *arg) {
    int *failures = arg;
    for (int i = 0; i < 2; i++) {
        mcp_client *c = NULL;
        if (mcp_client_new("parallel", "1", &c) != MCP_OK ||
            mcp_client_connect_stdio(c, fixture_path, NULL, sanitizer_env()) != MCP_OK) {
            (*failures)++;
            mcp_client_free(c);
            continue;
        }
        char *json = NULL;
        if (mcp_client_call_tool(c, "add", "{\"a\":20,\"b\":22}", NULL, &json) != MCP_OK ||
            !strstr(json, "\"text\":\"42\""))
            (*failures)++;
        mcp_string_free(json);
        mcp_client_free(c); /* without closing first */
    }
    return NULL;
}

static void test_parallel_lifecycles(void) {
    enum { N = 3 };
    pthread_t threads[N];
    int failures[N] = {0};
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&threads[i], NULL, lifecycle_main, &failures[i]) == 0);
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(failures[i] == 0);
    }
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
