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
 * Usage: test_http [REVISION]  (default 2025-11-25, every test; another
 * revision runs the calls and the server's requests to the client)
 */
#include "harness.h"

#include "fixture.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

static mcp_server *server;
static char url[128];

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

static mcp_client *connect_http(void) {
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

static mcp_client *client;

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

static void *stopper(void *arg) {
    *(mcp_result *)arg = mcp_server_stop(server);
    return NULL;
}

static void *stop_after_a_moment(void *server_to_stop) {
    sleep_ms(100);
    mcp_server_stop(server_to_stop);
    return NULL;
}

static void test_stop_from_another_thread(void) {
    /* A client connected before the stop, its session open. */
    mcp_client *connected = connect_http();
    CHECK(connected != NULL);
    if (connected) CHECK_OK(mcp_client_ping(connected, NULL));
    mcp_result stopped = MCP_ERR_INTERNAL;
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, stopper, &stopped) == 0);
    pthread_join(thread, NULL);
    CHECK(stopped == MCP_OK);
    /* The stop is complete: listeners closed, sessions ended. */
    CHECK_OK(mcp_server_wait(server, 5000));
    /* The server is not freed, yet the connected client's next request
     * fails at once: its session ended at the stop. */
    if (connected) {
        mcp_call_options options = MCP_CALL_OPTIONS_INIT;
        options.timeout_ms = 3000;
        double start = now_ms();
        mcp_result r = mcp_client_ping(connected, &options);
        CHECK(r == MCP_ERR_TRANSPORT || r == MCP_ERR_CLOSED || r == MCP_ERR_RPC);
        CHECK(now_ms() - start < 2500);
        mcp_client_free(connected);
    }
    /* No new connections. */
    mcp_client *late = NULL;
    CHECK_OK(mcp_client_new("late", "1", &late));
    CHECK_OK(mcp_client_set_timeout(late, 3000));
    double deadline = now_ms() + 3000;
    mcp_result r = MCP_OK;
    while (now_ms() < deadline) {
        r = mcp_client_connect_http(late, url, NULL);
        if (r != MCP_OK) break;
        /* A connection accepted just before the stop: try again. */
        mcp_client_free(late);
        late = NULL;
        CHECK_OK(mcp_client_new("late", "1", &late));
        sleep_ms(50);
    }
    CHECK(r != MCP_OK);
    mcp_client_free(late);
}

static void test_server_freed_under_a_client(void) {
    /* The stopped server and its client go; a server never stopped is
     * freed under a connected client. */
    mcp_server_free(server);
    mcp_client_free(client);
    client = NULL;
    server = fixture_server_new();
    CHECK(server != NULL);
    if (!server) return;
    uint16_t port = 0;
    CHECK_OK(mcp_server_serve_http(server, "127.0.0.1:0", &port));
    snprintf(url, sizeof url, "http://127.0.0.1:%u/mcp", (unsigned)port);
    mcp_client *c = connect_http();
    CHECK(c != NULL);
    if (c) CHECK_OK(mcp_client_ping(c, NULL));
    mcp_server_free(server);
    server = NULL;
    if (!c) return;
    /* The session is gone with the server's runtime: calls fail, quickly. */
    mcp_call_options options = MCP_CALL_OPTIONS_INIT;
    options.timeout_ms = 3000;
    double start = now_ms();
    mcp_result r = mcp_client_ping(c, &options);
    CHECK(r == MCP_ERR_TRANSPORT || r == MCP_ERR_CLOSED);
    CHECK(now_ms() - start < 2500);
    mcp_client_free(c);
}

/* A server freed from inside one of its own tool callbacks. */
static atomic_int self_freed;

static atomic_int cleanup_saw_freed; /* 1 + self_freed when the cleanup ran */

static mcp_result free_own_server(void *userdata, mcp_context *cx, const char *args,
                                  char **result) {
    (void)cx, (void)args;
    mcp_server_free(userdata);
    sleep_ms(100); /* the cleanup must still wait for this callback */
    *result = mcp_string_new("{\"content\":[{\"type\":\"text\",\"text\":\"freed\"}]}");
    atomic_store(&self_freed, 1);
    return MCP_OK;
}

static void cleanup_after_free(void *userdata) {
    (void)userdata;
    atomic_store(&cleanup_saw_freed, 1 + atomic_load(&self_freed));
}

static atomic_int waiting_for_doomed;

static void *wait_for_doomed(void *doomed) {
    static mcp_result waited;
    atomic_store(&waiting_for_doomed, 1);
    waited = mcp_server_wait(doomed, 10000);
    return &waited;
}

static void test_server_freed_inside_its_callback(void) {
    mcp_server *doomed = NULL;
    CHECK_OK(mcp_server_new("doomed", "1", &doomed));
    CHECK_OK(mcp_server_add_tool(doomed, "free_server", NULL, "{\"type\":\"object\"}",
                                 free_own_server, doomed));
    CHECK_OK(mcp_server_on_free(doomed, cleanup_after_free, NULL));
    uint16_t port = 0;
    CHECK_OK(mcp_server_serve_http(doomed, "127.0.0.1:0", &port));
    char doomed_url[128];
    snprintf(doomed_url, sizeof doomed_url, "http://127.0.0.1:%u/mcp", (unsigned)port);
    mcp_client *c = NULL;
    CHECK_OK(mcp_client_new("c", "1", &c));
    CHECK_OK(mcp_client_set_timeout(c, 3000));
    CHECK_OK(mcp_client_connect_http(c, doomed_url, NULL));
    /* A wait on another thread returns once the server is gone. */
    pthread_t waiter;
    CHECK(pthread_create(&waiter, NULL, wait_for_doomed, doomed) == 0);
    /* The wait must have begun before the free (a call on a freed server is
     * the caller's error): give it that moment. */
    CHECK(wait_until(&waiting_for_doomed, 1, 5000));
    sleep_ms(300);
    char *json = NULL;
    /* The callback's answer still reaches the client. */
    CHECK_OK(mcp_client_call_tool(c, "free_server", NULL, NULL, &json));
    CHECK_CONTAINS(json, "freed");
    mcp_string_free(json);
    CHECK(wait_until(&self_freed, 1, 5000));
    /* Then the server goes away. */
    double deadline = now_ms() + 5000;
    mcp_result r = MCP_OK;
    while ((r = mcp_client_ping(c, NULL)) == MCP_OK && now_ms() < deadline) sleep_ms(20);
    CHECK(r == MCP_ERR_TRANSPORT || r == MCP_ERR_CLOSED);
    mcp_client_free(c);
    void *waited = NULL;
    pthread_join(waiter, &waited);
    CHECK(waited && *(mcp_result *)waited == MCP_OK);
    /* The cleanup ran once the freeing callback had returned. */
    CHECK(wait_until(&cleanup_saw_freed, 1, 10000));
    CHECK(atomic_load(&cleanup_saw_freed) == 2);
    sleep_ms(200); /* let the freed server's background shutdown finish */
}

/* POSTs `body` to http://127.0.0.1:port/mcp with the given Host header (and
 * Origin, unless NULL); returns the status (0 on failure) and copies the
 * response, lower-cased, into `response`. */
static int raw_post_with(uint16_t port, const char *host, const char *origin,
                         const char *extra_headers, const char *body, char *response,
                         size_t size) {
    if (response) response[0] = '\0';
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return 0;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval limit = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        close(fd);
        return 0;
    }
    char origin_line[256] = "";
    if (origin) snprintf(origin_line, sizeof origin_line, "Origin: %s\r\n", origin);
    size_t length = strlen(body);
    static _Thread_local char head[16384];
    int n = snprintf(head, sizeof head,
                     "POST /mcp HTTP/1.1\r\nHost: %s\r\n%s%sContent-Type: application/json\r\n"
                     "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     host, origin_line, extra_headers ? extra_headers : "", length);
    int ok = n > 0 && (size_t)n < sizeof head && write(fd, head, (size_t)n) == n &&
             write(fd, body, length) == (ssize_t)length;
    if (ok && !response) {
        /* Gone before the answer: once a fixture callback runs, hang up. */
        ok = wait_until(&fixture_running, 1, 5000);
        close(fd);
        return ok;
    }
    size_t got = 0;
    while (ok && got + 1 < size) {
        ssize_t r = read(fd, response + got, size - 1 - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    response[got] = '\0';
    close(fd);
    for (size_t i = 0; i < got; i++) response[i] = (char)tolower((unsigned char)response[i]);
    int status = 0;
    return sscanf(response, "http/1.1 %d", &status) == 1 ? status : 0;
}

/* POSTs `body` and hangs up once a fixture callback is running (the one
 * answering it: no other runs meanwhile), before the answer; 1 if it got
 * that far. */
static int raw_post_and_hang_up(uint16_t port, const char *host, const char *extra_headers,
                                const char *body) {
    return raw_post_with(port, host, NULL, extra_headers, body, NULL, 0);
}

static int raw_post(uint16_t port, const char *host, const char *origin, const char *body,
                    char *response, size_t size) {
    return raw_post_with(port, host, origin, NULL, body, response, size);
}

#define INIT                                                                            \
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"                \
    "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"      \
    "\"raw\",\"version\":\"1\"}}}"

static void test_http_options(void) {
    mcp_http_options *options = NULL;
    CHECK_RC(mcp_http_options_new(NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_OK(mcp_http_options_new(&options));
    CHECK_RC(mcp_http_options_set_stateless(NULL, true), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_http_options_set_address(options, "not an address"), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_http_options_set_address(options, NULL), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_http_options_allow_host(options, ""), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_http_options_set_max_body_size(options, 0), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_http_options_set_max_sessions(options, 0), MCP_ERR_INVALID_ARGUMENT);
    CHECK_RC(mcp_http_options_set_idle_timeout_ms(options, 0), MCP_ERR_INVALID_ARGUMENT);
    CHECK_OK(mcp_http_options_set_address(options, "127.0.0.1:0"));
    CHECK_OK(mcp_http_options_allow_host(options, "mcp.example.com"));
    CHECK_OK(mcp_http_options_allow_host(options, "MCP.example.net:8443"));
    CHECK_OK(mcp_http_options_set_stateless(options, true));
    CHECK_OK(mcp_http_options_set_json_response(options, true));
    CHECK_OK(mcp_http_options_set_max_body_size(options, 2048));
    CHECK_OK(mcp_http_options_set_max_header_size(options, 16384));
    CHECK_OK(mcp_http_options_set_max_sessions(options, 5));
    CHECK_OK(mcp_http_options_set_idle_timeout_ms(options, 60000));
    CHECK_OK(mcp_http_options_set_cancel_on_disconnect(options, true));

    mcp_server *s = fixture_server_new();
    CHECK(s != NULL);
    if (!s) {
        mcp_http_options_free(options);
        return;
    }
    uint16_t port = 0;
    CHECK_OK(mcp_server_start_http(s, options, &port));
    mcp_http_options_free(options); /* the server keeps a copy */
    CHECK(port != 0);

    static char response[65536];
    /* An allowed host: a JSON answer, and no session (stateless). */
    CHECK(raw_post(port, "mcp.example.com", NULL, INIT, response, sizeof response) == 200);
    CHECK_CONTAINS(response, "content-type: application/json");
    CHECK_CONTAINS(response, "\"protocolversion\":\"2025-11-25\"");
    CHECK(strstr(response, "mcp-session-id") == NULL);
    CHECK(raw_post(port, "mcp.example.net:8443", "https://mcp.example.net:8443", INIT, response,
                   sizeof response) == 200);
    /* Hosts and origins not in the list, loopback included, are refused. */
    char loopback[64];
    snprintf(loopback, sizeof loopback, "127.0.0.1:%u", (unsigned)port);
    CHECK(raw_post(port, loopback, NULL, INIT, response, sizeof response) == 403);
    CHECK(raw_post(port, "evil.example.com", NULL, INIT, response, sizeof response) == 403);
    CHECK(raw_post(port, "mcp.example.com", "http://evil.example.com", INIT, response,
                   sizeof response) == 403);
    /* The body limit. */
    char big[4096];
    snprintf(big, sizeof big, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"%3000d\"}}", 1);
    CHECK(raw_post(port, "mcp.example.com", NULL, big, response, sizeof response) == 413);

    /* Waiting: not stopped yet, then stopped from another thread. */
    CHECK_RC(mcp_server_wait(s, 50), MCP_ERR_TIMEOUT);
    CHECK_RC(mcp_server_wait(NULL, 0), MCP_ERR_NULL_ARGUMENT);
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, stop_after_a_moment, s) == 0);
    CHECK_OK(mcp_server_wait(s, -1));
    pthread_join(thread, NULL);
    CHECK(raw_post(port, "mcp.example.com", NULL, INIT, response, sizeof response) == 0);
    mcp_server_free(s);

    /* NULL options: the defaults (loopback, sessions, SSE). */
    s = fixture_server_new();
    CHECK(s != NULL);
    if (!s) return;
    CHECK_OK(mcp_server_start_http(s, NULL, &port));
    snprintf(loopback, sizeof loopback, "127.0.0.1:%u", (unsigned)port);
    CHECK(raw_post(port, loopback, NULL, INIT, response, sizeof response) == 200);
    CHECK_CONTAINS(response, "mcp-session-id");
    CHECK(raw_post(port, "mcp.example.com", NULL, INIT, response, sizeof response) == 403);
    mcp_server_free(s);

    /* Any host (behind a proxy that checks); false goes back to loopback. */
    CHECK_OK(mcp_http_options_new(&options));
    CHECK_OK(mcp_http_options_allow_host(options, "mcp.example.com"));
    CHECK_OK(mcp_http_options_allow_any_host(options, false));
    s = fixture_server_new();
    CHECK(s != NULL);
    if (!s) {
        mcp_http_options_free(options);
        return;
    }
    CHECK_OK(mcp_server_start_http(s, options, &port));
    CHECK(raw_post(port, "mcp.example.com", NULL, INIT, response, sizeof response) == 403);
    CHECK_OK(mcp_http_options_allow_any_host(options, true));
    uint16_t any_port = 0;
    CHECK_OK(mcp_server_start_http(s, options, &any_port));
    CHECK(raw_post(any_port, "anything.example.org", "https://elsewhere.example", INIT, response,
                   sizeof response) == 200);
    mcp_http_options_free(options);
    mcp_http_options_free(NULL);
    mcp_server_free(s);
}

/* Opens a session on the server at `port` (initialize, then initialized);
 * writes the headers naming it (session and revision) into `headers`. */
static int raw_session(uint16_t port, const char *host, char *headers, size_t size) {
    static char response[65536];
    if (raw_post(port, host, NULL, INIT, response, sizeof response) != 200) return 0;
    char session[64] = "";
    const char *found = strstr(response, "mcp-session-id: ");
    if (!found || sscanf(found + strlen("mcp-session-id: "), "%63[0-9a-f]", session) != 1)
        return 0;
    snprintf(headers, size, "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n",
             session);
    return raw_post_with(port, host, NULL, headers,
                         "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                         response, sizeof response) == 202;
}

#define TOOLS_LIST "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"
#define SLEEP_CALL(ms)                                                                  \
    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":"        \
    "\"sleep\",\"arguments\":{\"ms\":" #ms "}}}"

/* The fixture server over HTTP with `options` (freed here), its port in
 * `*port` and its Host header in `host`; NULL (nothing left running) if it
 * could not start. */
static mcp_server *start_fixture(mcp_http_options *options, char *host, size_t host_size,
                                 uint16_t *port) {
    mcp_server *s = fixture_server_new();
    *port = 0;
    CHECK(s != NULL);
    if (s) CHECK_OK(mcp_server_start_http(s, options, port));
    mcp_http_options_free(options);
    if (!s || !*port) {
        mcp_server_free(s);
        return NULL;
    }
    snprintf(host, host_size, "127.0.0.1:%u", (unsigned)*port);
    return s;
}

/* What the limits among the HTTP options do, seen on the wire. */
static void test_http_option_limits(void) {
    static char response[65536];
    char host[64], headers[256];
    mcp_http_options *options = NULL;
    CHECK_OK(mcp_http_options_new(&options));
    CHECK_OK(mcp_http_options_set_max_header_size(options, 2048));
    CHECK_OK(mcp_http_options_set_max_sessions(options, 2));
    uint16_t port = 0;
    mcp_server *s = start_fixture(options, host, sizeof host, &port);
    if (!s) return;

    /* max_header_size: a 1 KiB header passes, a 3 KiB one gets 431. */
    static char pad[4096];
    snprintf(pad, sizeof pad, "X-Pad: %01000d\r\n", 0);
    CHECK(raw_post_with(port, host, NULL, pad, INIT, response, sizeof response) == 200);
    snprintf(pad, sizeof pad, "X-Pad: %03000d\r\n", 0);
    CHECK(raw_post_with(port, host, NULL, pad, INIT, response, sizeof response) == 431);

    /* max_sessions: two sessions (the 1 KiB initialize above was one), then
     * the next initialize gets 503; sessions already open go on. */
    CHECK(raw_session(port, host, headers, sizeof headers));
    CHECK(raw_post(port, host, NULL, INIT, response, sizeof response) == 503);
    CHECK(raw_post_with(port, host, NULL, headers, TOOLS_LIST, response, sizeof response) == 200);
    CHECK_CONTAINS(response, "\"name\":\"echo\"");

    /* cancel_on_disconnect off (the default): a client that hangs up does
     * not cancel its request; the callback runs to the end. */
    int before = atomic_load(&fixture_cancellations);
    CHECK(raw_post_and_hang_up(port, host, headers, SLEEP_CALL(600)));
    sleep_ms(1000);
    CHECK(atomic_load(&fixture_cancellations) == before);
    mcp_server_free(s);

    CHECK_OK(mcp_http_options_new(&options));
    CHECK_OK(mcp_http_options_set_idle_timeout_ms(options, 400));
    CHECK_OK(mcp_http_options_set_cancel_on_disconnect(options, true));
    s = start_fixture(options, host, sizeof host, &port);
    if (!s) return;

    /* cancel_on_disconnect on: the callback sees its request cancelled soon
     * after its client hangs up. */
    CHECK(raw_session(port, host, headers, sizeof headers));
    before = atomic_load(&fixture_cancellations);
    CHECK(raw_post_and_hang_up(port, host, headers, SLEEP_CALL(10000)));
    CHECK(wait_until(&fixture_cancellations, before + 1, 5000));

    /* idle_timeout_ms: a session in use stays; one idle past the timeout is
     * ended, and its next request gets 404. */
    for (int i = 0; i < 4; i++) {
        CHECK(raw_post_with(port, host, NULL, headers, TOOLS_LIST, response, sizeof response) ==
              200);
        sleep_ms(150);
    }
    sleep_ms(1500);
    CHECK(raw_post_with(port, host, NULL, headers, TOOLS_LIST, response, sizeof response) == 404);
    mcp_server_free(s);
}

/* Starts the fixture server over HTTP sharing `store`; its port, or 0. */
static uint16_t start_with_store(mcp_server *s, const char *store) {
    mcp_http_options *options = NULL;
    uint16_t port = 0;
    if (mcp_http_options_new(&options) != MCP_OK) return 0;
    if (mcp_http_options_set_store(options, store) != MCP_OK ||
        mcp_server_start_http(s, options, &port) != MCP_OK) {
        printf("  (start with store %s: %s)\n", store, mcp_last_error_message());
        port = 0;
    }
    mcp_http_options_free(options);
    return port;
}

static void test_store_shared_by_two_servers(void) {
    mcp_http_options *options = NULL;
    CHECK_OK(mcp_http_options_new(&options));
    CHECK_RC(mcp_http_options_set_store(NULL, "redis://127.0.0.1:6379/0"), MCP_ERR_NULL_ARGUMENT);
    CHECK_RC(mcp_http_options_set_store(options, "http://127.0.0.1:6379/"),
             MCP_ERR_INVALID_ARGUMENT);
    CHECK_OK(mcp_http_options_set_store(options, "")); /* back to no store */
    CHECK_OK(mcp_http_options_set_store(options, NULL));
    /* A store nobody answers at: serving fails, naming it. */
    CHECK_OK(mcp_http_options_set_store(options, "redis://127.0.0.1:1/0"));
    mcp_server *lonely = fixture_server_new();
    uint16_t port = 0;
    CHECK_RC(mcp_server_start_http(lonely, options, &port), MCP_ERR_TRANSPORT);
    CHECK_CONTAINS(mcp_last_error_message(), "redis://127.0.0.1:1/0");
    mcp_server_free(lonely);
    mcp_http_options_free(options);

    const char *store = getenv("MCP_TEST_REDIS_URL");
    if (!store || !*store) {
        printf("skip test_store_shared_by_two_servers: redis-server is not installed "
               "(tests/run.sh installs it through tests/deploy)\n");
        return;
    }
    mcp_server *a = fixture_server_new(), *b = fixture_server_new();
    CHECK(a != NULL && b != NULL);
    uint16_t port_a = a ? start_with_store(a, store) : 0;
    uint16_t port_b = b ? start_with_store(b, store) : 0;
    CHECK(port_a != 0 && port_b != 0);
    if (port_a && port_b) {
        static char response[65536];
        char host_a[64], host_b[64];
        snprintf(host_a, sizeof host_a, "127.0.0.1:%u", (unsigned)port_a);
        snprintf(host_b, sizeof host_b, "127.0.0.1:%u", (unsigned)port_b);
        CHECK(raw_post(port_a, host_a, NULL, INIT, response, sizeof response) == 200);
        char session[64] = "";
        const char *found = strstr(response, "mcp-session-id: ");
        CHECK(found != NULL);
        if (found) sscanf(found + strlen("mcp-session-id: "), "%63[0-9a-f]", session);
        CHECK(strlen(session) == 32);
        char headers[256];
        snprintf(headers, sizeof headers,
                 "Mcp-Session-Id: %s\r\nMCP-Protocol-Version: 2025-11-25\r\n", session);
        CHECK(raw_post_with(port_b, host_b, NULL, headers,
                            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
                            response, sizeof response) == 202);
        CHECK(raw_post_with(port_b, host_b, NULL, headers,
                            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                            "\"params\":{\"name\":\"add\",\"arguments\":{\"a\":20,\"b\":22}}}",
                            response, sizeof response) == 200);
        CHECK_CONTAINS(response, "42");
        /* A session B made up is unknown to both. */
        CHECK(raw_post_with(port_a, host_a, NULL,
                            "Mcp-Session-Id: 0123456789abcdef0123456789abcdef\r\n"
                            "MCP-Protocol-Version: 2025-11-25\r\n",
                            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
                            response, sizeof response) == 404);
    }
    mcp_server_free(a);
    mcp_server_free(b);
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
