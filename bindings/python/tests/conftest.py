"""Shared fixtures: paths, a fresh event loop per test, the fixture server
(as a subprocess over stdio, in this process over HTTP) and clients of it."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Awaitable, Callable, Dict, Iterator, List, TypeVar

import pytest

import libmcp

HERE = Path(__file__).resolve().parent
LIBMCP_SERVER = HERE / "servers" / "libmcp_server.py"
OFFICIAL_SERVER = HERE / "official" / "official_server.py"
OFFICIAL_CLIENT = HERE / "official" / "official_client.py"
PYTHON = sys.executable

sys.path.insert(0, str(HERE / "servers"))

T = TypeVar("T")

#: Longest any single test's asyncio part may take.
TEST_TIMEOUT_S = 60


def run(coro: Awaitable[T], timeout: float = TEST_TIMEOUT_S) -> T:
    """Runs a coroutine on a new event loop, bounded in time."""
    return asyncio.run(asyncio.wait_for(coro, timeout))  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port} after {timeout} s")


def stop_process(proc: "subprocess.Popen[Any]") -> None:
    """Stops a child by PID: SIGTERM, then SIGKILL; always reaped."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def server_command() -> List[str]:
    return [PYTHON, str(LIBMCP_SERVER), "stdio"]


class Recorder:
    """What the server asked the client for, and what it sent."""

    def __init__(self) -> None:
        self.sampling: List[libmcp.CreateMessageParams] = []
        self.elicitation: List[libmcp.ElicitParams] = []
        self.notifications: List[libmcp.Notification] = []
        self.logs: List[libmcp.LogMessage] = []

    def on_sampling(self, params: libmcp.CreateMessageParams) -> libmcp.CreateMessageResult:
        self.sampling.append(params)
        return libmcp.CreateMessageResult(
            role="assistant", content=libmcp.TextContent(f"echo: {params.messages[0].text}"), model="test-model"
        )

    async def on_elicitation(self, params: libmcp.ElicitParams) -> Dict[str, Any]:
        self.elicitation.append(params)
        return {"username": "ann", "email": "ann@example.com"}

    def options(self) -> Dict[str, Any]:
        return {
            "on_sampling": self.on_sampling,
            "on_elicitation": self.on_elicitation,
            "roots": ["file:///workspace", libmcp.Root("file:///data", name="data")],
            "on_notification": self.notifications.append,
            "on_log": self.logs.append,
            "name": "pytest-client",
        }


@pytest.fixture(scope="session")
def fixture_http() -> Iterator[str]:
    """The fixture server over HTTP, in this process; yields its URL."""
    import libmcp_server

    with libmcp_server.server.start_http("127.0.0.1", 0) as running:
        assert running.url is not None
        yield running.url


@pytest.fixture(params=["stdio", "http"])
def transport(request: Any) -> str:
    return request.param


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


def pin_2025(options: Dict[str, Any]) -> None:
    if "protocol_version" not in options:
        options.setdefault("protocol", "2025-11-25")


@pytest.fixture
def make_client(transport: str, fixture_http: str) -> Callable[..., libmcp.Client]:
    """Makes an (unconnected) async client of the fixture server, pinned to
    2025-11-25 (the tests that use it check that revision's behaviour:
    `initialize`, subscriptions, server requests; test_client_revisions.py
    covers the default, 2026-07-28)."""

    def make(**options: Any) -> libmcp.Client:
        pin_2025(options)
        if transport == "stdio":
            return libmcp.Client.stdio(server_command(), **options)
        return libmcp.Client.http(fixture_http, **options)

    return make


@pytest.fixture
def make_sync_client(transport: str, fixture_http: str) -> Callable[..., libmcp.SyncClient]:
    """Makes an (unconnected) sync client of the fixture server, pinned to
    2025-11-25 like `make_client`."""

    def make(**options: Any) -> libmcp.SyncClient:
        pin_2025(options)
        if transport == "stdio":
            return libmcp.SyncClient.stdio(server_command(), **options)
        return libmcp.SyncClient.http(fixture_http, **options)

    return make


def child_env() -> Dict[str, str]:
    env = dict(os.environ)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env
