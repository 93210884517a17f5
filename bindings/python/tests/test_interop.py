"""Interoperability with the official MCP Python SDK (PyPI `mcp`): its
client against our server, and our client against its MCPServer (formerly
FastMCP), over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any, Iterator, List

import pytest

import libmcp
from conftest import (
    LIBMCP_SERVER,
    OFFICIAL_CLIENT,
    OFFICIAL_SERVER,
    PYTHON,
    child_env,
    free_port,
    run,
    stop_process,
    wait_for_port,
)

# The interop suite needs the official SDK; a missing one is a failure, not a skip.
import mcp  # noqa: F401,E402

CHECK_COUNT = 11


def run_official_client(*args: str) -> str:
    proc = subprocess.run(
        [PYTHON, str(OFFICIAL_CLIENT), *args],
        capture_output=True,
        text=True,
        timeout=180,
        env=child_env(),
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    assert proc.returncode == 0, f"{summary}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return summary


@pytest.fixture
def libmcp_http_server() -> Iterator[str]:
    """Our fixture server over HTTP, in its own process."""
    port = free_port()
    proc = subprocess.Popen(
        [PYTHON, str(LIBMCP_SERVER), "http", str(port)], stdout=subprocess.PIPE, text=True, env=child_env()
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url == f"http://127.0.0.1:{port}/mcp", url
        yield url
    finally:
        stop_process(proc)


def test_official_client_against_our_server_over_stdio() -> None:
    summary = run_official_client("stdio", PYTHON, str(LIBMCP_SERVER), "stdio")
    assert summary == f"official client: {CHECK_COUNT} passed, 0 failed"


def test_official_client_against_our_server_over_http(libmcp_http_server: str) -> None:
    summary = run_official_client("--skip", "cancellation", "http", libmcp_http_server)
    assert summary == f"official client: {CHECK_COUNT - 1} passed, 0 failed"


def test_official_client_cancels_over_http(libmcp_http_server: str) -> None:
    summary = run_official_client("--only", "cancellation", "http", libmcp_http_server)
    assert summary == "official client: 1 passed, 0 failed"


@pytest.fixture(params=["stdio", "http"])
def official_server(request: Any) -> Iterator[libmcp.Client]:
    """A client (not connected) of the official SDK's server."""
    options: dict = {
        "on_sampling": lambda p: libmcp.CreateMessageResult(
            role="assistant", content=libmcp.TextContent(f"answer to {p.messages[0].text}"), model="ours"
        ),
        "on_elicitation": lambda p: {"username": "libmcp", "email": "libmcp@example.com"},
        "roots": ["file:///ours"],
        "on_stderr": lambda line: None,
        # test_our_client_against_the_official_server checks 2025-11-25
        # behaviour (ping, log notifications, cancellation); the revision
        # test below overrides it.
        "protocol": "2025-11-25",
    }
    if request.param == "stdio":
        yield libmcp.Client.stdio([PYTHON, str(OFFICIAL_SERVER), "stdio"], **options)
        return
    port = free_port()
    proc = subprocess.Popen(
        [PYTHON, str(OFFICIAL_SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=child_env(),
    )
    try:
        wait_for_port(port)
        options.pop("on_stderr")
        yield libmcp.Client.http(f"http://127.0.0.1:{port}/mcp", **options)
    finally:
        stop_process(proc)


def test_our_client_against_the_official_server(official_server: libmcp.Client) -> None:
    async def go() -> None:
        logs: List[libmcp.LogMessage] = []
        progress: List[libmcp.Progress] = []
        official_server._on_log = logs.append
        async with official_server as client:
            assert client.server_info.name == "official-fixture"
            assert client.server_info.version == "9.9.9"
            assert client.protocol_version == "2025-11-25"
            assert client.instructions == "The official SDK's server."
            await client.ping()
            tools = {t.name: t for t in await client.list_tools()}
            assert tools["add"].input_schema["required"] == ["a", "b"]
            assert "Point" in tools["midpoint"].input_schema["$defs"]
            result = await client.call_tool("add", {"a": 2, "b": 3})
            assert (result.text, result.data) == ("5", 5)
            point = await client.call_tool("midpoint", {"p": {"x": 0, "y": 0}, "q": {"x": 4, "y": 2}})
            assert point.data == {"x": 2.0, "y": 1.0}
            result = await client.call_tool("progress", {"steps": 3}, on_progress=progress.append)
            assert result.text == "did 3 steps"
            assert [(p.progress, p.total, p.message) for p in progress] == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
            for _ in range(200):
                if len(logs) >= 3:
                    break
                await asyncio.sleep(0.01)
            assert [m.data for m in logs] == ["step 1", "step 2", "step 3"]
            assert (await client.call_tool("sample", {"prompt": "why?"})).text == "model ours said: answer to why?"
            assert (await client.call_tool("elicit", {"message": "who?"})).text == "accept: libmcp <libmcp@example.com>"
            assert (await client.call_tool("roots")).data == ["file:///ours"]
            with pytest.raises(libmcp.ToolError, match="fail"):
                await client.call_tool("fail", {"message": "boom"})
            with pytest.raises(libmcp.ToolError, match="Input should be a valid integer|validation"):
                await client.call_tool("add", {"a": "x", "b": 1})
            with pytest.raises(libmcp.McpError):
                await client.call_tool("no_such_tool", {})
            with pytest.raises(libmcp.Timeout):
                await client.call_tool("sleep", {"seconds": 30}, timeout=0.3)
            task = asyncio.ensure_future(client.call_tool("sleep", {"seconds": 30}))
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(200):
                cancelled = (await client.call_tool("cancelled_requests")).data
                if len(cancelled) >= 2:
                    break
                await asyncio.sleep(0.02)
            assert cancelled == ["sleep", "sleep"]
            assert [r.uri for r in await client.list_resources()] == ["text://hello"]
            assert (await client.read_resource("text://hello")).text == "hello from the SDK"
            assert [t.uri_template for t in await client.list_resource_templates()] == ["user://{name}/profile"]
            assert (await client.read_resource("user://ann/profile")).text == "profile of ann"
            prompt = await client.get_prompt("review", {"code": "x"})
            assert isinstance(prompt.messages[0].content, libmcp.TextContent)
            assert prompt.messages[0].content.text == "Review this python code:\nx"
            assert (await client.complete_resource("user://{name}/profile", "name", "an")).values == ["ann", "andy"]
            assert (await client.complete_prompt("review", "language", "r")).values == ["rust"]

    run(go(), timeout=120)


def test_our_sync_client_against_the_official_server() -> None:
    with libmcp.SyncClient.stdio([PYTHON, str(OFFICIAL_SERVER), "stdio"], on_stderr=lambda line: None) as client:
        assert client.call_tool("add", {"a": 1, "b": 1}).data == 2
        assert client.call_tool("echo", {"text": "hi"}).text == "hi"


def test_our_client_against_the_official_server_at_2026(official_server: libmcp.Client) -> None:
    """The default (`auto`) agrees on 2026-07-28 with the official SDK.
    (Its fixture's `sample` and `elicit` tools send server requests, which
    that SDK cannot do under 2026-07-28: "no back-channel"; the input-required
    rounds are covered against our servers in test_client_revisions.py.)"""
    official_server._settings["protocol"] = "auto"

    async def go() -> None:
        async with official_server as client:
            assert client.protocol_version == "2026-07-28"
            assert client.server_info.name == "official-fixture"
            assert (await client.call_tool("add", {"a": 2, "b": 3})).data == 5
            assert (await client.read_resource("user://ann/profile")).text == "profile of ann"
            prompt = await client.get_prompt("review", {"code": "x"})
            assert prompt.messages[0].content.text == "Review this python code:\nx"

    run(go(), timeout=120)
