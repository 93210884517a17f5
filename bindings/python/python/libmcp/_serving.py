"""Serving: :class:`RunningServer` (one transport served in the
background) and the serving half of :class:`~libmcp.Server` — the
transports, the event loop handlers run on, and the lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import typing
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncContextManager,
    AsyncIterator,
    Callable,
    Iterator,
    List,
    Optional,
    Sequence,
)

from . import _libmcp
from ._asgi import StreamableHTTPApp
from ._invoke import LoopThread
from ._pending import Pending
from .auth import ProtectedResource

if TYPE_CHECKING:
    from .server import Server


class RunningServer:
    """A server serving one transport in the background (from
    :meth:`Server.start_stdio` or :meth:`Server.start_http`). Use it as a
    context manager, or call :meth:`stop`."""

    def __init__(self, serving: _libmcp.Serving, transport: str) -> None:
        self._serving = serving
        self.transport = transport

    @property
    def host(self) -> Optional[str]:
        """The address an HTTP transport listens on."""
        address = self._serving.address
        return address[0] if address else None

    @property
    def port(self) -> Optional[int]:
        """The port an HTTP transport listens on."""
        address = self._serving.address
        return address[1] if address else None

    @property
    def url(self) -> Optional[str]:
        """The MCP endpoint of an HTTP transport, ``http://host:port/mcp``."""
        address = self._serving.address
        if address is None:
            return None
        host = f"[{address[0]}]" if ":" in address[0] else address[0]
        return f"http://{host}:{address[1]}/mcp"

    def wait(self, timeout: Optional[float] = None) -> str:
        """Blocks until the transport stops serving (Ctrl-C raises
        ``KeyboardInterrupt``); returns why it stopped."""
        return typing.cast(str, self._serving.wait().result(timeout))

    async def wait_async(self) -> str:
        """Waits (in asyncio) until the transport stops serving."""
        return typing.cast(str, await Pending(self._serving.wait()))

    def stop(self) -> None:
        """Stops serving (idempotent): a stdio session is closed; an HTTP
        server ends its sessions and stops listening. Requests in progress
        get up to 3 s to finish."""
        self._serving.stop()

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url or self.transport
        return f"<RunningServer {where}>"


class Serving:
    """The serving half of :class:`~libmcp.Server`, which inherits it: what
    is registered is served over stdio, Streamable HTTP or an ASGI app, with
    handlers on the right event loop and the lifespan entered around it."""

    name: str
    _core: _libmcp.ServerCore
    _loop: LoopThread
    #: The loops of the `run_*_async` calls serving now; handlers run on
    #: the latest (else on the private loop thread).
    _caller_loops: List[asyncio.AbstractEventLoop]
    _lifespan: Optional[Callable[[Any], AsyncContextManager[Any]]]
    #: Serving calls that share the entered lifespan, and how it exits.
    _lifespan_users: int
    _lifespan_exit: Optional[contextlib.AsyncExitStack]
    lifespan_context: Any


    def start_stdio(self) -> RunningServer:
        """Starts serving one client over this process's stdin and stdout,
        in the background. Nothing else may write to stdout."""
        return RunningServer(self._core.serve_stdio(), "stdio")

    def start_http(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
        auth: Optional[ProtectedResource] = None,
        store: Optional[str] = None,
    ) -> RunningServer:
        """Starts serving Streamable HTTP at ``http://host:port/mcp`` in the
        background (port 0 picks a free port; see
        :attr:`RunningServer.url`).

        Args:
            stateless: No sessions; every request stands alone.
            json_response: Answer with JSON, never SSE streams.
            allowed_hosts: The accepted ``Host`` headers (``host[:port]``);
                by default only loopback names, ``["*"]`` accepts any.
            max_body_size: Largest request body in bytes (default 4 MiB);
                larger gets HTTP 413.
            max_header_size: Largest request head in bytes (default 32 KiB);
                larger gets HTTP 431.
            max_sessions: Most sessions at once (default 10,000); more gets
                HTTP 503.
            idle_timeout: Seconds after which an idle session ends (default
                30 minutes).
            cancel_on_disconnect: Cancel a request whose client goes away
                before its answer, as if the client had cancelled it.
            auth: A :class:`libmcp.auth.ProtectedResource`: every request
                needs a bearer token its verifier accepts (else 401 with a
                ``WWW-Authenticate`` challenge), and the Protected Resource
                Metadata is served at
                ``/.well-known/oauth-protected-resource/mcp``.
            store: ``"redis://HOST:PORT/DB"`` to share sessions, stream
                events, tasks, changes and the ``requestState`` key with
                other replicas of this server behind a load balancer (default:
                everything stays in this process). ``ConnectionError`` if the
                store does not answer.
        """
        serving = self._core.serve_http(
            host,
            port,
            stateless=stateless,
            json_response=json_response,
            allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else None,
            max_body_size=max_body_size,
            max_header_size=max_header_size,
            max_sessions=max_sessions,
            idle_timeout=idle_timeout,
            cancel_on_disconnect=cancel_on_disconnect,
            auth=auth._native(self._handler_loop) if auth is not None else None,
            store=store,
        )
        return RunningServer(serving, "http")

    def run_stdio(self) -> None:
        """Serves one client over stdin and stdout until it disconnects
        (or Ctrl-C)."""
        with self._lifespan_on_own_loop():
            self._run(self.start_stdio())

    def run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
        auth: Optional[ProtectedResource] = None,
        store: Optional[str] = None,
    ) -> None:
        """Serves Streamable HTTP at ``http://host:port/mcp`` until Ctrl-C;
        the options are those of :meth:`start_http`."""
        with self._lifespan_on_own_loop():
            self._run(
                self.start_http(
                    host,
                    port,
                    stateless=stateless,
                    json_response=json_response,
                    allowed_hosts=allowed_hosts,
                    max_body_size=max_body_size,
                    max_header_size=max_header_size,
                    max_sessions=max_sessions,
                    idle_timeout=idle_timeout,
                    cancel_on_disconnect=cancel_on_disconnect,
                    auth=auth,
                    store=store,
                )
            )

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Runs with ``transport`` ``"stdio"`` or ``"http"`` (options as for
        :meth:`run_http`)."""
        if transport == "stdio":
            self.run_stdio()
        elif transport in ("http", "streamable-http"):
            self.run_http(**options)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

    async def run_stdio_async(self) -> None:
        """Serves over stdin and stdout until the client disconnects or the
        awaiting task is cancelled. ``async def`` handlers run on the
        awaiting task's event loop."""
        with self._serving_from(asyncio.get_running_loop()):
            async with self._lifespan_entered():
                await self._run_async(self.start_stdio())

    async def run_http_async(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
        auth: Optional[ProtectedResource] = None,
        store: Optional[str] = None,
    ) -> None:
        """Serves Streamable HTTP until the awaiting task is cancelled; the
        options are those of :meth:`start_http`."""
        # The caller's loop is recorded before the port is bound: a request
        # arriving at once must not run on the server's own loop thread.
        with self._serving_from(asyncio.get_running_loop()):
            async with self._lifespan_entered():
                await self._run_async(
                    self.start_http(
                        host,
                        port,
                        stateless=stateless,
                        json_response=json_response,
                        allowed_hosts=allowed_hosts,
                        max_body_size=max_body_size,
                        max_header_size=max_header_size,
                        max_sessions=max_sessions,
                        idle_timeout=idle_timeout,
                        cancel_on_disconnect=cancel_on_disconnect,
                        auth=auth,
                        store=store,
                    )
                )

    @staticmethod
    def _run(running: RunningServer) -> None:
        try:
            running.wait()
        except KeyboardInterrupt:
            pass
        finally:
            running.stop()

    async def _run_async(self, running: RunningServer) -> None:
        with self._serving_from(asyncio.get_running_loop()):
            try:
                await running.wait_async()
            finally:
                running.stop()

    def streamable_http_app(
        self,
        *,
        path: str = "/mcp",
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
    ) -> StreamableHTTPApp:
        """An ASGI app serving Streamable HTTP at ``path`` (default
        ``/mcp``) inside it; mount it under any path of a Starlette or
        FastAPI app (``app.mount("/srv", server.streamable_http_app())``
        serves ``/srv/mcp``). It runs on the host's event loop: ``async
        def`` handlers run there. It starts on its first request, or at the
        ASGI lifespan startup when the host forwards it (see
        :class:`StreamableHTTPApp`). The options are those of
        :meth:`start_http` (``allowed_hosts`` defaults to loopback names:
        list the host's public names when it serves them)."""
        return StreamableHTTPApp(
            typing.cast("Server", self),
            path,
            stateless=stateless,
            json_response=json_response,
            allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else None,
            max_body_size=max_body_size,
            max_header_size=max_header_size,
            max_sessions=max_sessions,
            idle_timeout=idle_timeout,
            cancel_on_disconnect=cancel_on_disconnect,
        )

    @contextlib.contextmanager
    def _serving_from(self, loop: asyncio.AbstractEventLoop) -> Iterator[None]:
        """While serving from ``loop``, handlers run on it."""
        self._attach_loop(loop)
        try:
            yield
        finally:
            self._detach_loop(loop)

    def _attach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        self._caller_loops.append(loop)

    def _detach_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        with contextlib.suppress(ValueError):
            self._caller_loops.remove(loop)

    def _handler_loop(self) -> asyncio.AbstractEventLoop:
        """The loop handlers run on: the latest serving caller's (a
        `run_*_async` call or the ASGI app) that is still open, else the
        server's own loop thread."""
        for loop in reversed(self._caller_loops):
            if not loop.is_closed():
                return loop
        return self._loop.get()

    # -- the lifespan

    async def _enter_lifespan(self) -> None:
        """Enters the lifespan on the running loop, unless another serving
        call has it entered already."""
        self._lifespan_users += 1
        if self._lifespan is None or self._lifespan_users > 1:
            return
        stack = contextlib.AsyncExitStack()
        try:
            manager = self._lifespan(self)
            self.lifespan_context = await stack.enter_async_context(manager)
        except BaseException:
            self._lifespan_users -= 1
            await stack.aclose()
            raise
        self._lifespan_exit = stack

    async def _exit_lifespan(self) -> None:
        """Exits the lifespan once the last serving call that uses it ends."""
        if self._lifespan_users == 0:
            return
        self._lifespan_users -= 1
        stack = self._lifespan_exit
        if self._lifespan_users == 0 and stack is not None:
            self._lifespan_exit = None
            try:
                await stack.aclose()
            finally:
                self.lifespan_context = None

    def _abandon_lifespan(self) -> None:
        """Forgets a lifespan entered on a loop that is gone."""
        self._lifespan_users = max(0, self._lifespan_users - 1)
        if self._lifespan_users == 0:
            self._lifespan_exit = None
            self.lifespan_context = None

    @contextlib.asynccontextmanager
    async def _lifespan_entered(self) -> AsyncIterator[None]:
        await self._enter_lifespan()
        try:
            yield
        finally:
            await self._exit_lifespan()

    @contextlib.contextmanager
    def _lifespan_on_own_loop(self) -> Iterator[None]:
        """The lifespan around a blocking `run_*`, on the server's own loop
        thread (where its handlers run)."""
        if self._lifespan is None:
            yield
            return
        loop = self._loop.get()
        asyncio.run_coroutine_threadsafe(self._enter_lifespan(), loop).result()
        try:
            yield
        finally:
            asyncio.run_coroutine_threadsafe(self._exit_lifespan(), loop).result()

    def close(self) -> None:
        """Stops the event loop thread coroutine handlers run on (servers
        started from this object should be stopped first)."""
        self._loop.close()
