"""The official MCP Python SDK (`mcp`) serving the benchmark's `echo` tool:
the floor of the Python rows of tests/bench (mcp-bench).

    python sdk_echo_server.py              # stdio
    python sdk_echo_server.py http         # Streamable HTTP (its MCPServer app
                                           # under uvicorn, JSON answers) on a
                                           # free loopback port, `listening on
                                           # ADDR` on stdout

Logging is set to WARNING so that the SDK is not measured writing a log
line per request.
"""

import socket
import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench-echo", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


def serve_http() -> None:
    import anyio
    import uvicorn

    # Bound and listening before the address is printed: the driver's first
    # connection waits in the backlog while uvicorn starts.
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    host, port = sock.getsockname()
    app = server.streamable_http_app(json_response=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False)
    print(f"listening on {host}:{port}", flush=True)
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run("stdio")
