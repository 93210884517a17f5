/* The fixture server (fixture.c) as a stdio program, for the tests that
 * connect to a child process. Writes one line to stderr when it starts. */
#include "fixture.h"

#include <stdio.h>

int main(void) {
    mcp_server *server = fixture_server_new();
    if (!server) return 1;
    fprintf(stderr, "fixture_server: ready\n");
    mcp_result r = mcp_server_serve_stdio(server);
    if (r != MCP_OK) fprintf(stderr, "fixture_server: %s\n", mcp_last_error_message());
    if (!atomic_load(&fixture_server_freed)) mcp_server_free(server);
    return r == MCP_OK ? 0 : 1;
}
