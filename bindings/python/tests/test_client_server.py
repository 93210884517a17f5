"""Our Python client against our Python server, over stdio and HTTP."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from typing import Any, Callable, List

import pytest

import libmcp
from conftest import Recorder, run

try:
    import pydantic  # noqa: F401

    HAS_PYDANTIC = True
except ImportError:  # the fixture server then has no pydantic tool
    HAS_PYDANTIC = False



def test_initialize(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            assert client.connected
            info = client.server_info
            assert (info.name, info.version, info.title) == ("libmcp-fixture", "1.2.3", "libmcp test fixture")
            assert client.protocol_version == "2025-11-25"
            assert client.instructions == "A server for testing libmcp."
            caps = client.server_capabilities
            for capability in ("tools", "resources", "prompts", "completions", "logging"):
                assert capability in caps, caps
            await client.ping()
        assert not client.connected

    run(go())


def test_tool_schemas_come_from_type_hints(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            tools = {t.name: t for t in await client.list_tools()}
        add = tools["add"]
        assert add.description == "Adds two integers."
        assert add.input_schema == {
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first addend."},
                "b": {"type": "integer", "description": "The second addend."},
            },
            "required": ["a", "b"],
        }
        assert add.output_schema == {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}
        assert add.annotations is not None and add.annotations.read_only_hint is True
        greet = tools["greet"].input_schema
        assert greet["properties"]["greeting"] == {"enum": ["hello", "hi"], "type": "string", "default": "hello"}
        assert greet["properties"]["excited"] == {"type": "boolean", "default": False}
        assert greet["required"] == ["name"]
        describe = tools["describe"]
        defs = describe.input_schema["$defs"]
        assert defs["Person"]["required"] == ["name", "age"]
        assert defs["Person"]["properties"]["address"] == {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": None}
        assert defs["Address"]["properties"]["city"] == {"type": "string", "default": "Paris"}
        assert describe.input_schema["properties"]["color"] == {"enum": ["red", "green"], "type": "string", "default": "red"}
        assert describe.output_schema is not None and describe.output_schema["required"] == ["name", "adult", "city"]
        collect = tools["collect"].input_schema["properties"]
        assert collect["tags"] == {"type": "array", "items": {"type": "string"}}
        assert collect["limits"] == {"type": "object", "additionalProperties": {"type": "integer"}}
        assert collect["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None}
        if HAS_PYDANTIC:
            total = tools["total"]
            assert total.input_schema["$defs"]["Item"]["properties"]["price"]["description"] == "The price in euros"
            assert total.output_schema is not None and total.output_schema["title"] == "Item"
        assert tools["echo"].output_schema is None
        assert tools["unstructured"].output_schema is None
        assert "ctx" not in tools["progress"].input_schema["properties"]

    run(go())


def test_tools_return_structured_and_unstructured_results(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            result = await client.call_tool("add", {"a": 2, "b": 40})
            assert (result.data, result.text, result.is_error) == (42, "42", False)
            assert result.structured_content == {"result": 42}
            assert (await client.call_tool("add_async", {"a": 1.5, "b": 2})).data == 3.5
            assert (await client.call_tool("echo", {"text": "héllo"})).text == "héllo"
            assert (await client.call_tool("greet", {"name": "Bo", "greeting": "hi", "excited": True})).text == "hi, Bo!"
            person = {"name": "Ann", "age": 17, "address": {"street": "Main"}, "tags": ["x"]}
            result = await client.call_tool("describe", {"person": person, "color": "green"})
            assert result.structured_content == {"name": "Ann", "adult": False, "city": "Paris"}
            assert json.loads(result.text) == result.structured_content
            result = await client.call_tool("collect", {"tags": ["b", "a"], "limits": {"x": 1, "y": 2}})
            assert result.data == {"tags": ["a", "b"], "total": 3, "note": None}
            if HAS_PYDANTIC:
                result = await client.call_tool("total", {"item": {"name": "pen", "price": 1.5, "quantity": 2}})
                assert result.data == {"name": "pen", "price": 1.5, "quantity": 4}
            result = await client.call_tool("unstructured", {"n": 4})
            assert (result.text, result.structured_content) == ("40", None)
            image = (await client.call_tool("image")).content[0]
            assert isinstance(image, libmcp.ImageContent) and image.mime_type == "image/png"
            assert image.to_bytes().startswith(b"\x89PNG")
            mixed = (await client.call_tool("mixed")).content
            assert [type(b) for b in mixed] == [libmcp.TextContent, libmcp.ImageContent]
            whoami = (await client.call_tool("whoami")).data
            assert whoami == {"client": "libmcp-python", "protocol": "2025-11-25", "sampling": False}

    run(go())


def test_bad_arguments_are_rejected_by_the_schema(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            with pytest.raises(libmcp.ToolError) as caught:
                await client.call_tool("add", {"a": "two", "b": 2})
            assert "Invalid arguments for tool `add`" in str(caught.value)
            assert caught.value.result is not None and caught.value.result.is_error
            with pytest.raises(libmcp.ToolError, match="required"):
                await client.call_tool("add", {"a": 1})
            with pytest.raises(libmcp.ToolError, match="hey"):
                await client.call_tool("greet", {"name": "x", "greeting": "hey"})
            with pytest.raises(libmcp.ToolError):
                await client.call_tool("describe", {"person": {"name": "x", "age": "old"}})
            result = await client.call_tool("add", {"a": 1.5, "b": 2}, raise_on_error=False)
            assert result.is_error and "Invalid arguments" in result.text
            # Unknown arguments are ignored, as other SDKs do.
            assert (await client.call_tool("add", {"a": 1, "b": 2, "c": 3})).data == 3

    run(go())


def test_errors_raised_in_handlers(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            with pytest.raises(libmcp.ToolError) as caught:
                await client.call_tool("fail", {"message": "it broke"})
            assert caught.value.message == "it broke"
            with pytest.raises(libmcp.McpError) as rpc:
                await client.call_tool("fail_with_code", {"code": -32099, "message": "custom"})
            assert (rpc.value.code, rpc.value.message, rpc.value.data) == (-32099, "custom", {"why": "asked to"})
            assert not isinstance(rpc.value, libmcp.ToolError)
            with pytest.raises(libmcp.InvalidParams, match="no_such_tool"):
                await client.call_tool("no_such_tool", {})
            with pytest.raises(libmcp.InternalError, match="the resource is broken"):
                await client.read_resource("fail://resource")
            with pytest.raises(libmcp.ResourceNotFound) as missing:
                await client.read_resource("missing://x")
            assert missing.value.code == -32002 and missing.value.data == {"uri": "missing://x"}
            with pytest.raises(libmcp.InvalidParams, match="code"):
                await client.get_prompt("review", {})
            with pytest.raises(libmcp.InvalidParams):
                await client.read_resource("num://notanumber/double")
            await client.ping()  # the session survived every error

    run(go())


def test_progress_and_logging(make_client: Callable[..., libmcp.Client], recorder: Recorder) -> None:
    async def go() -> None:
        progress: List[libmcp.Progress] = []
        async with make_client(**recorder.options()) as client:
            await client.set_logging_level("debug")
            result = await client.call_tool("progress", {"steps": 3}, on_progress=progress.append)
            assert result.text == "did 3 steps"
            # Progress and logs sent before the result are delivered before it.
            assert [(p.progress, p.total, p.message) for p in progress] == [
                (1, 3, "step 1 of 3"),
                (2, 3, "step 2 of 3"),
                (3, 3, "step 3 of 3"),
            ]
            assert [m.data for m in recorder.logs] == ["step 1", "step 2", "step 3"]
            assert {m.level for m in recorder.logs} == {"info"}
            assert [n.method for n in recorder.notifications] == ["notifications/message"] * 3
            progress.clear()
            await client.call_tool("progress_sync", {"steps": 2}, on_progress=progress.append)
            assert [p.progress for p in progress] == [1, 2]
            await client.set_logging_level("warning")
            await client.call_tool("log", {"level": "info", "message": "hidden"})
            await client.call_tool("log", {"level": "error", "message": "shown"})
            assert [(m.level, m.data, m.logger) for m in recorder.logs[3:]] == [("error", "shown", "fixture")]

    run(go())


def test_async_progress_callbacks(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        seen: List[float] = []

        async def on_progress(p: libmcp.Progress) -> None:
            seen.append(p.progress)

        async with make_client() as client:
            await client.call_tool("progress", {"steps": 2}, on_progress=on_progress)
            for _ in range(100):
                if len(seen) == 2:
                    break
                await asyncio.sleep(0.01)
        assert seen == [1, 2]

    run(go())


def test_sampling_elicitation_and_roots(make_client: Callable[..., libmcp.Client], recorder: Recorder) -> None:
    async def go() -> None:
        async with make_client(**recorder.options()) as client:
            assert (await client.call_tool("whoami")).data["sampling"] is True
            result = await client.call_tool("sample", {"prompt": "Say hi"})
            assert result.text == "model test-model said: echo: Say hi"
            request = recorder.sampling[0]
            assert (request.max_tokens, request.system_prompt) == (100, "Be brief.")
            assert request.messages[0].role == "user"
            assert (await client.call_tool("sample_sync", {"prompt": "again"})).text.endswith("echo: again")
            result = await client.call_tool("elicit", {"message": "Who are you?"})
            assert result.text == "accept: {'username': 'ann', 'email': 'ann@example.com'}"
            schema = recorder.elicitation[0].requested_schema
            assert schema is not None and schema["required"] == ["username", "email"]
            assert (await client.call_tool("roots")).data == ["file:///workspace", "file:///data"]
            await client.set_roots(["file:///elsewhere"])
            assert (await client.call_tool("roots")).data == ["file:///elsewhere"]

    run(go())


def test_server_requests_need_the_client_capability(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            for tool, args in (("sample", {"prompt": "x"}), ("elicit", {"message": "x"}), ("roots", {})):
                with pytest.raises(libmcp.ToolError, match="does not support"):
                    await client.call_tool(tool, args)

    run(go())


def test_handler_failures_reach_the_server(make_client: Callable[..., libmcp.Client]) -> None:
    def refuse(params: libmcp.CreateMessageParams) -> str:
        raise libmcp.McpError("no model here", code=-1)

    async def go() -> None:
        async with make_client(on_sampling=refuse, on_elicitation=lambda p: None) as client:
            # The tool let the client's JSON-RPC error propagate: it is
            # answered as that error.
            with pytest.raises(libmcp.McpError, match="no model here") as caught:
                await client.call_tool("sample", {"prompt": "x"})
            assert caught.value.code == -1
            assert (await client.call_tool("elicit", {"message": "x"})).text == "decline: None"

    run(go())


def _cancelled(result: libmcp.CallToolResult) -> List[str]:
    return list(result.data)


def test_cancellation_reaches_the_handler(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            before = _cancelled(await client.call_tool("cancelled_requests"))
            for tool in ("sleep", "sleep_sync"):
                task = asyncio.ensure_future(client.call_tool(tool, {"seconds": 30}))
                await asyncio.sleep(0.3)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
            for _ in range(200):
                now = _cancelled(await client.call_tool("cancelled_requests"))[len(before):]
                if {x.split()[0] for x in now} >= {"sleep", "sleep_sync"}:
                    break
                await asyncio.sleep(0.02)
            assert {x.split()[0] for x in now} >= {"sleep", "sleep_sync"}, now
            assert (await client.call_tool("add", {"a": 1, "b": 1})).data == 2

    run(go())


def test_timeouts(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            with pytest.raises(libmcp.Timeout) as caught:
                await client.call_tool("sleep", {"seconds": 30}, timeout=0.2)
            assert isinstance(caught.value, TimeoutError)
            assert "timed out" in str(caught.value)
        # The client's timeout applies to every request, `initialize` too:
        # leave the server time to start.
        async with make_client(timeout=3) as client:
            with pytest.raises(libmcp.Timeout):
                await client.call_tool("sleep", {"seconds": 30})
            assert (await client.call_tool("sleep", {"seconds": 0.01})).text == "slept 0.01"

    run(go())


def test_messages_over_the_limit_fail_at_once(make_client: Callable[..., libmcp.Client], transport: str) -> None:
    """Over the 4 MiB message limit, both ways: the call fails at once with
    an error that says so (not at its timeout), and the session goes on."""

    async def go() -> None:
        async with make_client(timeout=30) as client:
            started = time.monotonic()
            with pytest.raises(libmcp.McpError) as caught:
                await client.call_tool("echo", {"text": "x" * ((4 << 20) + 1)})
            if transport == "stdio":
                assert caught.value.code == -32600
                assert "exceeds the limit of 4194304 bytes" in caught.value.message
            with pytest.raises(libmcp.McpError) as caught:
                await client.call_tool("big", {"megabytes": 5})
            if transport == "stdio":
                assert isinstance(caught.value, libmcp.TransportError)
                assert "larger than the message limit of 4194304 bytes" in caught.value.message
            assert time.monotonic() - started < 15
            assert (await client.call_tool("echo", {"text": "still here"})).text == "still here"

    run(go())


def test_resources(make_client: Callable[..., libmcp.Client], recorder: Recorder) -> None:
    async def go() -> None:
        async with make_client(**recorder.options()) as client:
            resources = {r.uri: r for r in await client.list_resources()}
            assert set(resources) >= {"text://static", "bin://pixel", "data://config"}
            assert resources["text://static"].description == "A static text."
            assert resources["bin://pixel"].mime_type == "image/png"
            templates = {t.uri_template: t for t in await client.list_resource_templates()}
            assert set(templates) == {"greeting://{name}", "num://{n}/double"}
            assert templates["greeting://{name}"].description == "A greeting for a name."
            text = (await client.read_resource("text://static")).contents[0]
            assert isinstance(text, libmcp.TextResourceContents)
            assert (text.uri, text.text, text.mime_type) == ("text://static", "static text", "text/plain")
            blob = (await client.read_resource("bin://pixel")).contents[0]
            assert isinstance(blob, libmcp.BlobResourceContents) and blob.to_bytes()[:4] == b"\x89PNG"
            config = (await client.read_resource("data://config")).contents[0]
            assert isinstance(config, libmcp.TextResourceContents)
            assert (json.loads(config.text), config.mime_type) == ({"debug": False, "level": 3}, "application/json")
            assert (await client.read_resource("greeting://zoe")).text == "Hello, zoe!"
            assert (await client.read_resource("num://21/double")).text == "42"
            await client.subscribe_resource("text://static")
            assert (await client.call_tool("touch", {"uri": "text://static"})).data == 1
            for _ in range(100):
                if any(n.method == "notifications/resources/updated" for n in recorder.notifications):
                    break
                await asyncio.sleep(0.01)
            updated = [n for n in recorder.notifications if n.method == "notifications/resources/updated"]
            assert updated and updated[0].params == {"uri": "text://static"}
            await client.unsubscribe_resource("text://static")
            assert (await client.call_tool("touch", {"uri": "text://static"})).data == 0

    run(go())


def test_prompts_and_completions(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            prompts = {p.name: p for p in await client.list_prompts()}
            review = prompts["review"]
            assert review.description == "Asks for a code review."
            assert review.arguments is not None
            assert [(a.name, a.description, a.required) for a in review.arguments] == [
                ("code", "The code to review.", True),
                ("language", "Its language.", False),
            ]
            assert prompts["conversation"].title == "A conversation"
            result = await client.get_prompt("review", {"code": "x = 1"})
            assert result.description == "Asks for a code review."
            message = result.messages[0]
            assert message.role == "user"
            assert isinstance(message.content, libmcp.TextContent)
            assert message.content.text == "Review this python code:\nx = 1"
            result = await client.get_prompt("conversation", {"topic": "owls", "turns": 2})
            assert [m.role for m in result.messages] == ["user", "assistant", "user", "assistant"]
            completion = await client.complete_prompt("review", "language", "p")
            assert (completion.values, completion.total, completion.has_more) == (["python", "pascal"], 2, False)
            assert (await client.complete_resource("greeting://{name}", "name", "al")).values == ["alice", "albert"]
            assert (await client.complete_prompt("conversation", "topic", "x")).values == []

    run(go())


def test_concurrent_calls(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            results = await asyncio.gather(*(client.call_tool("add_async", {"a": i, "b": 0.5}) for i in range(50)))
            assert [r.data for r in results] == [i + 0.5 for i in range(50)]
            # A slow call does not hold up the others.
            slow = asyncio.ensure_future(client.call_tool("sleep", {"seconds": 1}))
            loop = asyncio.get_running_loop()
            started = loop.time()
            assert (await client.call_tool("add", {"a": 1, "b": 2})).data == 3
            assert loop.time() - started < 0.9
            assert (await slow).text == "slept 1.0"

    run(go())


def test_raw_requests(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with make_client() as client:
            raw = await client.request("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
            assert raw["structuredContent"] == {"result": 3}
            with pytest.raises(libmcp.MethodNotFound):
                await client.request("no/such/method")

    run(go())


def test_using_a_closed_client_raises(make_client: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        client = make_client()
        with pytest.raises(libmcp.ConnectionClosed):
            await client.ping()
        await client.connect()
        await client.close()
        await client.close()
        with pytest.raises(libmcp.ConnectionClosed):
            await client.list_tools()

    run(go())


def test_image_content_round_trip() -> None:
    image = libmcp.ImageContent.from_bytes(b"abc", "image/x")
    assert image.data == base64.b64encode(b"abc").decode()
    assert libmcp.ImageContent.from_dict(image.to_dict()) == image
