"""Times N sequential tools/call round trips of the official SDK's client.

Usage: python bench_client.py N COMMAND [ARGS...]   (prints the seconds)
"""

import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    n = int(sys.argv[1])
    params = StdioServerParameters(command=sys.argv[2], args=sys.argv[3:])
    async with stdio_client(params, errlog=open("/dev/null", "w")) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("add", {"a": 0, "b": 0})
            started = time.perf_counter()
            for i in range(n):
                result = await session.call_tool("add", {"a": i, "b": 1})
                assert result.structured_content == {"result": i + 1}
            print(time.perf_counter() - started)


anyio.run(main)
