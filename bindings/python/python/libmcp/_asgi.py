"""The ASGI app of a server (:meth:`libmcp.Server.streamable_http_app`):
the Streamable HTTP endpoint at ``/mcp`` inside it, served by the engine
in-process and mountable under any path of a Starlette or FastAPI app.

Each request is read whole (bounded by ``max_body_size``) and handed to the
engine (``_libmcp.AsgiCore.handle``), which answers with the response head
and the body ready so far; an event stream goes on chunk by chunk. While it
waits, the app listens for ``http.disconnect``: the client going away drops
the engine's response, which cancels the request as on the engine's own
socket (always for a 2026-07-28 request, with ``cancel_on_disconnect`` for a
session's).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable, Dict, List, Optional, Tuple

from . import _libmcp
from ._pending import Pending

if TYPE_CHECKING:  # pragma: no cover
    from .server import Server

__all__ = ["StreamableHTTPApp"]

Scope = Dict[str, Any]
Message = Dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: mcp-core's default largest request body (4 MiB).
DEFAULT_MAX_BODY = 4 * 1024 * 1024

_NOT_FOUND = [(b"content-type", b"text/plain; charset=utf-8")]


class StreamableHTTPApp:
    """An ASGI app serving one :class:`~libmcp.Server` over Streamable HTTP,
    its endpoint at ``path`` (default ``/mcp``) below where it is mounted
    (the ASGI ``root_path``): mounted at ``/srv``, clients use ``/srv/mcp``.

    It starts on the first request (or at ASGI ``lifespan.startup`` when the
    host forwards lifespan events, or in :meth:`running`): handlers then run
    on the serving event loop (``async def`` ones on it; ``def`` ones on a
    thread pool, or inline with ``sync_handlers="inline"``), and the server's
    ``lifespan`` is entered there first. It stops at ``lifespan.shutdown`` or
    when :meth:`running` ends; started by a request, it runs until the
    process ends (the server's lifespan is then never exited).
    """

    def __init__(self, server: "Server", path: str = "/mcp", **options: Any) -> None:
        if not path.startswith("/"):
            raise ValueError(f"the endpoint's path starts with '/', not {path!r}")
        self.server = server
        self.path = path
        self._options = options
        limit = options.get("max_body_size")
        self._max_body = limit if isinstance(limit, int) and limit > 0 else DEFAULT_MAX_BODY
        self._core: Optional[_libmcp.AsgiCore] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._starting: Optional["asyncio.Future[None]"] = None

    # -- starting and stopping

    async def start(self) -> None:
        """Starts serving from the running event loop (idempotent): the
        server's lifespan is entered, then the engine starts. Requests
        arriving meanwhile wait for it."""
        loop = asyncio.get_running_loop()
        if self._loop is not None and self._loop is not loop and self._loop.is_closed():
            # The app outlived the loop it ran on (a test, a restarted
            # host): start again on this one.
            self._abandon()
        if self._starting is not None:
            await asyncio.shield(self._starting)
            return
        self._loop = loop
        self._starting = loop.create_future()
        try:
            self.server._attach_loop(loop)
            try:
                await self.server._enter_lifespan()
                self._core = _libmcp.AsgiCore(self.server._core, **self._options)
            except BaseException:
                self.server._detach_loop(loop)
                raise
        except BaseException as e:
            starting, self._starting, self._loop = self._starting, None, None
            starting.set_exception(e)
            starting.exception()  # retrieved: a failed start is raised here
            raise
        self._starting.set_result(None)

    async def stop(self) -> None:
        """Stops serving (idempotent): the engine ends every session and
        stream, then the server's lifespan is exited."""
        starting, core, loop = self._starting, self._core, self._loop
        if starting is None:
            return
        if not starting.done():
            await asyncio.shield(starting)
        self._starting = self._core = self._loop = None
        if core is not None:
            core.stop()
        try:
            await self.server._exit_lifespan()
        finally:
            if loop is not None:
                self.server._detach_loop(loop)

    def _abandon(self) -> None:
        core, loop = self._core, self._loop
        self._starting = self._core = self._loop = None
        if core is not None:
            core.stop()
        if loop is not None:
            self.server._detach_loop(loop)
        self.server._abandon_lifespan()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Serves while the ``async with`` lasts: for a host app that does
        not forward lifespan events to mounted apps (Starlette, FastAPI),
        ``FastAPI(lifespan=lambda app: mcp_app.running())``."""
        await self.start()
        try:
            yield
        finally:
            await self.stop()

    # -- ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            if self._local_path(scope) not in (self.path, self.path + "/"):
                await _plain(send, 404, b"Not Found")
                return
            core = self._core
            if core is None or self._loop is not asyncio.get_running_loop():
                await self.start()
                core = self._core
            if core is None:  # stopped meanwhile
                await _plain(send, 503, b"Service Unavailable")
                return
            await self._serve(core, scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})

    def _local_path(self, scope: Scope) -> str:
        path: str = scope.get("path", "")
        root: str = scope.get("root_path", "")
        # ASGI's `path` includes `root_path`; servers and routers that
        # strip it (older Starlette) leave a path without it.
        if root and path.startswith(root) and (len(path) == len(root) or path[len(root)] == "/"):
            path = path[len(root):]
        return path or "/"

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                try:
                    await self.start()
                except Exception as e:  # noqa: BLE001 - reported to the host
                    await send({"type": "lifespan.startup.failed", "message": f"{type(e).__name__}: {e}"})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                try:
                    await self.stop()
                except Exception as e:  # noqa: BLE001 - reported to the host
                    await send({"type": "lifespan.shutdown.failed", "message": f"{type(e).__name__}: {e}"})
                    return
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _serve(self, core: _libmcp.AsgiCore, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            # More than the limit is enough for the engine to answer 413.
            if not message.get("more_body") or len(body) > self._max_body:
                break
        gone = asyncio.ensure_future(_disconnected(receive))
        rest: Optional[_libmcp.ResponseBody] = None
        try:
            head = await _unless_gone(core.handle(scope["method"], _headers(scope), bytes(body)), gone)
            if head is None:
                return
            status, headers, chunk, rest = head
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": chunk, "more_body": rest is not None})
            more = rest is not None
            while more and rest is not None:
                got = await _unless_gone(rest.next(), gone)
                if got is None:
                    return
                chunk, more = got
                await send({"type": "http.response.body", "body": chunk, "more_body": more})
        finally:
            if rest is not None:
                rest.close()
            gone.cancel()

    def __repr__(self) -> str:
        return f"<StreamableHTTPApp {self.server.name!r} at {self.path}>"


def _headers(scope: Scope) -> List[Tuple[bytes, bytes]]:
    return [(bytes(name), bytes(value)) for name, value in scope.get("headers", ())]


async def _disconnected(receive: Receive) -> None:
    """Returns once the client has gone away."""
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return


async def _unless_gone(call: _libmcp.Call, gone: "asyncio.Future[None]") -> Any:
    """The call's value, or None (and the call cancelled) once the client
    has gone away."""
    if call.done():
        return call.result(None)
    waiting = asyncio.ensure_future(_await(Pending(call)))
    try:
        await asyncio.wait((waiting, gone), return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        waiting.cancel()
        raise
    if waiting.done():
        return waiting.result()
    waiting.cancel()
    with contextlib.suppress(BaseException):
        await waiting
    return None


async def _await(pending: Pending[Any]) -> Any:
    return await pending


async def _plain(send: Send, status: int, text: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": _NOT_FOUND})
    await send({"type": "http.response.body", "body": text})
