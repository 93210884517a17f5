"""The official MCP Python SDK's client against the libmcp fixture server.

Usage: python official_client.py [--only NAME | --skip NAME]... stdio COMMAND [ARGS...]
       python official_client.py [--only NAME | --skip NAME]... http URL

Checks, through the SDK's ClientSession: initialize, tools (schemas derived
from type hints, structured output, validation errors, tool errors,
JSON-RPC errors), resources and templates, prompts, completions, progress,
logging, sampling, elicitation, roots and cancellation. Prints one line per
check and `official client: N passed, M failed` last; exits 1 on failure.
"""

from __future__ import annotations

import json
import sys
import traceback
import warnings
from typing import Any, Callable, List

import anyio
import mcp.types as types
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

try:
    from mcp import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
except ImportError:  # pragma: no cover
    pass

OVERALL_TIMEOUT_S = 120
WAIT_S = 5


class Mismatch(Exception):
    pass


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise Mismatch(what)


def expect_eq(actual: Any, expected: Any, what: str) -> None:
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


def text_of(result: Any) -> str:
    expect(len(result.content) > 0, f"no content in {result!r}")
    block = result.content[0]
    expect(isinstance(block, types.TextContent), f"not text: {block!r}")
    return block.text


async def wait_until(condition: Callable[[], bool], what: str) -> None:
    with anyio.move_on_after(WAIT_S):
        while not condition():
            await anyio.sleep(0.01)
    expect(condition(), what)


class Recorder:
    def __init__(self) -> None:
        self.logs: List[Any] = []
        self.sampling: List[Any] = []
        self.elicitation: List[Any] = []

    async def on_log(self, params: Any) -> None:
        self.logs.append(params)

    async def on_sampling(self, context: Any, params: Any) -> Any:
        self.sampling.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="sampled by the SDK"),
            model="sdk-model",
            stop_reason="endTurn",
        )

    async def on_elicitation(self, context: Any, params: Any) -> Any:
        self.elicitation.append(params)
        return types.ElicitResult(action="accept", content={"username": "sdk", "email": "sdk@example.com"})

    async def on_roots(self, context: Any) -> Any:
        return types.ListRootsResult(roots=[types.Root(uri="file:///sdk/root", name="sdk")])


async def check_initialize(s: ClientSession, init: Any, r: Recorder) -> None:
    expect_eq(init.server_info.name, "libmcp-fixture", "server name")
    expect_eq(init.server_info.version, "1.2.3", "server version")
    expect_eq(init.protocol_version, "2025-11-25", "protocol version")
    expect_eq(init.instructions, "A server for testing libmcp.", "instructions")
    caps = init.capabilities
    expect(caps.tools is not None, "no tools capability")
    expect(caps.resources is not None, "no resources capability")
    expect(caps.prompts is not None, "no prompts capability")
    expect(caps.completions is not None, "no completions capability")
    await s.send_ping()


async def check_list_tools(s: ClientSession, _: Any, __: Recorder) -> None:
    tools = {t.name: t for t in (await s.list_tools()).tools}
    for name in ("add", "echo", "greet", "describe", "progress", "sample", "elicit", "roots", "sleep", "fail"):
        expect(name in tools, f"tool {name} missing from {sorted(tools)}")
    add = tools["add"]
    expect_eq(add.description, "Adds two integers.", "add description")
    expect_eq(add.input_schema["required"], ["a", "b"], "add required")
    expect_eq(add.input_schema["properties"]["a"], {"type": "integer", "description": "The first addend."}, "add.a")
    expect_eq(add.output_schema["properties"]["result"], {"type": "integer"}, "add output schema")
    expect_eq(add.annotations.read_only_hint, True, "add readOnlyHint")
    greet = tools["greet"].input_schema["properties"]
    expect_eq(greet["greeting"]["enum"], ["hello", "hi"], "Literal enum")
    expect_eq(greet["greeting"]["default"], "hello", "Literal default")
    describe = tools["describe"]
    expect("Person" in describe.input_schema.get("$defs", {}), "dataclass in $defs")
    expect_eq(describe.output_schema["required"], ["name", "adult", "city"], "TypedDict output schema")


async def check_call_tools(s: ClientSession, _: Any, __: Recorder) -> None:
    result = await s.call_tool("add", {"a": 2, "b": 40})
    expect(not result.is_error, f"add failed: {result!r}")
    expect_eq(text_of(result), "42", "add text")
    expect_eq(result.structured_content, {"result": 42}, "add structured")
    result = await s.call_tool("add_async", {"a": 1.5, "b": 2})
    expect_eq(result.structured_content, {"result": 3.5}, "add_async structured")
    result = await s.call_tool("greet", {"name": "SDK", "excited": True})
    expect_eq(text_of(result), "hello, SDK!", "greet")
    person = {"name": "Ann", "age": 31, "address": {"street": "Main St", "city": "Oslo"}}
    result = await s.call_tool("describe", {"person": person, "color": "green"})
    expect_eq(result.structured_content, {"name": "Ann", "adult": True, "city": "Oslo"}, "describe")
    result = await s.call_tool("image", {})
    expect(isinstance(result.content[0], types.ImageContent), f"not an image: {result.content!r}")
    expect_eq(result.content[0].mime_type, "image/png", "image MIME type")


async def check_errors(s: ClientSession, _: Any, __: Recorder) -> None:
    result = await s.call_tool("add", {"a": "two", "b": 2})
    expect(result.is_error is True, f"a bad argument was accepted: {result!r}")
    expect("Invalid arguments" in text_of(result), f"unclear message: {text_of(result)!r}")
    result = await s.call_tool("fail", {"message": "it broke"})
    expect(result.is_error is True, "fail is not an error")
    expect_eq(text_of(result), "it broke", "fail message")
    try:
        await s.call_tool("fail_with_code", {"code": -32099, "message": "custom failure"})
    except MCPError as e:
        expect_eq(e.code, -32099, "custom error code")
        expect_eq(e.message, "custom failure", "custom error message")
    else:
        raise Mismatch("fail_with_code did not raise")
    try:
        await s.call_tool("no_such_tool", {})
    except MCPError as e:
        expect_eq(e.code, -32602, "unknown tool code")
    else:
        raise Mismatch("an unknown tool did not raise")


async def check_resources(s: ClientSession, _: Any, __: Recorder) -> None:
    uris = [str(r.uri) for r in (await s.list_resources()).resources]
    for uri in ("text://static", "bin://pixel", "data://config"):
        expect(uri in uris, f"{uri} not in {uris}")
    item = (await s.read_resource("text://static")).contents[0]
    expect_eq(item.text, "static text", "static text")
    expect_eq(item.mime_type, "text/plain", "static MIME type")
    item = (await s.read_resource("bin://pixel")).contents[0]
    expect(isinstance(item, types.BlobResourceContents), f"not a blob: {item!r}")
    expect(item.blob.startswith("iVBORw0KGgo"), "not a PNG")
    item = (await s.read_resource("data://config")).contents[0]
    expect_eq(json.loads(item.text), {"debug": False, "level": 3}, "JSON resource")
    templates = [t.uri_template for t in (await s.list_resource_templates()).resource_templates]
    expect_eq(sorted(templates), ["greeting://{name}", "num://{n}/double"], "templates")
    item = (await s.read_resource("greeting://sdk")).contents[0]
    expect_eq(item.text, "Hello, sdk!", "template read")
    item = (await s.read_resource("num://21/double")).contents[0]
    expect_eq(item.text, "42", "typed template variable")
    try:
        await s.read_resource("missing://nothing")
    except MCPError as e:
        expect_eq(e.code, -32002, "resource not found code")
    else:
        raise Mismatch("a missing resource did not raise")


async def check_prompts(s: ClientSession, _: Any, __: Recorder) -> None:
    prompts = {p.name: p for p in (await s.list_prompts()).prompts}
    review = prompts["review"]
    expect_eq([(a.name, a.required) for a in review.arguments], [("code", True), ("language", False)], "review arguments")
    expect_eq(review.arguments[0].description, "The code to review.", "argument description")
    result = await s.get_prompt("review", {"code": "x = 1", "language": "rust"})
    expect_eq(result.messages[0].content.text, "Review this rust code:\nx = 1", "review text")
    result = await s.get_prompt("conversation", {"topic": "owls", "turns": "2"})
    expect_eq([m.role for m in result.messages], ["user", "assistant", "user", "assistant"], "roles")
    completion = await s.complete(
        types.PromptReference(type="ref/prompt", name="review"), {"name": "language", "value": "p"}
    )
    expect_eq(completion.completion.values, ["python", "pascal"], "prompt completion")
    completion = await s.complete(
        types.ResourceTemplateReference(type="ref/resource", uri="greeting://{name}"), {"name": "name", "value": "al"}
    )
    expect_eq(completion.completion.values, ["alice", "albert"], "template completion")


async def check_progress_and_logging(s: ClientSession, _: Any, r: Recorder) -> None:
    seen: List[float] = []

    async def on_progress(progress: float, total: Any, message: Any) -> None:
        seen.append(progress)

    await s.set_logging_level("debug")
    before = len(r.logs)
    result = await s.call_tool("progress", {"steps": 3}, progress_callback=on_progress)
    expect_eq(text_of(result), "did 3 steps", "progress result")
    await wait_until(lambda: len(seen) >= 3, f"progress: {seen}")
    expect_eq(seen, [1, 2, 3], "progress values")
    await wait_until(lambda: len(r.logs) - before >= 3, "log messages")
    expect_eq([m.data for m in r.logs[before:]], ["step 1", "step 2", "step 3"], "log data")


async def check_sampling(s: ClientSession, _: Any, r: Recorder) -> None:
    result = await s.call_tool("sample", {"prompt": "Say hi"})
    expect_eq(text_of(result), "model sdk-model said: sampled by the SDK", "sampling result")
    request = r.sampling[-1]
    expect_eq(request.max_tokens, 100, "maxTokens")
    expect_eq(request.system_prompt, "Be brief.", "systemPrompt")
    expect_eq(request.messages[0].content.text, "Say hi", "sampling prompt")
    result = await s.call_tool("sample_sync", {"prompt": "again"})
    expect_eq(text_of(result), "model sdk-model said: sampled by the SDK", "sync sampling result")


async def check_elicitation(s: ClientSession, _: Any, r: Recorder) -> None:
    result = await s.call_tool("elicit", {"message": "Who are you?"})
    expect_eq(text_of(result), "accept: {'username': 'sdk', 'email': 'sdk@example.com'}", "elicitation result")
    request = r.elicitation[-1]
    expect_eq(request.message, "Who are you?", "elicitation message")
    expect_eq(sorted(request.requested_schema["properties"]), ["email", "username"], "requested schema")


async def check_roots(s: ClientSession, _: Any, __: Recorder) -> None:
    result = await s.call_tool("roots", {})
    expect_eq(result.structured_content, {"result": ["file:///sdk/root"]}, "roots")


async def check_cancellation(s: ClientSession, _: Any, __: Recorder) -> None:
    with anyio.move_on_after(0.3):
        await s.call_tool("sleep", {"seconds": 30})
    async def cancelled() -> List[str]:
        return (await s.call_tool("cancelled_requests", {})).structured_content["result"]

    seen: List[str] = []
    with anyio.move_on_after(WAIT_S):
        while not any(x.startswith("sleep ") for x in seen):
            seen = await cancelled()
            await anyio.sleep(0.05)
    expect(any(x.startswith("sleep ") for x in seen), f"the server did not cancel the handler: {seen}")


CHECKS = [
    check_initialize,
    check_list_tools,
    check_call_tools,
    check_errors,
    check_resources,
    check_prompts,
    check_progress_and_logging,
    check_sampling,
    check_elicitation,
    check_roots,
    check_cancellation,
]


SELECTED = list(CHECKS)


async def run_checks(read: Any, write: Any) -> tuple:
    recorder = Recorder()
    passed = failed = 0
    async with ClientSession(
        read,
        write,
        read_timeout_seconds=30,
        sampling_callback=recorder.on_sampling,
        elicitation_callback=recorder.on_elicitation,
        list_roots_callback=recorder.on_roots,
        logging_callback=recorder.on_log,
    ) as session:
        init = await session.initialize()
        for check in SELECTED:
            name = check.__name__[len("check_"):]
            try:
                await check(session, init, recorder)
            except Mismatch as e:
                failed += 1
                print(f"FAIL {name}: {e}", file=sys.stderr)
            except Exception:  # noqa: BLE001
                failed += 1
                print(f"FAIL {name}: {traceback.format_exc()}", file=sys.stderr)
            else:
                passed += 1
                print(f"ok   {name}")
    return passed, failed


async def run(argv: List[str]) -> tuple:
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        if argv[0] == "stdio":
            params = StdioServerParameters(command=argv[1], args=argv[2:])
            async with stdio_client(params) as (read, write):
                return await run_checks(read, write)
        async with streamable_http_client(argv[1]) as (read, write):
            return await run_checks(read, write)


def main() -> int:
    global SELECTED
    args = sys.argv[1:]
    while len(args) >= 2 and args[0] in ("--only", "--skip"):
        names = {c.__name__[len("check_"):]: c for c in CHECKS}
        if args[1] not in names:
            print(f"unknown check {args[1]!r}", file=sys.stderr)
            return 2
        if args[0] == "--only":
            SELECTED = [c for c in CHECKS if c is names[args[1]] or (c in SELECTED and SELECTED != CHECKS)]
        else:
            SELECTED = [c for c in SELECTED if c is not names[args[1]]]
        args = args[2:]
    if len(args) < 2 or args[0] not in ("stdio", "http"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        passed, failed = anyio.run(run, args)
    except BaseException:  # noqa: BLE001
        print(f"official client: could not run:\n{traceback.format_exc()}", file=sys.stderr)
        passed, failed = 0, 1
    print(f"official client: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
