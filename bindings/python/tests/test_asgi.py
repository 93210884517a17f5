"""`Server.streamable_http_app()` under uvicorn: mounted at `/srv` of a
FastAPI app beside its own routes and an `@app.middleware("http")`, served
on the host's event loop (a tool uses an object the server's lifespan bound
to that loop), both revisions with our client and the official SDK's, the
lifespan entered on first request or from forwarded lifespan events, and a
client that goes away cancelling its request.

uvicorn runs in the test's own event loop on 127.0.0.1 with a free port and
is stopped at the end of each test."""

from __future__ import annotations

import asyncio
import contextlib
import json
import textwrap
import threading
import urllib.error
import urllib.request
from typing import Any, AsyncIterator, Dict, List, Tuple

import pytest

import libmcp
from conftest import PYTHON, free_port, run, wait_for_port

uvicorn = pytest.importorskip("uvicorn")
fastapi = pytest.importorskip("fastapi")

from mcp.client.client import Client as OfficialClient  # noqa: E402


class Fixture:
    """A server whose lifespan binds a queue and a lock to the serving loop,
    and records what happened."""

    def __init__(self) -> None:
        self.events: List[str] = []
        self.loop: Any = None
        self.cancelled = 0
        self.hanging = 0

        @contextlib.asynccontextmanager
        async def lifespan(server: libmcp.Server) -> AsyncIterator[Dict[str, Any]]:
            self.loop = asyncio.get_running_loop()
            self.events.append("enter")
            # Bound to this loop: using it on another one fails.
            yield {"queue": asyncio.Queue(), "lock": asyncio.Lock()}
            self.events.append("exit")

        server = libmcp.Server("asgi", lifespan=lifespan)
        self.server = server

        @server.tool()
        async def echo(text: str) -> str:
            """Passes the text through the lifespan's queue."""
            resources = server.lifespan_context
            async with resources["lock"]:
                await resources["queue"].put(text)
                return await resources["queue"].get()

        @server.tool()
        async def where() -> Dict[str, Any]:
            """Where it runs."""
            return {"on_host_loop": asyncio.get_running_loop() is self.loop}

        @server.tool()
        def where_sync() -> Dict[str, Any]:
            """Where a plain function runs."""
            return {"thread": threading.current_thread().name}

        @server.tool()
        async def hang() -> str:
            """Waits until cancelled."""
            self.hanging += 1
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            return "never"


def host_app(fixture: Fixture, **options: Any) -> Any:
    app = fastapi.FastAPI()

    @app.get("/hello")
    def hello() -> Dict[str, str]:
        return {"hello": "world"}

    @app.middleware("http")
    async def stamp(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-host-middleware"] = "seen"
        return response

    app.mount("/srv", fixture.server.streamable_http_app(**options))
    return app


@contextlib.asynccontextmanager
async def serving(app: Any, lifespan: str = "auto") -> AsyncIterator[str]:
    """uvicorn serving `app` in this loop; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan))
    task = asyncio.create_task(server.serve())
    try:
        for _ in range(500):
            if server.started or task.done():
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 30)


def fetch(url: str, body: Any = None, headers: Dict[str, str] = {}) -> Tuple[int, Dict[str, str], bytes]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as e:
        return e.code, {k.lower(): v for k, v in e.headers.items()}, e.read()


def test_mounted_in_fastapi_beside_routes_and_middleware() -> None:
    fixture = Fixture()

    async def go() -> None:
        async with serving(host_app(fixture)) as base:
            status, headers, body = await asyncio.to_thread(fetch, f"{base}/hello")
            assert (status, json.loads(body)) == (200, {"hello": "world"})
            assert headers["x-host-middleware"] == "seen"
            assert fixture.events == []  # nothing started before the first MCP request

            for protocol in ("2025-11-25", "2026-07-28"):
                async with libmcp.Client.http(f"{base}/srv/mcp", protocol=protocol) as client:
                    assert client.protocol_version == protocol
                    assert (await client.call_tool("echo", {"text": protocol})).text == protocol
                    assert (await client.call_tool("where")).data == {"on_host_loop": True}
                    thread = (await client.call_tool("where_sync")).data["thread"]
                    assert thread != threading.current_thread().name  # a worker thread
            assert fixture.events == ["enter"]
            assert fixture.loop is asyncio.get_running_loop()

            # The host's middleware wraps the mounted app's answers too.
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            mcp_headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
            status, headers, _ = await asyncio.to_thread(fetch, f"{base}/srv/mcp", ping, mcp_headers)
            assert status == 400  # no session: the engine's own answer
            assert headers["x-host-middleware"] == "seen"
            # Only /mcp inside the mount is the endpoint.
            status, _, _ = await asyncio.to_thread(fetch, f"{base}/srv/other")
            assert status == 404
            status, _, _ = await asyncio.to_thread(fetch, f"{base}/mcp")
            assert status == 404
        # Started by a request (Starlette forwards no lifespan to mounts):
        # the lifespan is not exited.
        assert fixture.events == ["enter"]

    run(go())


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_the_official_client_against_the_mounted_app(mode: str) -> None:
    fixture = Fixture()

    async def go() -> None:
        async with serving(host_app(fixture)) as base:
            async with OfficialClient(f"{base}/srv/mcp", mode=mode) as client:
                assert client.protocol_version == ("2025-11-25" if mode == "legacy" else mode)
                names = {tool.name for tool in (await client.list_tools()).tools}
                assert {"echo", "where", "hang"} <= names
                result = await client.call_tool("echo", {"text": "from the SDK"})
                assert result.content[0].text == "from the SDK"
                result = await client.call_tool("where", {})
                assert result.structured_content == {"on_host_loop": True}

    run(go())


def test_lifespan_events_forwarded_start_and_stop_the_app() -> None:
    """Served as the top-level app, uvicorn forwards lifespan events: the
    lifespan is entered at startup (before any request) and exited at
    shutdown."""
    fixture = Fixture()
    app = fixture.server.streamable_http_app()

    async def go() -> None:
        async with serving(app, lifespan="on") as base:
            assert fixture.events == ["enter"]
            async with libmcp.Client.http(f"{base}/mcp") as client:
                assert (await client.call_tool("echo", {"text": "x"})).text == "x"
        assert fixture.events == ["enter", "exit"]

    run(go())


def test_running_in_the_hosts_lifespan() -> None:
    """A host that does not forward lifespan events starts and stops the
    app in its own lifespan with `running()`."""
    fixture = Fixture()
    mcp_app = fixture.server.streamable_http_app()
    app = fastapi.FastAPI(lifespan=lambda _app: mcp_app.running())
    app.mount("/srv", mcp_app)

    async def go() -> None:
        async with serving(app, lifespan="on") as base:
            assert fixture.events == ["enter"]
            async with libmcp.Client.http(f"{base}/srv/mcp") as client:
                assert (await client.call_tool("where")).data == {"on_host_loop": True}
        assert fixture.events == ["enter", "exit"]

    run(go())


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_a_client_going_away_cancels_its_request(protocol: str) -> None:
    """Under 2026-07-28 our client cancels by closing the response stream
    (the app sees `http.disconnect`); in a 2025-11-25 session with
    `cancel_on_disconnect` a closed connection cancels too."""
    fixture = Fixture()

    async def go() -> None:
        async with serving(host_app(fixture, cancel_on_disconnect=True)) as base:
            url = f"{base}/srv/mcp"
            if protocol == "2026-07-28":
                async with libmcp.Client.http(url, protocol=protocol) as client:
                    call = asyncio.create_task(client.call_tool("hang"))
                    await asyncio.sleep(0.3)
                    assert not call.done()
                    call.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await call
                    await _until(lambda: fixture.cancelled == 1)
                    assert (await client.call_tool("echo", {"text": "still"})).text == "still"
            else:
                await _disconnect_mid_call(url, lambda: fixture.hanging == 1)
                await _until(lambda: fixture.cancelled == 1)

    run(go())


async def _disconnect_mid_call(url: str, running: Any) -> None:
    """Initializes a 2025-11-25 session over raw HTTP, POSTs `tools/call
    hang` and closes the connection before the answer."""
    host_port = url.split("//", 1)[1].split("/", 1)[0]
    host, port = host_port.split(":")
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    }
    status, answer_headers, _ = await asyncio.to_thread(fetch, url, init, headers)
    assert status == 200
    session = answer_headers["mcp-session-id"]
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}
    body = json.dumps(call).encode()
    reader, writer = await asyncio.open_connection(host, int(port))
    path = "/" + url.split("//", 1)[1].split("/", 1)[1]
    head = (
        f"POST {path} HTTP/1.1\r\nhost: {host_port}\r\ncontent-type: application/json\r\n"
        f"accept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\n"
        f"mcp-protocol-version: 2025-11-25\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
    await _until(running)
    writer.close()
    with contextlib.suppress(Exception):
        await writer.wait_closed()


async def _until(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    assert condition()


def test_app_options_are_checked() -> None:
    server = libmcp.Server("x")
    with pytest.raises(ValueError, match="path"):
        server.streamable_http_app(path="mcp")

    async def go() -> None:
        app = server.streamable_http_app(max_sessions=0)
        with pytest.raises(ValueError, match="max_sessions"):
            await app.start()

    run(go())


def test_lifespan_around_run_http_async() -> None:
    fixture = Fixture()

    async def go() -> None:
        port = free_port()
        task = asyncio.create_task(fixture.server.run_http_async("127.0.0.1", port))
        try:
            await asyncio.to_thread(wait_for_port, port)
            assert fixture.events == ["enter"]
            async with libmcp.Client.http(f"http://127.0.0.1:{port}/mcp") as client:
                assert (await client.call_tool("echo", {"text": "x"})).text == "x"
                assert (await client.call_tool("where")).data == {"on_host_loop": True}
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        assert fixture.events == ["enter", "exit"]
        assert fixture.server.lifespan_context is None

    run(go())


def test_lifespan_around_run_stdio() -> None:
    """A blocking `run_stdio()` enters the lifespan on the server's own loop
    thread, where its coroutine handlers run."""
    script = textwrap.dedent(
        """
        import asyncio, contextlib, libmcp

        @contextlib.asynccontextmanager
        async def lifespan(server):
            yield {"loop": asyncio.get_running_loop(), "lock": asyncio.Lock()}

        server = libmcp.Server("stdio-lifespan", lifespan=lifespan)

        @server.tool()
        async def on_lifespan_loop() -> bool:
            async with server.lifespan_context["lock"]:
                return asyncio.get_running_loop() is server.lifespan_context["loop"]

        server.run_stdio()
        """
    )

    async def go() -> None:
        async with libmcp.Client.stdio([PYTHON, "-c", script], inherit_env=True) as client:
            assert (await client.call_tool("on_lifespan_loop")).data is True

    run(go())
