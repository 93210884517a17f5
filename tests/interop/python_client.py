#!/usr/bin/env python3
"""The official MCP Python SDK's client against a stdio server (ours).

Usage: python_client.py COMMAND [ARGS...]   e.g. python_client.py target/debug/mcp serve everything

Starts the server with the SDK's stdio_client, then checks, through the SDK's
ClientSession: initialize, tools (including an invalid call that must come back
as an isError result), resources and the template, a prompt with arguments,
progress and log notifications, and the server asking the client for sampling
and elicitation. Each check is independent; a failing check prints why.
Prints `python interop: N passed, M failed` last and exits 1 if any failed.

Run it with the venv that tests/interop/setup.sh installs.
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings

import anyio
import mcp.types as types
from mcp import ClientSession, MCPDeprecationWarning, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

# Logging and subscriptions are deprecated in the SDK's newest (2026-07-28)
# revision, but current in the 2025-11-25 one negotiated here.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

# Longest the whole run may take, and the longest wait for one notification.
OVERALL_TIMEOUT_S = 90
NOTIFICATION_WAIT_S = 5

SAMPLED_TEXT = "Hello from the Python SDK"
ELICITED = {"username": "pyuser", "email": "py@example.com"}


class Mismatch(Exception):
    """A check found something other than what it expected."""


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Mismatch(what)


def expect_eq(actual, expected, what: str) -> None:
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def text_of(result: types.CallToolResult) -> str:
    expect(len(result.content) > 0, "the result has no content")
    block = result.content[0]
    expect(isinstance(block, types.TextContent), f"the first block is not text: {block!r}")
    return block.text


class Recorder:
    """What the server sent the client outside of responses."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.sampling: list[types.CreateMessageRequestParams] = []
        self.elicitation: list[types.ElicitRequestParams] = []

    async def on_log(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def on_sampling(self, context, params: types.CreateMessageRequestParams):
        self.sampling.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text=SAMPLED_TEXT),
            model="python-interop-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(self, context, params: types.ElicitRequestParams):
        self.elicitation.append(params)
        return types.ElicitResult(action="accept", content=dict(ELICITED))


async def check_initialize(session: ClientSession, init: types.InitializeResult, _: Recorder) -> None:
    expect_eq(init.server_info.name, "mcp-everything", "server name")
    expect_eq(init.protocol_version, "2025-11-25", "negotiated protocol version")
    caps = init.capabilities
    expect(caps.tools is not None, "no tools capability")
    expect(caps.resources is not None and caps.resources.subscribe, "no resources.subscribe")
    expect(caps.prompts is not None, "no prompts capability")
    expect(caps.logging is not None, "no logging capability")
    expect(caps.completions is not None, "no completions capability")
    await session.send_ping()


async def check_list_tools(session: ClientSession, _init, __) -> None:
    listed = await session.list_tools()
    names = [t.name for t in listed.tools]
    for name in (
        "add_numbers",
        "test_simple_text",
        "test_tool_with_progress",
        "test_tool_with_logging",
        "test_sampling",
        "test_elicitation",
        "json_schema_2020_12_tool",
    ):
        expect(name in names, f"tool {name} not listed (got {names})")
    # The 2025-11-25 fixtures and the 2026-07-28 ones (bindings/cli/tests/everything.rs lists them).
    expect_eq(len(names), 38, "number of tools")
    for tool in listed.tools:
        expect(bool(tool.description), f"tool {tool.name} has no description")
        expect_eq(tool.input_schema.get("type"), "object", f"{tool.name} inputSchema type")
    raw = next(t for t in listed.tools if t.name == "json_schema_2020_12_tool").input_schema
    expect_eq(raw.get("$schema"), "https://json-schema.org/draft/2020-12/schema", "$schema")
    expect_eq(raw.get("$defs", {}).get("address", {}).get("$anchor"), "addressDef", "$defs.address")
    expect_eq(raw.get("additionalProperties"), False, "additionalProperties")
    add = next(t for t in listed.tools if t.name == "add_numbers").input_schema
    expect_eq(sorted(add.get("required", [])), ["a", "b"], "add_numbers required")


async def check_call_tools(session: ClientSession, _init, __) -> None:
    result = await session.call_tool("add_numbers", {"a": 2, "b": 3})
    expect(not result.is_error, f"add_numbers failed: {result!r}")
    expect_eq(text_of(result), "5", "2 + 3")
    result = await session.call_tool("add_numbers", {"a": 1.5, "b": -4})
    expect_eq(text_of(result), "-2.5", "1.5 + -4")
    result = await session.call_tool("test_simple_text")
    expect_eq(text_of(result), "This is a simple text response for testing.", "test_simple_text")
    result = await session.call_tool("test_image_content", {})
    block = result.content[0]
    expect(isinstance(block, types.ImageContent), f"not an image: {block!r}")
    expect_eq(block.mime_type, "image/png", "image MIME type")
    result = await session.call_tool("test_audio_content", {})
    block = result.content[0]
    expect(isinstance(block, types.AudioContent), f"not audio: {block!r}")
    expect_eq(block.mime_type, "audio/wav", "audio MIME type")


async def check_invalid_arguments(session: ClientSession, _init, __) -> None:
    result = await session.call_tool("add_numbers", {"a": "two"})
    expect(result.is_error is True, f"invalid arguments did not give isError: {result!r}")
    message = text_of(result)
    expect("Invalid arguments" in message and "add_numbers" in message, f"unreadable message: {message!r}")
    result = await session.call_tool("test_error_handling", {})
    expect(result.is_error is True, "test_error_handling is not an error")
    expect_eq(text_of(result), "This tool intentionally returns an error for testing", "error text")
    try:
        await session.call_tool("no_such_tool", {})
    except MCPError as e:
        expect_eq(e.code, -32602, "JSON-RPC error code for an unknown tool")
        expect("no_such_tool" in e.message, f"message does not name the tool: {e.message!r}")
    else:
        raise Mismatch("calling an unknown tool did not raise a JSON-RPC error")


async def check_resources(session: ClientSession, _init, __) -> None:
    listed = await session.list_resources()
    uris = [str(r.uri) for r in listed.resources]
    # The skills' SKILL.md files are listed resources too (the skills extension).
    expect_eq(
        uris,
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md",
        ],
        "resources",
    )
    read = await session.read_resource("test://static-text")
    item = read.contents[0]
    expect(isinstance(item, types.TextResourceContents), f"not text: {item!r}")
    expect_eq(item.text, "This is the content of the static text resource.", "static text")
    expect_eq(item.mime_type, "text/plain", "static text MIME type")
    read = await session.read_resource("test://static-binary")
    item = read.contents[0]
    expect(isinstance(item, types.BlobResourceContents), f"not a blob: {item!r}")
    expect(item.blob.startswith("iVBORw0KGgo"), f"not a base64 PNG: {item.blob[:20]!r}")
    templates = await session.list_resource_templates()
    expect_eq(
        [t.uri_template for t in templates.resource_templates],
        ["test://template/{id}/data"],
        "resource templates",
    )
    read = await session.read_resource("test://template/123/data")
    item = read.contents[0]
    expect_eq(str(item.uri), "test://template/123/data", "template URI")
    expect_eq(json.loads(item.text).get("id"), "123", "template id")
    await session.subscribe_resource("test://watched-resource")
    await session.unsubscribe_resource("test://watched-resource")


async def check_prompts(session: ClientSession, _init, __) -> None:
    listed = await session.list_prompts()
    names = [p.name for p in listed.prompts]
    expect("test_prompt_with_arguments" in names, f"prompt missing: {names}")
    prompt = await session.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
    content = prompt.messages[0].content
    expect(isinstance(content, types.TextContent), f"not text: {content!r}")
    expect_eq(content.text, "Prompt with arguments: arg1='alpha', arg2='beta'", "prompt text")
    expect_eq(prompt.messages[0].role, "user", "prompt role")
    completion = await session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": "test"},
    )
    expect_eq(completion.completion.values, ["testValue1", "testValue2"], "completion values")


async def check_progress(session: ClientSession, _init, __) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    expect(not result.is_error, f"test_tool_with_progress failed: {result!r}")
    with anyio.move_on_after(NOTIFICATION_WAIT_S):
        while len(seen) < 3:
            await anyio.sleep(0.01)
    expect_eq([p for p, _, _ in seen], [0, 50, 100], "progress values")
    expect_eq({t for _, t, _ in seen}, {100}, "progress totals")


async def check_logging(session: ClientSession, _init, recorder: Recorder) -> None:
    await session.set_logging_level("debug")
    before = len(recorder.logs)
    result = await session.call_tool("test_tool_with_logging", {})
    expect_eq(text_of(result), "Tool with logging executed successfully", "logging tool result")
    with anyio.move_on_after(NOTIFICATION_WAIT_S):
        while len(recorder.logs) - before < 3:
            await anyio.sleep(0.01)
    logs = recorder.logs[before:]
    expect_eq(
        [m.data for m in logs],
        ["Tool execution started", "Tool processing data", "Tool execution completed"],
        "log messages",
    )
    expect_eq({m.level for m in logs}, {"info"}, "log levels")


async def check_sampling(session: ClientSession, _init, recorder: Recorder) -> None:
    result = await session.call_tool("test_sampling", {"prompt": "Say hello"})
    expect(not result.is_error, f"test_sampling failed: {result!r}")
    expect_eq(text_of(result), f"LLM response: {SAMPLED_TEXT}", "sampling result")
    expect_eq(len(recorder.sampling), 1, "sampling requests")
    request = recorder.sampling[0]
    expect_eq(request.max_tokens, 100, "maxTokens")
    expect_eq(len(request.messages), 1, "sampling messages")
    expect_eq(request.messages[0].role, "user", "sampling role")
    expect_eq(request.messages[0].content.text, "Say hello", "sampling prompt")


async def check_elicitation(session: ClientSession, _init, recorder: Recorder) -> None:
    result = await session.call_tool("test_elicitation", {"message": "Who are you?"})
    expect(not result.is_error, f"test_elicitation failed: {result!r}")
    expect_eq(
        text_of(result),
        f"User response: action=accept, content={json.dumps(ELICITED, separators=(',', ':'))}",
        "elicitation result",
    )
    expect_eq(len(recorder.elicitation), 1, "elicitation requests")
    request = recorder.elicitation[0]
    expect_eq(request.message, "Who are you?", "elicitation message")
    properties = request.requested_schema["properties"]
    expect_eq(sorted(properties), ["email", "username"], "elicitation fields")
    result = await session.call_tool("test_elicitation_sep1034_defaults", {})
    expect(not result.is_error, f"sep1034 failed: {result!r}")
    defaults = recorder.elicitation[1].requested_schema["properties"]
    expect_eq(
        {k: v.get("default") for k, v in defaults.items()},
        {"name": "John Doe", "age": 30, "score": 95.5, "status": "active", "verified": True},
        "SEP-1034 defaults",
    )


CHECKS = [
    check_initialize,
    check_list_tools,
    check_call_tools,
    check_invalid_arguments,
    check_resources,
    check_prompts,
    check_progress,
    check_logging,
    check_sampling,
    check_elicitation,
]


async def run(command: str, args: list[str]) -> tuple[int, int]:
    recorder = Recorder()
    passed = failed = 0
    server = StdioServerParameters(command=command, args=args)
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        async with stdio_client(server) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=20,
                sampling_callback=recorder.on_sampling,
                elicitation_callback=recorder.on_elicitation,
                logging_callback=recorder.on_log,
            ) as session:
                init = await session.initialize()
                for check in CHECKS:
                    name = check.__name__.removeprefix("check_")
                    try:
                        await check(session, init, recorder)
                    except Mismatch as e:
                        failed += 1
                        print(f"FAIL {name}: {e}", file=sys.stderr)
                    except Exception:  # noqa: BLE001 - any error fails this check only
                        failed += 1
                        print(f"FAIL {name}: {traceback.format_exc()}", file=sys.stderr)
                    else:
                        passed += 1
                        print(f"ok   {name}")
    return passed, failed


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        passed, failed = anyio.run(run, sys.argv[1], sys.argv[2:])
    except BaseException:  # noqa: BLE001 - report the failure to start or a timeout
        print(f"python interop: could not run the checks:\n{traceback.format_exc()}", file=sys.stderr)
        print("python interop: 0 passed, 1 failed")
        return 1
    print(f"python interop: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
