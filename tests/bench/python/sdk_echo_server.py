"""The official MCP Python SDK (`mcp`) serving the benchmark's `echo` tool
over stdio: the floor of the Python row of tests/bench (mcp-bench).

Logging is set to WARNING so that the SDK is not measured writing a log
line per request.
"""

from mcp.server.mcpserver import MCPServer

server = MCPServer("bench-echo", log_level="WARNING")


@server.tool()
def echo(text: str) -> str:
    """Returns its text argument."""
    return text


if __name__ == "__main__":
    server.run("stdio")
