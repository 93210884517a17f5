"""The synchronous client, the GIL and Ctrl-C, servers started and
stopped in the background, and tools added while serving."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any, Callable, Dict, List, Optional

import pytest

import libmcp
from conftest import (
    LIBMCP_SERVER,
    PYTHON,
    Recorder,
    child_env,
    free_port,
    run,
    server_command,
    stop_process,
    wait_for_port,
)


def test_sync_client(make_sync_client: Callable[..., libmcp.SyncClient], recorder: Recorder) -> None:
    with make_sync_client(**recorder.options()) as client:
        assert client.server_info.name == "libmcp-fixture"
        client.ping()
        assert {t.name for t in client.list_tools()} >= {"add", "sample", "progress"}
        assert client.call_tool("add", {"a": 20, "b": 22}).data == 42
        progress: List[libmcp.Progress] = []
        client.set_logging_level("info")
        assert client.call_tool("progress", {"steps": 2}, on_progress=progress.append).text == "did 2 steps"
        assert [p.progress for p in progress] == [1, 2]
        assert [m.data for m in recorder.logs] == ["step 1", "step 2"]
        assert client.call_tool("sample", {"prompt": "yo"}).text == "model test-model said: echo: yo"
        assert client.call_tool("elicit", {"message": "?"}).text.startswith("accept:")
        assert client.call_tool("roots").data == ["file:///workspace", "file:///data"]
        with pytest.raises(libmcp.ToolError):
            client.call_tool("add", {"a": "x", "b": 1})
        with pytest.raises(libmcp.Timeout):
            client.call_tool("sleep", {"seconds": 30}, timeout=0.2)
        assert client.read_resource("greeting://sync").text == "Hello, sync!"
        assert client.get_prompt("review", {"code": "y"}).messages[0].role == "user"
        assert client.complete_prompt("review", "language", "r").values == ["rust"]
        assert [r.uri for r in client.list_resources()][0] == "text://static"
        assert len(client.list_resource_templates()) == 2
        assert len(client.list_prompts()) == 2
    with pytest.raises(libmcp.ConnectionClosed):
        client.ping()


def test_the_gil_is_released_while_waiting(make_sync_client: Callable[..., libmcp.SyncClient]) -> None:
    ticks = 0
    stop = threading.Event()

    def spin() -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            time.sleep(0.001)

    with make_sync_client() as client:
        thread = threading.Thread(target=spin)
        thread.start()
        try:
            client.call_tool("sleep", {"seconds": 0.5})
        finally:
            stop.set()
            thread.join(5)
    # The other thread ran all along (about 500 ticks if it never waited).
    assert ticks > 50


def test_pending_result_timeout(make_sync_client: Callable[..., libmcp.SyncClient]) -> None:
    with make_sync_client() as client:
        pending = client._call_tool("sleep", {"seconds": 0.5}, None, None, True)
        with pytest.raises(TimeoutError):
            pending.result(timeout=0.05)
        assert not pending.done()
        assert pending.result(timeout=10).text == "slept 0.5"


CTRL_C_SCRIPT = textwrap.dedent(
    """
    import sys, time
    import libmcp
    with libmcp.SyncClient.stdio([sys.executable, sys.argv[1], "stdio"]) as client:
        print("connected", flush=True)
        started = time.monotonic()
        try:
            client.call_tool("sleep", {"seconds": 60})
        except KeyboardInterrupt:
            print("interrupted %.1f" % (time.monotonic() - started), flush=True)
        # The call was cancelled on the wire; the session goes on.
        for _ in range(200):
            if client.call_tool("cancelled_requests").data:
                break
            time.sleep(0.02)
        print("server saw", client.call_tool("cancelled_requests").data, flush=True)
    """
)


def test_ctrl_c_interrupts_a_blocking_call() -> None:
    proc = subprocess.Popen(
        [PYTHON, "-c", CTRL_C_SCRIPT, str(LIBMCP_SERVER)],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
        # Let Python install its SIGINT handler even if ours ignores SIGINT.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "connected"
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        stop_process(proc)
    lines = out.splitlines()
    assert lines[0].startswith("interrupted "), out
    assert float(lines[0].split()[1]) < 5
    assert lines[1].startswith("server saw ['sleep "), out
    assert proc.returncode == 0


def test_background_server_in_process() -> None:
    server = libmcp.Server("dynamic", version="0.0.1")

    @server.tool
    def first() -> str:
        """The first tool."""
        return "one"

    notifications: List[str] = []
    with server.start_http() as running:
        assert running.url is not None and running.port
        assert running.url == f"http://127.0.0.1:{running.port}/mcp"
        # A 2025-11-25 session: list-changed notifications come unasked.
        with libmcp.SyncClient.http(
            running.url, protocol="2025-11-25", on_notification=lambda n: notifications.append(n.method)
        ) as client:
            assert [t.name for t in client.list_tools()] == ["first"]

            @server.tool(name="second", description="Added while serving.")
            async def added(x: int) -> int:
                return x * 2

            for _ in range(200):
                if "notifications/tools/list_changed" in notifications:
                    break
                time.sleep(0.01)
            assert "notifications/tools/list_changed" in notifications
            tools = {t.name: t for t in client.list_tools()}
            assert tools["second"].description == "Added while serving."
            assert client.call_tool("second", {"x": 21}).data == 42
            assert server.remove_tool("second") is True
            assert [t.name for t in client.list_tools()] == ["first"]
    # Stopped: nothing listens any more.
    with pytest.raises((libmcp.ConnectionClosed, libmcp.TransportError, libmcp.McpError)):
        libmcp.SyncClient.http(running.url, timeout=5).connect()


def test_an_idle_server_uses_no_cpu() -> None:
    """Handler threads and the runtime wait for the next call by spinning
    for a moment only (on more than one CPU): once calls stop, the process
    sleeps."""
    server = libmcp.Server("idle", version="0.0.1")

    @server.tool
    def echo(text: str) -> str:
        """Returns its text."""
        return text

    with server.start_http(json_response=True) as running:
        assert running.url is not None
        with libmcp.SyncClient.http(running.url, protocol="2025-11-25") as client:
            for i in range(300):
                assert client.call_tool("echo", {"text": str(i)}).text == str(i)
            time.sleep(0.05)
            used = time.process_time()
            time.sleep(0.5)
            used = time.process_time() - used
    # A thread that kept spinning would use the whole half second.
    assert used < 0.1, f"{used:.3f} s of CPU in 0.5 s without calls"


def test_run_http_async_stops_when_cancelled() -> None:
    server = libmcp.Server("async-runner")

    @server.tool()
    def ping() -> str:
        return "pong"

    async def go() -> None:
        from conftest import free_port

        port = free_port()
        task = asyncio.ensure_future(server.run_http_async("127.0.0.1", port))
        for _ in range(100):
            try:
                async with libmcp.Client.http(f"http://127.0.0.1:{port}/mcp") as client:
                    assert (await client.call_tool("ping")).text == "pong"
                break
            except libmcp.McpError:
                await asyncio.sleep(0.05)
        else:
            raise AssertionError("the server never answered")
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(go())


def test_stdio_server_exits_when_the_client_leaves() -> None:
    proc = subprocess.Popen(server_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=child_env())
    try:
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(20) == 0
    finally:
        stop_process(proc)


def test_a_server_that_cannot_start() -> None:
    with pytest.raises(libmcp.TransportError, match="no-such-program"):
        libmcp.SyncClient.stdio(["no-such-program-libmcp"]).connect()


def test_a_server_that_dies() -> None:
    script = "import sys; sys.stdin.readline(); sys.exit(3)"
    with pytest.raises(libmcp.ConnectionClosed):
        libmcp.SyncClient.stdio([PYTHON, "-c", script], timeout=10).connect()


def test_http_client_of_nothing() -> None:
    from conftest import free_port

    with pytest.raises(libmcp.McpError):
        libmcp.SyncClient.http(f"http://127.0.0.1:{free_port()}/mcp", timeout=10).connect()


def test_child_environment_and_stderr() -> None:
    lines: List[str] = []
    script = textwrap.dedent(
        """
        import os, sys
        print("secret=" + os.environ.get("LIBMCP_SECRET", "unset"), file=sys.stderr, flush=True)
        print("extra=" + os.environ.get("LIBMCP_EXTRA", "unset"), file=sys.stderr, flush=True)
        sys.argv = [sys.argv[1], "stdio"]
        exec(compile(open(sys.argv[0]).read(), sys.argv[0], "exec"))
        """
    )
    import os

    os.environ["LIBMCP_SECRET"] = "s3cr3t"
    try:
        with libmcp.SyncClient.stdio(
            [PYTHON, "-c", script, str(LIBMCP_SERVER)], env={"LIBMCP_EXTRA": "yes"}, on_stderr=lines.append
        ) as client:
            client.ping()
    finally:
        del os.environ["LIBMCP_SECRET"]
    assert "secret=unset" in lines and "extra=yes" in lines


def _post(
    url: str, body: bytes, session: str | None = None, extra: Optional[Dict[str, str]] = None
) -> tuple[int, dict, bytes]:
    import urllib.error
    import urllib.request

    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session:
        headers["mcp-session-id"] = session
    headers.update(extra or {})
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_run_http_takes_hosts_stateless_and_json() -> None:
    """``run_http_async`` (like ``run_http`` and ``start_http``): allowed
    hosts replace the loopback default for Host and Origin, stateless serving
    hands out no session, JSON answers are not SSE, and the limits apply."""
    server = libmcp.Server("options")

    @server.tool
    def echo(text: str) -> str:
        """Echoes."""
        return text

    init = (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
    )
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def go() -> None:
        serving = asyncio.ensure_future(
            server.run_http_async(
                "127.0.0.1",
                port,
                stateless=True,
                json_response=True,
                allowed_hosts=["mcp.example.com"],
                max_body_size=1024,
            )
        )
        try:
            await asyncio.get_running_loop().run_in_executor(None, wait_for_port, port)

            def post(body: bytes, **headers: str) -> tuple[int, dict, bytes]:
                return _post(url, body, extra=headers)

            status, headers, body = await asyncio.to_thread(post, init, host="mcp.example.com")
            lowered = {k.lower(): v for k, v in headers.items()}
            assert status == 200, body
            assert lowered["content-type"].startswith("application/json")
            assert "mcp-session-id" not in lowered
            assert json.loads(body)["result"]["serverInfo"]["name"] == "options"
            assert (await asyncio.to_thread(post, init))[0] == 403  # 127.0.0.1:port is not listed
            bad_origin = {"host": "mcp.example.com", "origin": "http://evil.example.com"}
            assert (await asyncio.to_thread(post, init, **bad_origin))[0] == 403
            big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * 2000 + b'"}}'
            assert (await asyncio.to_thread(post, big, host="mcp.example.com"))[0] == 413
        finally:
            serving.cancel()
            with pytest.raises(asyncio.CancelledError):
                await serving

    run(go())


def test_http_limits_are_settings() -> None:
    server = libmcp.Server("limits")

    @server.tool
    def echo(text: str) -> str:
        """Echoes."""
        return text

    for bad in ({"idle_timeout": 0}, {"idle_timeout": -1.0}, {"max_body_size": 0}, {"max_sessions": 0}):
        with pytest.raises(ValueError):
            server.start_http(**bad)

    init = (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
        b'"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
    )
    with server.start_http(max_body_size=512, max_sessions=1, idle_timeout=0.5) as running:
        assert running.url is not None
        status, headers, _ = _post(running.url, init)
        assert status == 200
        session = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
        # One session at most: a second initialize is refused while it lives.
        assert _post(running.url, init)[0] == 503
        ping = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * 600 + b'"}}'
        assert _post(running.url, ping, session)[0] == 413
        assert _post(running.url, b'{"jsonrpc":"2.0","id":2,"method":"ping"}', session)[0] == 200
        # Idle past the timeout: the session ends, and its id is unknown.
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            # Each request counts as activity: wait well past the timeout.
            time.sleep(1.0)
            if _post(running.url, b'{"jsonrpc":"2.0","id":3,"method":"ping"}', session)[0] == 404:
                break
        else:
            pytest.fail("the idle session was not ended")


def test_registrations_before_and_while_serving() -> None:
    """Registrations go to the one native server before it is served and
    while it is: capabilities follow from them until it is served, and
    clients hear of every change after."""
    server = libmcp.Server("registry", version="0.0.1")

    @server.tool
    def gone() -> str:
        """Removed before serving."""
        return "gone"

    @server.resource("notes://{name}")
    def note(name: str) -> str:
        return f"note {name}"

    # Before serving too: the server never offers what is not there.
    assert server.remove_tool("gone") is True
    assert server.remove_tool("gone") is False

    @server.tool
    def first() -> str:
        """The first tool."""
        return "one"

    notifications: List[str] = []
    with server.start_http() as running:
        assert running.url is not None
        with libmcp.SyncClient.http(
            running.url, protocol="2025-11-25", on_notification=lambda n: notifications.append(n.method)
        ) as client:
            assert "prompts" not in client.server_capabilities
            assert [t.name for t in client.list_tools()] == ["first"]
            assert client.read_resource("notes://a").contents[0].text == "note a"

            def wait_for(method: str) -> None:
                for _ in range(500):
                    if method in notifications:
                        notifications.remove(method)
                        return
                    time.sleep(0.01)
                raise AssertionError(f"no {method} in {notifications}")

            # From a thread of its own (no event loop, no runtime).
            def register() -> None:
                @server.tool(name="second", description="Added while serving.")
                def added(x: int) -> int:
                    return x * 2

            worker = threading.Thread(target=register)
            worker.start()
            worker.join(10)
            wait_for("notifications/tools/list_changed")
            assert [t.name for t in client.list_tools()] == ["first", "second"]
            assert client.call_tool("second", {"x": 4}).data == 8

            assert server.remove_resource_template("notes://{name}") is True
            wait_for("notifications/resources/list_changed")
            with pytest.raises(libmcp.McpError):
                client.read_resource("notes://a")

            # Prompts were not offered when it was first served.
            with pytest.raises(libmcp.HandlerError, match="did not offer `prompts`"):

                @server.prompt
                def late() -> str:
                    return "too late"
