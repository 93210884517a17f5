/*
 * The fixture server served in-process over Streamable HTTP, with clients in
 * the same process: calls, server-to-client requests and notifications over
 * HTTP, callbacks running in parallel, cancellation reaching the server,
 * headers, the message limit, concurrent clients, stopping from another
 * thread (sessions end), freeing the server under a connected client, what
 * the HTTP options' limits do on the wire (header size, sessions, idle
 * timeout, cancel on disconnect), and two servers sharing a session
 * through a Redis store (MCP_TEST_REDIS_URL, set by run-tests.sh when
 * redis-server is installed; skipped, saying so, otherwise).
 * One program of three files: this one (main, the served fixture server, the
 * shared client and the tests of its calls), test_http_lifecycle.c (the
 * server stopped from another thread, freed under a client, freed inside its
 * own callback) and test_http_options.c (the HTTP options seen on the wire
 * through raw requests: hosts, origins, limits, a shared store);
 * test_http.h declares what they share.
 * Usage: test_http [REVISION]  (default 2025-11-25, every test; another
 * revision runs the calls and the server's requests to the client)
 */
#include "test_http.h"

#include <pthread.h>

mcp_server *server;
char url[128];

static atomic_int tools_changed;
static atomic_int logs;

static void on_notification(void *userdata, const char *method, const char *params) {
    (void)userdata, (void)params;
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED) == 0)
        atomic_fetch_add(&tools_changed, 1);
    if (strcmp(method, MCP_METHOD_NOTIFICATIONS_MESSAGE) == 0) atomic_fetch_add(&logs, 1);
}

static mcp_result on_sampling(void *userdata, const char *params, char **result) {
    (void)userdata, (void)params;
    *result = mcp_string_new("{\"role\":\"assistant\",\"model\":\"m\",\"content\":"
                             "{\"type\":\"text\",\"text\":\"sampled over HTTP\"}}");
    return MCP_OK;
}

static mcp_result on_elicitation(void *userdata, const char *params, char **result) {
    (void)userdata, (void)params;
    *result = mcp_string_new("{\"action\":\"decline\"}");
    return MCP_OK;
}

/* The revision the clients ask for: 2025-11-25 unless given on the command
 * line. At 2025-11-25 every test runs; at 2026-07-28 the calls and the
 * server's requests to the client (input-required rounds then), with the
 * fixture and the callbacks unchanged. */
static const char *revision = "2025-11-25";

mcp_client *connect_http(void) {
    mcp_client *client = NULL;
    if (mcp_client_new("http-test", "1", &client) != MCP_OK) return NULL;
    CHECK_OK(mcp_client_set_protocol(client, revision));
    CHECK_OK(mcp_client_set_timeout(client, 20000));
    CHECK_OK(mcp_client_on_notification(client, on_notification, NULL));
    CHECK_OK(mcp_client_on_sampling(client, on_sampling, NULL));
    CHECK_OK(mcp_client_on_elicitation(client, on_elicitation, NULL));
    CHECK_OK(mcp_client_set_roots(client, "[{\"uri\":\"file:///over-http\"}]"));
    const char *headers[] = {"X-Test: yes", "Authorization: Bearer not-checked", NULL};
    mcp_result r = mcp_client_connect_http(client, url, headers);
    CHECK_OK(r);
    if (r != MCP_OK) {
        mcp_client_free(client);
        return NULL;
    }
    return client;
}

static char *call(mcp_client *client, const char *tool, const char *args,
                  const mcp_call_options *options) {
    char *json = NULL;
    mcp_result r = mcp_client_call_tool(client, tool, args, options, &json);
    if (r != MCP_OK)
        fprintf(stderr, "call %s: %s: %s\n", tool, mcp_result_name(r), mcp_last_error_message());
    return r == MCP_OK ? json : NULL;
}

#define CHECK_CALL(client, tool, args, needle)                                          \
    do {                                                                                \
        char *check_json_ = call((client), (tool), (args), NULL);                       \
        CHECK_CONTAINS(check_json_, (needle));                                          \
        mcp_string_free(check_json_);                                                   \
    } while (0)

mcp_client *client;

static void test_every_kind_over_http(void) {
    char *json = NULL;
    CHECK_OK(mcp_client_server_info(client, &json));
    CHECK_CONTAINS(json, "c-fixture");
    char expected[64];
    snprintf(expected, sizeof expected, "\"protocolVersion\":\"%s\"", revision);
    CHECK_CONTAINS(json, expected);
    mcp_string_free(json);
    CHECK_OK(mcp_client_ping(client, NULL));
    CHECK_OK(mcp_client_list_tools(client, NULL, &json));
    CHECK_CONTAINS(json, "\"name\":\"echo\"");
    mcp_string_free(json);
    CHECK_CALL(client, "echo", "{\"message\":\"over http\"}", "over http");
    CHECK_CALL(client, "fail", NULL, "deliberate failure");
    CHECK_OK(mcp_client_read_resource(client, "test://items/7", NULL, &json));
    CHECK_CONTAINS(json, "item 7");
    mcp_string_free(json);
    CHECK_RC(mcp_client_read_resource(client, "test://gone", NULL, &json), MCP_ERR_RPC);
    CHECK_CONTAINS(mcp_last_error_rpc_data(), "test://gone");
    CHECK_OK(mcp_client_get_prompt(client, "greet", "{\"name\":\"HTTP\"}", NULL, &json));
    CHECK_CONTAINS(json, "Hello, HTTP");
    mcp_string_free(json);
}

/* A request over the 4 MiB message limit fails at once, saying so, and the
 * session goes on. */
static void test_message_limit_over_http(void) {
    char *args = echo_args_of_size((4u << 20) + 100);
    CHECK(args != NULL);
    if (!args) return;
    char *json = NULL;
    double start = now_ms();
    /* The server refuses the body (over stdio the client itself refuses it
     * before sending: MCP_ERR_RPC -32600, see test_stdio.c). */
    CHECK_RC(mcp_client_call_tool(client, "echo", args, NULL, &json), MCP_ERR_TRANSPORT);
    CHECK_CONTAINS(mcp_last_error_message(), "413");
    CHECK_CONTAINS(mcp_last_error_message(), "the limit is 4194304 bytes");
    CHECK(now_ms() - start < 5000);
    CHECK(json == NULL);
    free(args);
    CHECK_OK(mcp_client_ping(client, NULL));
    CHECK_CALL(client, "add", "{\"a\":1,\"b\":2}", "\"3\"");
}

static atomic_int progress_calls;

static void on_progress(void *userdata, double progress, double total, const char *message) {
    (void)userdata, (void)progress, (void)total, (void)message;
    atomic_fetch_add(&progress_calls, 1);
}

static void test_server_requests_and_notifications_over_http(void) {
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.on_progress = on_progress;
    char *json = call(client, "progress", NULL, &options);
    CHECK_CONTAINS(json, "done");
    mcp_string_free(json);
    CHECK(atomic_load(&progress_calls) == 4);
    CHECK_CALL(client, "sample", NULL, "sampled over HTTP");
    CHECK_CALL(client, "elicit", NULL, "decline");
    CHECK_CALL(client, "roots", NULL, "file:///over-http");
    /* Log messages and list-changed notifications come unasked at
     * 2025-11-25 only (later revisions send them to subscribers). */
    if (strcmp(revision, "2025-11-25") != 0) return;
    int before = atomic_load(&logs);
    CHECK_CALL(client, "log", NULL, "logged");
    CHECK(wait_until(&logs, before + 2, 5000));
    before = atomic_load(&tools_changed);
    CHECK_CALL(client, "add_tool", NULL, "added");
    CHECK(wait_until(&tools_changed, before + 1, 5000));
    CHECK_CALL(client, "dynamic", NULL, "dynamic tool");
    CHECK_CALL(client, "remove_tool", NULL, "removed");
}

static mcp_result from_main(void *ud, mcp_context *cx, const char *args, char **out) {
    (void)ud, (void)cx, (void)args;
    *out = mcp_string_new("{\"content\":[{\"type\":\"text\",\"text\":\"registered from main\"}]}");
    return MCP_OK;
}

static mcp_result read_late(void *ud, mcp_context *cx, const char *params, char **out) {
    (void)ud, (void)cx;
    char *uri = json_string_literal(params, "uri");
    size_t size = strlen(uri ? uri : "\"\"") + 64;
    *out = malloc(size);
    if (*out)
        snprintf(*out, size, "{\"contents\":[{\"uri\":%s,\"text\":\"late\"}]}", uri ? uri : "\"\"");
    free(uri);
    return *out ? MCP_OK : MCP_ERR_CALLBACK;
}

/* Registered on the server from this thread (no callback, no runtime)
 * while it serves: the client hears list_changed and sees the new items. */
static void test_registering_while_serving_from_another_thread(void) {
    int before = atomic_load(&tools_changed);
    CHECK_OK(mcp_server_add_tool(server, "from_main", "Registered while serving",
                                 "{\"type\":\"object\"}", from_main, NULL));
    CHECK(wait_until(&tools_changed, before + 1, 5000));
    char *json = NULL;
    CHECK_OK(mcp_client_list_tools(client, NULL, &json));
    CHECK_CONTAINS(json, "\"name\":\"from_main\"");
    mcp_string_free(json);
    CHECK_CALL(client, "from_main", NULL, "registered from main");
    /* Templates too (the resources capability was offered when served). */
    CHECK_OK(mcp_server_add_resource_template(server, "late://{name}", "late", NULL, NULL,
                                              read_late, NULL));
    CHECK_OK(mcp_client_read_resource(client, "late://x", NULL, &json));
    CHECK_CONTAINS(json, "late://x");
    mcp_string_free(json);
    bool removed = false;
    CHECK_OK(mcp_server_remove_resource_template(server, "late://{name}", &removed));
    CHECK(removed);
    CHECK_RC(mcp_client_read_resource(client, "late://x", NULL, &json), MCP_ERR_RPC);
    before = atomic_load(&tools_changed);
    CHECK_OK(mcp_server_remove_tool(server, "from_main", &removed));
    CHECK(removed);
    CHECK(wait_until(&tools_changed, before + 1, 5000));
    CHECK_RC(mcp_client_call_tool(client, "from_main", NULL, NULL, &json), MCP_ERR_RPC);
}

static void test_cancellation_reaches_the_server(void) {
    int before = atomic_load(&fixture_cancellations);
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 150;
    char *json = NULL;
    CHECK_RC(mcp_client_call_tool(client, "sleep", "{\"ms\":5000}", &options, &json),
             MCP_ERR_TIMEOUT);
    /* The client sent notifications/cancelled; the callback saw it. */
    CHECK(wait_until(&fixture_cancellations, before + 1, 5000));
    CHECK_OK(mcp_client_ping(client, NULL));
}

static void *cancel_after_a_moment(void *token) {
    sleep_ms(200);
    mcp_cancel_token_cancel(token);
    return NULL;
}

/* A call cancelled from another thread with a token fails at once, and the
 * server's callback sees the cancellation. */
static void test_cancel_from_another_thread(void) {
    mcp_cancel_token *token = NULL;
    CHECK_RC(mcp_cancel_token_new(NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_cancel_token_new(&token));
    CHECK(!mcp_cancel_token_is_cancelled(token));
    int before = atomic_load(&fixture_cancellations);
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.cancel = token;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, cancel_after_a_moment, token) == 0);
    double start = now_ms();
    char *json = NULL;
    CHECK_RC(mcp_client_call_tool(client, "sleep", "{\"ms\":10000}", &options, &json),
             MCP_ERR_CANCELLED);
    CHECK(json == NULL);
    CHECK(now_ms() - start < 5000);
    pthread_join(thread, NULL);
    CHECK(mcp_cancel_token_is_cancelled(token));
    CHECK(wait_until(&fixture_cancellations, before + 1, 5000));
    /* A cancelled token fails a new call at once; the client goes on. */
    CHECK_RC(mcp_client_ping(client, &options), MCP_ERR_CANCELLED);
    CHECK_OK(mcp_client_ping(client, NULL));
    mcp_cancel_token_free(token);
    mcp_cancel_token_free(NULL);
}

static void *sleeper(void *arg) {
    char *json = call(client, "sleep", "{\"ms\":300}", NULL);
    *(int *)arg = json && strstr(json, "slept");
    mcp_string_free(json);
    return NULL;
}

static void test_callbacks_run_in_parallel(void) {
    enum { N = 4 };
    pthread_t threads[N];
    int ok[N] = {0};
    atomic_store(&fixture_max_running, 0);
    for (int i = 0; i < N; i++) CHECK(pthread_create(&threads[i], NULL, sleeper, &ok[i]) == 0);
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(ok[i]);
    }
    CHECK(atomic_load(&fixture_max_running) >= 2);
}

static void *client_thread(void *arg) {
    int *failures = arg;
    mcp_client *c = connect_http();
    if (!c) {
        (*failures)++;
        return NULL;
    }
    for (int i = 0; i < 10; i++) {
        char args[64], expected[64];
        snprintf(args, sizeof args, "{\"a\":%d,\"b\":1}", i);
        snprintf(expected, sizeof expected, "\"text\":\"%d\"", i + 1);
        char *json = call(c, "add", args, NULL);
        if (!json || !strstr(json, expected)) (*failures)++;
        mcp_string_free(json);
    }
    mcp_client_free(c);
    return NULL;
}

static void test_concurrent_clients(void) {
    enum { N = 4 };
    pthread_t threads[N];
    int failures[N] = {0};
    for (int i = 0; i < N; i++)
        CHECK(pthread_create(&threads[i], NULL, client_thread, &failures[i]) == 0);
    for (int i = 0; i < N; i++) {
        pthread_join(threads[i], NULL);
        CHECK(failures[i] == 0);
    }
}

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: %s [REVISION]\n", argv[0]);
        return 2;
    }
    if (argc == 2) revision = argv[1];
    server = fixture_server_new();
    if (!server) return 1;
    uint16_t port = 0;
    if (mcp_server_serve_http(server, "127.0.0.1:0", &port) != MCP_OK || port == 0) {
        printf("FAIL serve_http: %s\n", mcp_last_error_message());
        mcp_server_free(server);
        return 1;
    }
    snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);
    client = connect_http();
    if (!client) {
        printf("FAIL connect: %s\n", mcp_last_error_message());
        mcp_server_free(server);
        return 1;
    }
    RUN(test_every_kind_over_http);
    RUN(test_server_requests_and_notifications_over_http);
    if (strcmp(revision, "2025-11-25") != 0) {
        mcp_client_free(client);
        mcp_server_free(server);
        return finish();
    }
    RUN(test_registering_while_serving_from_another_thread);
    RUN(test_message_limit_over_http);
    RUN(test_cancellation_reaches_the_server);
    RUN(test_cancel_from_another_thread);
    RUN(test_callbacks_run_in_parallel);
    RUN(test_concurrent_clients);
    RUN(test_stop_from_another_thread);
    RUN(test_server_freed_under_a_client);
    RUN(test_server_freed_inside_its_callback);
    RUN(test_http_options);
    RUN(test_http_option_limits);
    RUN(test_store_shared_by_two_servers);
    return finish();
}
