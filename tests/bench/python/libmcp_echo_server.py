"""The libmcp Python wheel serving the benchmark's `echo` tool: the "ours"
of the Python rows of tests/bench (mcp-bench), measured against
sdk_echo_server.py (the official SDK) in the same run.

    python libmcp_echo_server.py           # stdio
    python libmcp_echo_server.py http      # Streamable HTTP on a free loopback
                                           # port, `listening on ADDR` on stdout

mcp-bench runs this only when `import libmcp` works in the interpreter it is
given (LIBMCP_PYTHON, or --libmcp-python).
"""

import sys

import libmcp

server = libmcp.Server("bench-echo", version="0.1.0")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


if __name__ == "__main__":
    if sys.argv[1:] == ["http"]:
        # Bound before the address is printed: the driver connects at once.
        with server.start_http("127.0.0.1", 0, json_response=True) as running:
            print(f"listening on {running.host}:{running.port}", flush=True)
            try:
                running.wait()
            except KeyboardInterrupt:
                pass
    else:
        server.run_stdio()
