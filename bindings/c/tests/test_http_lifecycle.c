/*
 * test_http, continued (see test_http.c): the server's lifecycle under
 * connected clients: stopped from another thread (sessions end, no new
 * connections), freed under a connected client, freed inside one of its own
 * tool callbacks.
 */
#include "test_http.h"

static void *stopper(void *arg) {
    *(mcp_result *)arg = mcp_server_stop(server);
    return NULL;
}

void test_stop_from_another_thread(void) {
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

void test_server_freed_under_a_client(void) {
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

void test_server_freed_inside_its_callback(void) {
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
