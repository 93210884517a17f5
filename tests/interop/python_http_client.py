#!/usr/bin/env python3
"""The official MCP Python SDK's client against a Streamable HTTP server (ours).

Usage: python_http_client.py URL   e.g. python_http_client.py http://127.0.0.1:3000/mcp

Connects with the SDK's streamable_http_client and checks, through the SDK's
ClientSession: initialize (a session id, the GET stream), tools (including an
invalid call that must come back as an isError result), resources and the
template, a prompt with arguments, progress and log notifications, the server
asking the client for sampling and elicitation, a call whose SSE stream the
server closes midway (the client must resume it with Last-Event-ID), requests
in parallel, and a second session next to the first. The HTTP traffic is
recorded through httpx2 event hooks to check what happened on the wire. Each
check is independent; a failing check prints why. Prints
`python http interop: N passed, M failed` last and exits 1 if any failed.

Run it with the venv that tests/interop/setup.sh installs.
"""

from __future__ import annotations

import json
import sys
import time
import traceback
import warnings

import anyio
import httpx2
import mcp.types as types
from mcp import ClientSession, MCPDeprecationWarning
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

# Logging and subscriptions are deprecated in the SDK's newest (2026-07-28)
# revision, but current in the 2025-11-25 one negotiated here.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

# Longest the whole run may take, the longest wait for one notification or
# HTTP exchange, and the longest one request may take.
OVERALL_TIMEOUT_S = 90
EVENT_WAIT_S = 5
READ_TIMEOUT_S = 20

SAMPLED_TEXT = "Hello from the Python SDK over HTTP"
ELICITED = {"username": "pyhttp", "email": "pyhttp@example.com"}
RECONNECTED_TEXT = (
    "Reconnection test completed successfully. If you received this, the client properly "
    "reconnected after stream closure."
)


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


async def wait_until(condition, what: str) -> None:
    """Waits (bounded) until `condition()` holds."""
    with anyio.move_on_after(EVENT_WAIT_S):
        while not condition():
            await anyio.sleep(0.01)
    expect(condition(), f"{what} (waited {EVENT_WAIT_S} s)")


class Exchange:
    """One HTTP request the client made, and the response's head once known."""

    def __init__(self, request: httpx2.Request) -> None:
        self.request = request
        self.method = request.method
        self.session_id = request.headers.get("mcp-session-id")
        self.last_event_id = request.headers.get("last-event-id")
        self.status: int | None = None
        self.content_type: str | None = None
        self.assigned_session_id: str | None = None


class Traffic:
    """The HTTP traffic of one httpx2 client, recorded by its event hooks."""

    def __init__(self) -> None:
        self.exchanges: list[Exchange] = []

    async def on_request(self, request: httpx2.Request) -> None:
        self.exchanges.append(Exchange(request))

    async def on_response(self, response: httpx2.Response) -> None:
        for exchange in reversed(self.exchanges):
            if exchange.request is response.request:
                exchange.status = response.status_code
                exchange.content_type = response.headers.get("content-type")
                exchange.assigned_session_id = response.headers.get("mcp-session-id")
                return

    def http_client(self) -> httpx2.AsyncClient:
        # The SDK's default timeouts (30 s, 300 s to read a stream), plus the hooks.
        return httpx2.AsyncClient(
            timeout=httpx2.Timeout(30, read=300),
            event_hooks={"request": [self.on_request], "response": [self.on_response]},
        )

    def session_ids(self) -> list[str]:
        return [e.assigned_session_id for e in self.exchanges if e.assigned_session_id]

    def find(self, method: str, **where) -> list[Exchange]:
        return [
            e
            for e in self.exchanges
            if e.method == method and all(getattr(e, k) == v for k, v in where.items())
        ]


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


class Env:
    """What every check gets."""

    def __init__(
        self,
        url: str,
        session: ClientSession,
        init: types.InitializeResult,
        recorder: Recorder,
        traffic: Traffic,
    ) -> None:
        self.url = url
        self.session = session
        self.init = init
        self.recorder = recorder
        self.traffic = traffic


async def check_initialize(env: Env) -> None:
    init = env.init
    expect_eq(init.server_info.name, "mcp-everything", "server name")
    expect_eq(init.protocol_version, "2025-11-25", "negotiated protocol version")
    caps = init.capabilities
    expect(caps.tools is not None, "no tools capability")
    expect(caps.resources is not None and caps.resources.subscribe, "no resources.subscribe")
    expect(caps.prompts is not None, "no prompts capability")
    expect(caps.logging is not None, "no logging capability")
    expect(caps.completions is not None, "no completions capability")
    await env.session.send_ping()
    # The server assigned a session on initialize; the client sends it on every
    # later request, and opened the GET stream for server-initiated messages.
    ids = env.traffic.session_ids()
    expect(len(ids) >= 1, "no Mcp-Session-Id in any response")
    session_id = ids[0]
    first = env.traffic.exchanges[0]
    expect_eq((first.method, first.session_id), ("POST", None), "the initialize request")
    expect_eq(first.assigned_session_id, session_id, "the session id comes with the initialize response")
    later = env.traffic.exchanges[1:]
    expect(all(e.session_id == session_id for e in later), "a later request lacks the session id")
    await wait_until(
        lambda: any(
            e.status == 200 and (e.content_type or "").startswith("text/event-stream")
            for e in env.traffic.find("GET", last_event_id=None)
        ),
        "the client did not open the GET stream",
    )


async def check_list_tools(env: Env) -> None:
    listed = await env.session.list_tools()
    names = [t.name for t in listed.tools]
    for name in (
        "add_numbers",
        "test_simple_text",
        "test_tool_with_progress",
        "test_tool_with_logging",
        "test_sampling",
        "test_elicitation",
        "test_reconnection",
    ):
        expect(name in names, f"tool {name} not listed (got {names})")
    # No exact count: the everything server gains tools over time.
    expect_eq(len(set(names)), len(names), "tool names are unique")
    for tool in listed.tools:
        expect(bool(tool.description), f"tool {tool.name} has no description")
        expect_eq(tool.input_schema.get("type"), "object", f"{tool.name} inputSchema type")
    add = next(t for t in listed.tools if t.name == "add_numbers").input_schema
    expect_eq(sorted(add.get("required", [])), ["a", "b"], "add_numbers required")


async def check_call_tools(env: Env) -> None:
    result = await env.session.call_tool("add_numbers", {"a": 2, "b": 3})
    expect(not result.is_error, f"add_numbers failed: {result!r}")
    expect_eq(text_of(result), "5", "2 + 3")
    result = await env.session.call_tool("add_numbers", {"a": 1.5, "b": -4})
    expect_eq(text_of(result), "-2.5", "1.5 + -4")
    result = await env.session.call_tool("test_simple_text")
    expect(not result.is_error, f"test_simple_text failed: {result!r}")
    expect_eq(text_of(result), "This is a simple text response for testing.", "test_simple_text")
    result = await env.session.call_tool("test_image_content", {})
    block = result.content[0]
    expect(isinstance(block, types.ImageContent), f"not an image: {block!r}")
    expect_eq(block.mime_type, "image/png", "image MIME type")


async def check_invalid_arguments(env: Env) -> None:
    result = await env.session.call_tool("add_numbers", {"a": "two"})
    expect(result.is_error is True, f"invalid arguments did not give isError: {result!r}")
    message = text_of(result)
    expect("Invalid arguments" in message and "add_numbers" in message, f"unreadable message: {message!r}")
    result = await env.session.call_tool("test_error_handling", {})
    expect(result.is_error is True, "test_error_handling is not an error")
    expect_eq(text_of(result), "This tool intentionally returns an error for testing", "error text")
    try:
        await env.session.call_tool("no_such_tool", {})
    except MCPError as e:
        expect_eq(e.code, -32602, "JSON-RPC error code for an unknown tool")
        expect("no_such_tool" in e.message, f"message does not name the tool: {e.message!r}")
    else:
        raise Mismatch("calling an unknown tool did not raise a JSON-RPC error")


async def check_resources(env: Env) -> None:
    listed = await env.session.list_resources()
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
    read = await env.session.read_resource("test://static-text")
    item = read.contents[0]
    expect(isinstance(item, types.TextResourceContents), f"not text: {item!r}")
    expect_eq(item.text, "This is the content of the static text resource.", "static text")
    expect_eq(item.mime_type, "text/plain", "static text MIME type")
    templates = await env.session.list_resource_templates()
    expect_eq(
        [t.uri_template for t in templates.resource_templates],
        ["test://template/{id}/data"],
        "resource templates",
    )
    read = await env.session.read_resource("test://template/42/data")
    item = read.contents[0]
    expect(isinstance(item, types.TextResourceContents), f"not text: {item!r}")
    expect_eq(str(item.uri), "test://template/42/data", "template URI")
    expect_eq(json.loads(item.text).get("id"), "42", "template id")


async def check_prompts(env: Env) -> None:
    listed = await env.session.list_prompts()
    names = [p.name for p in listed.prompts]
    expect("test_prompt_with_arguments" in names, f"prompt missing: {names}")
    prompt = await env.session.get_prompt("test_prompt_with_arguments", {"arg1": "alpha", "arg2": "beta"})
    expect_eq(len(prompt.messages), 1, "prompt messages")
    content = prompt.messages[0].content
    expect(isinstance(content, types.TextContent), f"not text: {content!r}")
    expect_eq(content.text, "Prompt with arguments: arg1='alpha', arg2='beta'", "prompt text")
    expect_eq(prompt.messages[0].role, "user", "prompt role")
    completion = await env.session.complete(
        types.PromptReference(type="ref/prompt", name="test_prompt_with_arguments"),
        {"name": "arg1", "value": "test"},
    )
    expect_eq(completion.completion.values, ["testValue1", "testValue2"], "completion values")


async def check_progress(env: Env) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    result = await env.session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    expect(not result.is_error, f"test_tool_with_progress failed: {result!r}")
    await wait_until(lambda: len(seen) >= 3, f"fewer than 3 progress notifications: {seen}")
    expect_eq([p for p, _, _ in seen], [0, 50, 100], "progress values")
    expect_eq({t for _, t, _ in seen}, {100}, "progress totals")
    expect_eq(seen[1][2], "Completed step 50 of 100", "progress message")


async def check_logging(env: Env) -> None:
    logs = env.recorder.logs
    await env.session.set_logging_level("debug")
    before = len(logs)
    result = await env.session.call_tool("test_tool_with_logging", {})
    expect_eq(text_of(result), "Tool with logging executed successfully", "logging tool result")
    await wait_until(lambda: len(logs) - before >= 3, f"fewer than 3 log messages: {logs[before:]}")
    expect_eq(
        [m.data for m in logs[before:]],
        ["Tool execution started", "Tool processing data", "Tool execution completed"],
        "log messages",
    )
    expect_eq({m.level for m in logs[before:]}, {"info"}, "log levels")


async def check_sampling(env: Env) -> None:
    recorder = env.recorder
    result = await env.session.call_tool("test_sampling", {"prompt": "Say hello over HTTP"})
    expect(not result.is_error, f"test_sampling failed: {result!r}")
    expect_eq(text_of(result), f"LLM response: {SAMPLED_TEXT}", "sampling result")
    expect_eq(len(recorder.sampling), 1, "sampling requests")
    request = recorder.sampling[0]
    expect_eq(request.max_tokens, 100, "maxTokens")
    expect_eq(len(request.messages), 1, "sampling messages")
    expect_eq(request.messages[0].role, "user", "sampling role")
    expect_eq(request.messages[0].content.text, "Say hello over HTTP", "sampling prompt")


async def check_elicitation(env: Env) -> None:
    recorder = env.recorder
    result = await env.session.call_tool("test_elicitation", {"message": "Who are you?"})
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


async def check_reconnection(env: Env) -> None:
    # Our server closes the call's SSE stream right after its priming event
    # (id and `retry`), then answers 300 ms later. The SDK resumes the stream:
    # after the retry delay it GETs the endpoint with Last-Event-ID, and the
    # server replays the result there.
    before = len(env.traffic.exchanges)
    started = time.monotonic()
    result = await env.session.call_tool("test_reconnection", {})
    elapsed = time.monotonic() - started
    expect(not result.is_error, f"test_reconnection failed: {result!r}")
    expect_eq(text_of(result), RECONNECTED_TEXT, "test_reconnection result")
    resumed = [e for e in env.traffic.exchanges[before:] if e.method == "GET" and e.last_event_id]
    expect(len(resumed) >= 1, "the client did not resume the stream with Last-Event-ID")
    expect_eq(resumed[0].status, 200, "status of the resumed stream")
    expect(
        (resumed[0].content_type or "").startswith("text/event-stream"),
        f"the resumed stream is not SSE: {resumed[0].content_type!r}",
    )
    expect(elapsed >= 0.9, f"the client did not wait for the server's retry delay (1 s): {elapsed:.2f} s")


async def check_concurrent_requests(env: Env) -> None:
    # Each request is its own POST (and SSE stream); answers must not mix up.
    results: dict[int, str] = {}
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    async def add(i: int) -> None:
        result = await env.session.call_tool("add_numbers", {"a": i, "b": 1000})
        results[i] = text_of(result)

    async def slow() -> None:
        result = await env.session.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
        results[-1] = text_of(result)

    async with anyio.create_task_group() as tg:
        tg.start_soon(slow)
        for i in range(8):
            tg.start_soon(add, i)
        tg.start_soon(env.session.send_ping)
    expect_eq({i: results[i] for i in range(8)}, {i: str(1000 + i) for i in range(8)}, "parallel sums")
    expect_eq(results[-1], "Progress test completed: reported 0, 50 and 100 of 100", "parallel slow call")
    await wait_until(lambda: len(seen) >= 3, f"fewer than 3 progress notifications: {seen}")
    expect_eq(seen, [0, 50, 100], "progress of the parallel call")


async def check_second_session(env: Env) -> None:
    # A second client gets its own session; leaving ends it with DELETE; the
    # first session is unaffected.
    traffic = Traffic()
    async with traffic.http_client() as http:
        async with streamable_http_client(env.url, http_client=http) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT_S) as other:
                init = await other.initialize()
                expect_eq(init.server_info.name, "mcp-everything", "second session's server")
                result = await other.call_tool("add_numbers", {"a": 20, "b": 22})
                expect_eq(text_of(result), "42", "second session's sum")
    ids = traffic.session_ids()
    expect(len(ids) >= 1, "the second session got no session id")
    expect(ids[0] not in env.traffic.session_ids(), "both sessions got the same id")
    deletes = traffic.find("DELETE", session_id=ids[0])
    expect_eq([e.status for e in deletes], [200], "DELETE of the second session")
    # The ended session is gone for good ...
    async with traffic.http_client() as http:
        gone = await http.post(
            env.url,
            headers={
                "mcp-session-id": ids[0],
                "mcp-protocol-version": "2025-11-25",
                "accept": "application/json, text/event-stream",
                "content-type": "application/json",
            },
            content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}),
        )
    expect_eq(gone.status_code, 404, "a request in the ended session")
    # ... and the first one still works.
    await env.session.send_ping()
    result = await env.session.call_tool("add_numbers", {"a": 1, "b": 1})
    expect_eq(text_of(result), "2", "first session after the second ended")


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
    check_reconnection,
    check_concurrent_requests,
    check_second_session,
]


async def run(url: str) -> tuple[int, int]:
    recorder = Recorder()
    traffic = Traffic()
    passed = failed = 0
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        async with traffic.http_client() as http:
            async with streamable_http_client(url, http_client=http) as (read, write):
                async with ClientSession(
                    read,
                    write,
                    read_timeout_seconds=READ_TIMEOUT_S,
                    sampling_callback=recorder.on_sampling,
                    elicitation_callback=recorder.on_elicitation,
                    logging_callback=recorder.on_log,
                ) as session:
                    init = await session.initialize()
                    env = Env(url, session, init, recorder, traffic)
                    for check in CHECKS:
                        name = check.__name__.removeprefix("check_")
                        try:
                            await check(env)
                        except Mismatch as e:
                            failed += 1
                            print(f"FAIL {name}: {e}", file=sys.stderr)
                        except Exception:  # noqa: BLE001 - any error fails this check only
                            failed += 1
                            print(f"FAIL {name}: {traceback.format_exc()}", file=sys.stderr)
                        else:
                            passed += 1
                            print(f"ok   {name}")
        # Leaving the client ended the session with DELETE.
        session_id = traffic.session_ids()[0]
        if [e.status for e in traffic.find("DELETE", session_id=session_id)] != [200]:
            failed += 1
            print("FAIL close: the client did not end its session with DELETE", file=sys.stderr)
    return passed, failed


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        passed, failed = anyio.run(run, sys.argv[1])
    except BaseException:  # noqa: BLE001 - report the failure to connect or a timeout
        print(f"python http interop: could not run the checks:\n{traceback.format_exc()}", file=sys.stderr)
        print("python http interop: 0 passed, 1 failed")
        return 1
    print(f"python http interop: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
