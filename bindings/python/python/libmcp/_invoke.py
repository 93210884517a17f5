"""Invokers: how the native module calls Python handlers.

The native module calls ``invoker(args, context, responder)`` on one of its
worker threads (never an event loop's thread). A sync handler runs right
there and answers before the call returns. A coroutine handler (or, inline,
a sync one) is scheduled on an event loop — the caller's when serving from
asyncio, else the server's own loop thread; the call returns a function that
cancels it, which the native module calls if the request is cancelled
before the answer.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import threading
from typing import Any, Callable, Optional, Tuple

from . import _libmcp

__all__ = ["Invoker", "LoopThread", "Failure"]

logger = logging.getLogger("libmcp")

#: What a failed handler answers: ``("resolve", value)`` or
#: ``("reject", code, message, data)``.
Failure = Tuple[Any, ...]


async def _await(awaitable: Any) -> Any:
    return await awaitable


class Invoker:
    """Adapts a handler to the native calling convention.

    Args:
        run: ``run(args, context)`` calls the handler and returns its value
            (a coroutine when ``is_async``).
        is_async: Whether ``run`` returns a coroutine.
        loop: Returns the event loop coroutines run on; ``None`` runs them
            with ``asyncio.run`` on the calling thread.
        answer: ``answer(args, value)`` turns the handler's value into the
            JSON answer.
        fail: ``fail(exception)`` turns an exception into a :data:`Failure`.
        inline: Run a sync ``run`` on the loop too (not on the calling
            worker thread).
    """

    __slots__ = ("run", "is_async", "loop", "answer", "fail", "inline")

    def __init__(
        self,
        run: Callable[[Any, Any], Any],
        is_async: bool,
        loop: Callable[[], Optional[asyncio.AbstractEventLoop]],
        answer: Callable[[Any, Any], Any],
        fail: Callable[[BaseException], Failure],
        *,
        inline: bool = False,
    ) -> None:
        self.inline = inline
        self.run = run
        self.is_async = is_async
        self.loop = loop
        self.answer = answer
        self.fail = fail

    def __call__(self, args: Any, context: Any, responder: _libmcp.Responder) -> Optional[Callable[[], Any]]:
        if self.is_async or self.inline:
            loop = self.loop()
            if loop is not None:
                future = asyncio.run_coroutine_threadsafe(self._run_async(args, context, responder), loop)
                return future.cancel
        try:
            value = self.run(args, context)
            if inspect.isawaitable(value):
                loop = self.loop()
                if loop is None:
                    value = asyncio.run(_await(value))
                else:
                    value = asyncio.run_coroutine_threadsafe(_await(value), loop).result()
            responder.resolve(self.answer(args, value))
        except Exception as e:  # noqa: BLE001 - every failure is answered
            self._failed(e, responder)
        return None

    async def _run_async(self, args: Any, context: Any, responder: _libmcp.Responder) -> None:
        try:
            value = self.run(args, context)
            if inspect.isawaitable(value):
                value = await value
            responder.resolve(self.answer(args, value))
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - every failure is answered
            self._failed(e, responder)

    def _failed(self, error: BaseException, responder: _libmcp.Responder) -> None:
        logger.debug("handler failed", exc_info=error)
        try:
            failure = self.fail(error)
            if failure[0] == "resolve":
                responder.resolve(failure[1])
            else:
                responder.reject(failure[1], failure[2], failure[3])
        except Exception as e:  # noqa: BLE001 - the last resort
            responder.reject(-32603, f"Internal error: {e}", None)


class LoopThread:
    """An event loop on a daemon thread, started on first use, on which a
    server's coroutine handlers run."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._lock = threading.Lock()

    def get(self) -> asyncio.AbstractEventLoop:
        """The loop (starting it if needed)."""
        loop = self._loop
        if loop is not None:
            return loop
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                ready = threading.Event()

                def main() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                threading.Thread(target=main, name=f"libmcp-handlers-{self._name}", daemon=True).start()
                ready.wait()
                self._loop = loop
            return self._loop

    def close(self) -> None:
        """Stops the loop (coroutines still running are abandoned)."""
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
