/*
 * test_http, continued (see test_http.c): the HTTP options seen on the wire
 * through raw requests over a socket: their argument errors, allowed hosts
 * and origins, stateless JSON answers, the body and header size limits,
 * max sessions, the idle timeout, cancel on disconnect, waiting for a stop,
 * and two servers sharing a session through a store.
 */
#include "test_http.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

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

static void *stop_after_a_moment(void *server_to_stop) {
    sleep_ms(100);
    mcp_server_stop(server_to_stop);
    return NULL;
}

void test_http_options(void) {
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
void test_http_option_limits(void) {
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

void test_store_shared_by_two_servers(void) {
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
