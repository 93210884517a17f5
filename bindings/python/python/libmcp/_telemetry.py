"""OpenTelemetry trace context across the native boundary, when the optional
``opentelemetry-api`` package is installed (``pip install libmcp[otel]``).

The engine carries trace context in each message's ``_meta`` (W3C
``traceparent``, ``tracestate``, ``baggage``); this module only connects it
with Python's current OpenTelemetry context, through two hooks the native
module calls:

- :func:`current`, when a client call (or a handler's own request) starts:
  the caller's current context as a W3C carrier, which the request carries.
- :func:`attach`, around a handler: the context of the request it answers
  becomes the current one, so the spans the handler starts are its children
  (and the handler's own calls carry it).

Both go through the globally configured propagator
(``opentelemetry.propagate``). Without ``opentelemetry-api`` no hook is
installed and nothing is done. Loading this module (``import libmcp`` does)
installs or removes the hooks; tracing never fails a call.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any, Callable, Dict, Optional

from . import _libmcp

__all__ = ["available", "current", "attach"]

logger = logging.getLogger("libmcp")


def _load(name: str) -> Any:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


_context = _load("opentelemetry.context")
_propagate = _load("opentelemetry.propagate")


def available() -> bool:
    """Whether ``opentelemetry-api`` was importable when this module loaded."""
    return _context is not None and _propagate is not None


def current() -> Optional[Dict[str, str]]:
    """The current context as a W3C carrier, or None when there is none."""
    carrier: Dict[str, str] = {}
    try:
        _propagate.inject(carrier)
    except Exception:  # noqa: BLE001 - a propagator's failure never fails a call
        logger.debug("could not inject the trace context", exc_info=True)
        return None
    return carrier or None


def attach(carrier: Dict[str, str]) -> Callable[[], None]:
    """Makes the context in ``carrier`` the current one; returns the function
    that detaches it again."""
    try:
        token = _context.attach(_propagate.extract(carrier))
    except Exception:  # noqa: BLE001 - a propagator's failure never fails a call
        logger.debug("could not attach the trace context", exc_info=True)
        return _nothing

    def detach() -> None:
        _context.detach(token)

    return detach


def _nothing() -> None:
    pass


if available():
    _libmcp.set_trace_hooks(current, attach)
else:
    _libmcp.set_trace_hooks(None, None)
