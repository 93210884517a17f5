#!/usr/bin/env python3
"""The official MCP Python SDK's client drives the C example server over stdio.

Usage: python_drives_c_server.py SERVER_BINARY

Starts bindings/c/examples/server.c (built) with the SDK's stdio_client, then
through mcp.ClientSession: initializes, lists and calls its tools (including
a failing call that must come back as isError), reads its resource and a
resource from its template, lists and gets its prompt, and receives the log
and progress notifications its tools send. Sanitizer settings in the
environment (ASAN_OPTIONS, UBSAN_OPTIONS, LSAN_OPTIONS) are passed on to the
server. Prints `ok NAME` or `FAIL NAME: why` per check and exits 1 if any
failed. Run it with the venv that tests/interop/setup.sh installs.
"""

from __future__ import annotations

import os
import sys
import traceback
import warnings

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # newer SDKs warn about features deprecated in their newest revision
    from mcp import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
except ImportError:  # pragma: no cover - older SDKs
    pass

OVERALL_TIMEOUT_S = 60
NOTIFICATION_WAIT_S = 5


class Mismatch(Exception):
    """A check saw something other than what it expected."""


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Mismatch(what)


def text_of(result: types.CallToolResult) -> str:
    expect(len(result.content) > 0, f"the result has no content: {result!r}")
    block = result.content[0]
    expect(isinstance(block, types.TextContent), f"not text: {block!r}")
    return block.text


async def run(server: str) -> tuple[int, int]:
    logs: list[types.LoggingMessageNotificationParams] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    env = {k: v for k, v in os.environ.items() if k.endswith("SAN_OPTIONS") or k == "PATH"}
    params = StdioServerParameters(command=server, args=[], env=env)
    passed = failed = 0
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        async with stdio_client(params) as (read, write):
            async with ClientSession(
                read, write, read_timeout_seconds=20, logging_callback=on_log
            ) as session:
                init = await session.initialize()

                async def check_initialize() -> None:
                    expect(init.server_info.name == "c-example-server", f"name: {init.server_info!r}")
                    expect(init.capabilities.tools is not None, "no tools capability")
                    expect(init.capabilities.resources is not None, "no resources capability")
                    expect(init.capabilities.prompts is not None, "no prompts capability")
                    await session.send_ping()

                async def check_list_tools() -> None:
                    listed = await session.list_tools()
                    names = sorted(t.name for t in listed.tools)
                    expect(names == ["add", "echo"], f"tools: {names}")
                    add = next(t for t in listed.tools if t.name == "add")
                    expect(add.description == "Adds two numbers", f"description: {add.description!r}")
                    expect(sorted(add.input_schema.get("required", [])) == ["a", "b"], "add schema")

                async def check_call_tools() -> None:
                    result = await session.call_tool("add", {"a": 2, "b": 3.5})
                    expect(not result.is_error, f"add failed: {result!r}")
                    expect(text_of(result) == "5.5", f"2 + 3.5 = {text_of(result)!r}")
                    seen: list[float] = []

                    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
                        seen.append(progress)

                    message = 'quotes " and \\ and ünïcode'
                    result = await session.call_tool("echo", {"message": message}, progress_callback=on_progress)
                    expect(text_of(result) == message, f"echo: {text_of(result)!r}")
                    with anyio.move_on_after(NOTIFICATION_WAIT_S):
                        while not seen:
                            await anyio.sleep(0.01)
                    expect(seen == [1], f"progress: {seen}")

                async def check_tool_errors() -> None:
                    result = await session.call_tool("add", {"a": "two"})
                    expect(result.is_error is True, f"invalid arguments were accepted: {result!r}")

                async def check_logging() -> None:
                    await session.call_tool("add", {"a": 1, "b": 1})
                    with anyio.move_on_after(NOTIFICATION_WAIT_S):
                        while not logs:
                            await anyio.sleep(0.01)
                    expect(any(m.data == "adding two numbers" for m in logs), f"logs: {logs!r}")

                async def check_resources() -> None:
                    listed = await session.list_resources()
                    expect([str(r.uri) for r in listed.resources] == ["demo://readme"], f"{listed!r}")
                    read = await session.read_resource("demo://readme")
                    item = read.contents[0]
                    expect(isinstance(item, types.TextResourceContents), f"not text: {item!r}")
                    expect(item.text == "This server is written in C on top of libmcp.", item.text)
                    templates = await session.list_resource_templates()
                    expect(
                        [t.uri_template for t in templates.resource_templates] == ["demo://greeting/{name}"],
                        f"templates: {templates!r}",
                    )
                    read = await session.read_resource("demo://greeting/Ada")
                    expect(read.contents[0].text == "Hello, Ada!", f"template: {read!r}")

                async def check_prompts() -> None:
                    listed = await session.list_prompts()
                    expect([p.name for p in listed.prompts] == ["summarize"], f"prompts: {listed!r}")
                    prompt = await session.get_prompt("summarize", {"topic": "cats"})
                    content = prompt.messages[0].content
                    expect(content.text == "Summarize this topic: cats", f"prompt: {prompt!r}")

                checks = [
                    check_initialize,
                    check_list_tools,
                    check_call_tools,
                    check_tool_errors,
                    check_logging,
                    check_resources,
                    check_prompts,
                ]
                for check in checks:
                    name = "python_drives_c_server." + check.__name__.removeprefix("check_")
                    try:
                        await check()
                    except Mismatch as e:
                        failed += 1
                        print(f"FAIL {name}: {e}")
                    except Exception:  # noqa: BLE001 - a failing check fails only itself
                        failed += 1
                        print(f"FAIL {name}: {traceback.format_exc()}")
                    else:
                        passed += 1
                        print(f"ok {name}")
    return passed, failed


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        passed, failed = anyio.run(run, sys.argv[1])
    except BaseException:  # noqa: BLE001 - report a failure to start, or the overall timeout
        print(f"FAIL python_drives_c_server: {traceback.format_exc()}")
        return 1
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
