"""The client talks both revisions with the same user code: by default
(`protocol="auto"`) it speaks 2026-07-28 to servers that do, and its
sampling and elicitation handlers answer the input-required rounds of
2026-07-28 requests exactly as they answer 2025-11-25 server requests.
Against our Python fixture server and against `mcp serve everything`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Dict

import pytest

import libmcp
from conftest import Recorder, run, server_command

ROOT = Path(__file__).resolve().parents[3]
MCP_BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "mcp"

#: What each `protocol=` agrees with a server that speaks both revisions.
REVISIONS = {"auto": "2026-07-28", "2026-07-28": "2026-07-28", "legacy": "2025-11-25", "2025-11-25": "2025-11-25"}


@pytest.fixture(params=sorted(REVISIONS))
def protocol(request: Any) -> str:
    return request.param


@pytest.fixture
def connect(transport: str, fixture_http: str) -> Callable[..., libmcp.Client]:
    def make(**options: Any) -> libmcp.Client:
        if transport == "stdio":
            return libmcp.Client.stdio(server_command(), **options)
        return libmcp.Client.http(fixture_http, **options)

    return make


def test_the_default_is_auto_and_speaks_2026(connect: Callable[..., libmcp.Client]) -> None:
    async def go() -> None:
        async with connect() as client:
            assert client.protocol_version == "2026-07-28"
            assert (await client.call_tool("add", {"a": 2, "b": 40})).data == 42

    run(go())


def test_fixture_server_at_each_revision(
    connect: Callable[..., libmcp.Client], protocol: str, recorder: Recorder
) -> None:
    async def go() -> None:
        async with connect(protocol=protocol, **recorder.options()) as client:
            assert client.protocol_version == REVISIONS[protocol]
            assert client.server_info.name == "libmcp-fixture"
            assert "add" in {t.name for t in await client.list_tools()}
            assert (await client.call_tool("add", {"a": 2, "b": 40})).data == 42
            # The same handlers answer a server request (2025-11-25) and an
            # input-required round (2026-07-28).
            result = await client.call_tool("sample", {"prompt": "Say hi"})
            assert result.text == "model test-model said: echo: Say hi"
            assert recorder.sampling[0].messages[0].role == "user"
            result = await client.call_tool("elicit", {"message": "Who are you?"})
            assert result.text == "accept: {'username': 'ann', 'email': 'ann@example.com'}"
            assert recorder.elicitation[0].message == "Who are you?"
            assert (await client.read_resource("greeting://zoe")).text == "Hello, zoe!"
            prompt = await client.get_prompt("review", {"code": "x = 1"})
            assert prompt.messages[0].content.text == "Review this python code:\nx = 1"

    run(go())


def test_sync_client_speaks_2026() -> None:
    with libmcp.SyncClient.stdio(server_command(), on_sampling=Recorder().on_sampling) as client:
        assert client.protocol_version == "2026-07-28"
        assert client.call_tool("sample", {"prompt": "hi"}).text == "model test-model said: echo: hi"


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_mcp_serve_everything(protocol: str) -> None:
    if not MCP_BIN.exists():
        pytest.fail(f"{MCP_BIN} is missing: cargo build -p mcp-cli --bin mcp")
    asked: Dict[str, Any] = {}

    def on_sampling(params: libmcp.CreateMessageParams) -> str:
        asked["sampling"] = params.messages[0].text
        return "Hello from Python"

    async def on_elicitation(params: libmcp.ElicitParams) -> Dict[str, Any]:
        asked["elicitation"] = params.message
        return {"username": "ann", "email": "ann@example.com"}

    async def go() -> None:
        client = libmcp.Client.stdio(
            [str(MCP_BIN), "serve", "everything"],
            protocol=protocol,
            on_sampling=on_sampling,
            on_elicitation=on_elicitation,
        )
        async with client:
            assert client.protocol_version == ("2026-07-28" if protocol == "auto" else protocol)
            assert client.server_info.name == "mcp-everything"
            assert (await client.call_tool("add_numbers", {"a": 2, "b": 3})).text == "5"
            result = await client.call_tool("test_sampling", {"prompt": "Say hello"})
            assert result.text == "LLM response: Hello from Python"
            assert asked["sampling"] == "Say hello"
            result = await client.call_tool("test_elicitation", {"message": "Who?"})
            assert result.text.startswith("User response: action=accept, content={")
            assert '"username":"ann"' in result.text and '"email":"ann@example.com"' in result.text
            assert asked["elicitation"] == "Who?"
            text = (await client.read_resource("test://static-text")).text
            assert text == "This is the content of the static text resource."
            prompt = await client.get_prompt("test_prompt_with_arguments", {"arg1": "x", "arg2": "y"})
            assert "arg1='x', arg2='y'" in prompt.messages[0].content.text

    run(go())


def test_bad_protocol_values() -> None:
    with pytest.raises(ValueError, match='"auto", "legacy" or one of .*2025-11-25'):
        libmcp.Client.stdio(server_command(), protocol="newest")
    with pytest.raises(ValueError, match="not both"):
        libmcp.Client.stdio(server_command(), protocol="legacy", protocol_version="2025-06-18")


def test_protocol_version_still_pins() -> None:
    async def go() -> None:
        async with libmcp.Client.stdio(server_command(), protocol_version="2025-06-18") as client:
            assert client.protocol_version == "2025-06-18"

    run(go())
