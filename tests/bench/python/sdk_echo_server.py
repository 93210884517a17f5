"""The official MCP Python SDK (`mcp`) serving the benchmark's `echo` tool:
the floor of the Python rows of tests/bench (mcp-bench).

    python sdk_echo_server.py              # stdio
    python sdk_echo_server.py http         # Streamable HTTP (`run("streamable-http")`,
                                           # JSON answers) on a free loopback
                                           # port, `listening on ADDR` on stdout

Logging is set to WARNING so that the SDK is not measured writing a log
line per request.
"""

import socket
import sys
import threading
import time

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench-echo", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


def serve_http() -> None:
    """`server.run("streamable-http")` as users run it, on a free port; the
    address is printed once the port accepts connections."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    def announce() -> None:
        for _ in range(600):
            try:
                socket.create_connection(("127.0.0.1", port), 0.5).close()
            except OSError:
                time.sleep(0.05)
                continue
            print(f"listening on 127.0.0.1:{port}", flush=True)
            return

    threading.Thread(target=announce, daemon=True).start()
    server.run("streamable-http", host="127.0.0.1", port=port, json_response=True)


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        serve_http()
    else:
        server.run("stdio")
