"""The official Python SDK's high-level client, in a 2026-07-28 mode, against
`mcp serve everything` (ours).

Usage: python python_client_2026.py MODE stdio MCP_BINARY
       python python_client_2026.py MODE http MCP_BINARY

MODE is the client's `mode=`: `2026-07-28` (pinned) or `auto` (it probes
`server/discover` and must pick 2026-07-28). Over HTTP the script starts
`MCP_BINARY serve everything --http 127.0.0.1:PORT` itself and stops it by
PID. Prints one line per check and a closing "python 2026 interop: N passed,
M failed"; exits non-zero on any failure.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import traceback
from typing import Any, Awaitable, Callable, List

import anyio
import mcp.types as types
from mcp import Client, StdioServerParameters

ANSWERED_NAME = "Ada"
SAMPLED_TEXT = "Paris, says the Python client"


class Failed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failed(message)


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def on_elicitation(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"name": ANSWERED_NAME, "username": "u", "email": "e@x"})


async def on_sampling(context: Any, params: Any) -> types.CreateMessageResult:
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text=SAMPLED_TEXT),
        model="python-2026-model",
        stop_reason="endTurn",
    )


async def check_revision(client: Client) -> None:
    expect(client.protocol_version == "2026-07-28", f"negotiated {client.protocol_version!r}")


async def check_tools(client: Client) -> None:
    listed = await client.list_tools()
    names = [t.name for t in listed.tools]
    expect("add_numbers" in names and "test_input_required_result_elicitation" in names, f"tools: {names}")
    added = await client.call_tool("add_numbers", {"a": 2, "b": 3})
    expect(not added.is_error and text_of(added) == "5", f"add_numbers: {added}")


async def check_input_required(client: Client) -> None:
    # An elicitation round (a 2026-07-28 fixture keyed `user_name`).
    named = await client.call_tool("test_input_required_result_elicitation", {})
    expect(text_of(named) == f"Hello, {ANSWERED_NAME}!", f"elicitation round: {named}")
    # A 2025-11-25 fixture that samples, answered through the same callback.
    sampled = await client.call_tool("test_sampling", {"prompt": "capital?"})
    expect(SAMPLED_TEXT in text_of(sampled), f"sampling round: {sampled}")


async def check_resources_and_prompts(client: Client) -> None:
    read = await client.read_resource("test://static-text")
    expect(bool(read.contents) and "static text" in json.dumps(read.model_dump(mode="json")), f"read: {read}")
    prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"})
    expect("one" in json.dumps(prompt.model_dump(mode="json")), f"prompt: {prompt}")
    completed = await client.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": ""},
    )
    expect(isinstance(completed.completion.values, list), f"completion: {completed}")


async def check_subscription(client: Client) -> None:
    async with client.listen(tools_list_changed=True) as sub:
        expect(sub.honored.tools_list_changed is True, f"honoured: {sub.honored}")
        # The everything server's trigger announces a tool list change to
        # every listen stream of the process.
        await client.call_tool("test_trigger_tool_change", {})
        with anyio.fail_after(10):
            event = await sub.__anext__()
        expect("tools" in type(event).__name__.lower() or "tools" in repr(event).lower(), f"event: {event!r}")


CHECKS: List[Callable[[Client], Awaitable[None]]] = [
    check_revision,
    check_tools,
    check_input_required,
    check_resources_and_prompts,
    check_subscription,
]


async def run(mode: str, target: Any) -> int:
    passed = failed = 0
    async with Client(
        target,
        mode=mode,  # type: ignore[arg-type]
        elicitation_callback=on_elicitation,
        sampling_callback=on_sampling,
        read_timeout_seconds=30,
    ) as client:
        for check in CHECKS:
            try:
                await check(client)
                print(f"ok   {check.__name__}")
                passed += 1
            except Exception:  # noqa: BLE001 - every failure is reported
                print(f"FAIL {check.__name__}")
                traceback.print_exc()
                failed += 1
    print(f"python 2026 interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    mode, transport, binary = sys.argv[1], sys.argv[2], sys.argv[3]
    if transport == "stdio":
        return anyio.run(run, mode, StdioServerParameters(command=binary, args=["serve", "everything"]))
    port = free_port()
    server = subprocess.Popen([binary, "serve", "everything", "--http", f"127.0.0.1:{port}"])
    try:
        for _ in range(100):
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        return anyio.run(run, mode, f"http://127.0.0.1:{port}/mcp")
    finally:
        server.kill()
        server.wait(timeout=10)


if __name__ == "__main__":
    sys.exit(main())
