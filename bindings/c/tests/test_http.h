/*
 * What the files of the test_http program share: test_http.c (main, the
 * served fixture server, the shared client and the tests of its calls),
 * test_http_lifecycle.c (the server stopped and freed under clients) and
 * test_http_options.c (the HTTP options seen on the wire). See test_http.c.
 */
#ifndef MCP_TEST_HTTP_H
#define MCP_TEST_HTTP_H

#include "harness.h"

#include "fixture.h"

#include <pthread.h>

/* In test_http.c. */
extern mcp_server *server; /* the fixture server, served over HTTP */
extern char url[128];      /* its URL */
extern mcp_client *client; /* the shared client of most tests */
mcp_client *connect_http(void);

/* In test_http_lifecycle.c. */
void test_stop_from_another_thread(void);
void test_server_freed_under_a_client(void);
void test_server_freed_inside_its_callback(void);

/* In test_http_options.c. */
void test_http_options(void);
void test_http_option_limits(void);
void test_store_shared_by_two_servers(void);

#endif
