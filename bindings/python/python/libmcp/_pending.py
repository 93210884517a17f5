"""`Pending`: an operation running in the engine, awaitable and blockable."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Generator, Generic, Optional, TypeVar

from . import _libmcp

__all__ = ["Pending"]

T = TypeVar("T")


def _settle(future: "asyncio.Future[None]") -> None:
    if not future.done():
        future.set_result(None)


def _identity(value: Any) -> Any:
    return value


class Pending(Generic[T]):
    """An operation started in the engine.

    The work starts when the method returning it is called. Then:

    - ``await pending`` waits in asyncio (cancelling the awaiting task
      cancels the operation, and a request in flight is cancelled on the
      wire);
    - ``pending.result(timeout=None)`` blocks the calling thread, with the
      GIL released; Ctrl-C cancels the operation and raises
      ``KeyboardInterrupt``;
    - or drop it: the operation still completes (fire and forget, e.g. for
      progress or log notifications).
    """

    __slots__ = ("_call", "_convert")

    def __init__(self, call: _libmcp.Call, convert: Optional[Callable[[Any], T]] = None) -> None:
        self._call = call
        self._convert: Callable[[Any], T] = convert or _identity

    def done(self) -> bool:
        """Whether the operation has finished."""
        return self._call.done()

    def cancel(self) -> None:
        """Cancels the operation (no effect once it has finished)."""
        self._call.cancel()

    def result(self, timeout: Optional[float] = None) -> T:
        """Waits for the operation and returns its value, or raises its error.

        Raises:
            TimeoutError: ``timeout`` seconds passed first (the operation
                goes on).
            KeyboardInterrupt: Ctrl-C was pressed (the operation is
                cancelled).
        """
        return self._convert(self._call.result(timeout))

    def __await__(self) -> Generator[Any, None, T]:
        return self._wait().__await__()

    async def _wait(self) -> T:
        call = self._call
        if not call.done():
            loop = asyncio.get_running_loop()
            future: asyncio.Future[None] = loop.create_future()

            def wake() -> None:
                try:
                    loop.call_soon_threadsafe(_settle, future)
                except RuntimeError:  # the loop is closed: nobody waits
                    pass

            call.add_done_callback(wake)
            try:
                await future
            except asyncio.CancelledError:
                call.cancel()
                raise
        return self._convert(call.result(None))

    def __repr__(self) -> str:
        return f"<Pending {'done' if self.done() else 'running'}>"
