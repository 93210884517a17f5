"""The libmcp Python wheel serving the benchmark's `echo` tool over stdio:
the "ours" of the Python row of tests/bench (mcp-bench), measured against
sdk_echo_server.py (the official SDK) in the same run.

mcp-bench runs this only when `import libmcp` works in the interpreter it is
given (LIBMCP_PYTHON, or --libmcp-python).
"""

import libmcp

server = libmcp.Server("bench-echo", version="0.1.0")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


if __name__ == "__main__":
    server.run_stdio()
