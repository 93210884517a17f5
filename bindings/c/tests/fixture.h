/*
 * The fixture server the C tests talk to: tools, resources, a template and
 * prompts that exercise every callback kind, every mcp_context function and
 * the failure paths. Served in-process (test_http.c) or as the stdio program
 * fixture_server (fixture_server.c).
 */
#ifndef MCP_TEST_FIXTURE_H
#define MCP_TEST_FIXTURE_H

#include <mcp.h>

#include <stdatomic.h>

/* Makes the fixture server; NULL (after printing why) on failure. */
mcp_server *fixture_server_new(void);

/* How many times the "sleep" tool saw its request cancelled. */
extern atomic_int fixture_cancellations;
/* Set once the "free_server" tool freed the server (do not free it again). */
extern atomic_int fixture_server_freed;
/* How many fixture callbacks are running right now, and the most at once. */
extern atomic_int fixture_running;
extern atomic_int fixture_max_running;

/* The number after "key": in compact JSON, or `fallback`. */
double json_number(const char *json, const char *key, double fallback);
/* A malloc'd copy of the string literal (quotes and escapes included) after
 * "key": in compact JSON, or NULL. */
char *json_string_literal(const char *json, const char *key);

#endif
