/*
 * test_stdio, continued (see test_stdio.c): clients of their own, made
 * after the shared client is freed: a client closed, a server killed
 * mid-call, one that stops itself, one freed inside its own tool callback,
 * a client freed inside its own notification callback, and clients made,
 * used and freed on several threads at once.
 */
#include "test_stdio.h"

#include <signal.h>
#include <sys/types.h>

void test_close(void) {
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

void test_server_killed_mid_call(void) {
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

void test_server_stops_itself(void) {
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
void test_server_freed_inside_callback(void) {
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

void test_free_inside_callback(void) {
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

void test_parallel_lifecycles(void) {
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
