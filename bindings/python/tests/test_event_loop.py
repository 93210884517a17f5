"""Where handlers run: served from asyncio (``run_*_async``), ``async def``
handlers run on the caller's event loop, so objects bound to it (queues,
locks, a connection pool made by the application) work in tools; ``def``
handlers run on worker threads, or inline on that loop with
``sync_handlers="inline"``."""

from __future__ import annotations

import asyncio
import textwrap
import threading
from typing import Any, Dict

import pytest

import libmcp
from conftest import PYTHON, free_port, run, wait_for_port


def _server(loop_state: Dict[str, Any], **options: Any) -> libmcp.Server:
    server = libmcp.Server("loops", **options)

    @server.tool()
    async def where_async() -> Dict[str, Any]:
        """Reports the loop and thread it runs on, and uses a queue of the app's loop."""
        queue: "asyncio.Queue[int]" = loop_state["queue"]
        await queue.put(1)  # fails with "bound to a different event loop" elsewhere
        item = await queue.get()
        return {
            "on_caller_loop": asyncio.get_running_loop() is loop_state["loop"],
            "on_loop_thread": threading.current_thread() is loop_state["thread"],
            "item": item,
        }

    @server.tool()
    def where_sync() -> Dict[str, Any]:
        """Reports the thread it runs on."""
        return {"on_loop_thread": threading.current_thread() is loop_state["thread"]}

    @server.tool()
    async def progress(ctx: libmcp.Context) -> str:
        """Talks back to the client from the caller's loop."""
        await ctx.report_progress(1, 1)
        return "ok"

    return server


async def _serve_and_ask(**options: Any) -> Dict[str, Any]:
    """Serves HTTP from this loop and calls the tools from a client on it too."""
    loop_state = {
        "loop": asyncio.get_running_loop(),
        "thread": threading.current_thread(),
        "queue": asyncio.Queue(),
    }
    server = _server(loop_state, **options)
    port = free_port()
    serving = asyncio.create_task(server.run_http_async("127.0.0.1", port))
    try:
        await asyncio.to_thread(wait_for_port, port)
        async with libmcp.Client.http(f"http://127.0.0.1:{port}/mcp") as client:
            results = await asyncio.gather(*(client.call_tool("where_async") for _ in range(5)))
            progress: list = []
            assert (await client.call_tool("progress", on_progress=progress.append)).text == "ok"
            assert [p.progress for p in progress] == [1]
            return {
                "async": [r.data for r in results],
                "sync": (await client.call_tool("where_sync")).data,
            }
    finally:
        serving.cancel()
        with pytest.raises(asyncio.CancelledError):
            await serving
        server.close()


def test_async_handlers_run_on_the_callers_loop() -> None:
    seen = run(_serve_and_ask())
    assert seen["async"] == [{"on_caller_loop": True, "on_loop_thread": True, "item": 1}] * 5
    assert seen["sync"] == {"on_loop_thread": False}  # a worker thread by default


def test_sync_handlers_inline_on_the_loop() -> None:
    seen = run(_serve_and_ask(sync_handlers="inline"))
    assert seen["sync"] == {"on_loop_thread": True}
    assert seen["async"][0]["on_caller_loop"] is True


def test_sync_handlers_option_is_checked() -> None:
    with pytest.raises(ValueError, match="sync_handlers"):
        libmcp.Server("x", sync_handlers="loop")


def test_without_asyncio_handlers_run_on_the_servers_own_loop() -> None:
    loop_state: Dict[str, Any] = {"loop": None, "thread": threading.current_thread()}

    server = _server(loop_state)

    @server.tool()
    async def loop_thread_name() -> str:
        return threading.current_thread().name

    with server.start_http() as running, libmcp.SyncClient.http(running.url) as client:  # type: ignore[arg-type]
        assert client.call_tool("loop_thread_name").text == "libmcp-handlers-loops"
        assert client.call_tool("where_sync").data == {"on_loop_thread": False}
    server.close()


def test_stdio_served_from_asyncio() -> None:
    script = textwrap.dedent(
        """
        import asyncio, libmcp

        async def main():
            app_loop = asyncio.get_running_loop()
            lock = asyncio.Lock()
            server = libmcp.Server("stdio-loop")

            @server.tool()
            async def on_app_loop() -> bool:
                async with lock:
                    return asyncio.get_running_loop() is app_loop

            await server.run_stdio_async()

        asyncio.run(main())
        """
    )

    async def go() -> None:
        async with libmcp.Client.stdio([PYTHON, "-c", script], inherit_env=True) as client:
            assert (await client.call_tool("on_app_loop")).data is True

    run(go())
