"""The exceptions libmcp raises, and that handlers may raise.

Every error is a :class:`McpError`, which carries the JSON-RPC error
``code`` (or ``None`` when the failure is local, e.g. a timeout) and the
error's ``data``::

    McpError
    ├── InvalidParams           -32602 from the peer
    ├── MethodNotFound          -32601 from the peer
    ├── ResourceNotFound        -32002 from the peer
    ├── InternalError           -32603 from the peer
    ├── ToolError               a tool failed (``isError: true``)
    ├── ConnectionClosed        the peer is gone, the transport failed
    ├── Timeout                 (also a ``TimeoutError``) no answer in time
    ├── Cancelled               the request was cancelled
    ├── InvalidState            (also a ``RuntimeError``) the session is not
    │                           in a state that allows the call
    ├── CapabilityNotSupported  the peer did not declare what this needs
    ├── ProtocolError           the peer broke the protocol
    ├── TransportError          (also a ``ConnectionError``, an ``OSError``)
    │                           spawning, connecting, binding, the store
    ├── InvalidArgument         (also a ``ValueError``) a bad argument
    ├── HandlerError            (also a ``TypeError``) a handler libmcp cannot
    │                           register (raised when it is decorated)
    └── AuthError               authorization failed

Which failure raises which class is decided once for every face, by the
failure's kind: the table on ``mcp_core::ErrorKind`` (mcp-core/src/error_kind.rs)
gives the C result code, the Python class and the ``mcp`` exit status of each.

In a server handler, raise :class:`McpError` with a ``code`` to answer with
that JSON-RPC error; raise :class:`ToolError` (or any exception) in a tool to
return a tool result with ``isError: true`` whose text is the message.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "McpError",
    "InvalidParams",
    "MethodNotFound",
    "ResourceNotFound",
    "InternalError",
    "ToolError",
    "ConnectionClosed",
    "Timeout",
    "Cancelled",
    "InvalidState",
    "CapabilityNotSupported",
    "ProtocolError",
    "TransportError",
    "InvalidArgument",
    "HandlerError",
    "AuthError",
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "RESOURCE_NOT_FOUND",
]

#: JSON-RPC error codes used by MCP.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002


class McpError(Exception):
    """Base class of every libmcp error.

    Attributes:
        message: What went wrong.
        code: The JSON-RPC error code, or ``None`` for local failures.
        data: The error's ``data`` (any JSON value), or ``None``.
    """

    #: The code a handler's error of this class is answered with when no
    #: ``code`` is given.
    default_code: Optional[int] = None

    def __init__(self, message: str = "", *, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else self.default_code
        self.data = data

    def __str__(self) -> str:
        if self.code is not None:
            return f"{self.message} (code {self.code})"
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r}, data={self.data!r})"


class InvalidParams(McpError):
    """The request's params were invalid (JSON-RPC -32602), e.g. an unknown
    tool or prompt, or a missing prompt argument."""

    default_code = INVALID_PARAMS


class MethodNotFound(McpError):
    """The peer does not offer the method (JSON-RPC -32601)."""

    default_code = METHOD_NOT_FOUND


class ResourceNotFound(McpError):
    """No resource has the URI (MCP's -32002)."""

    default_code = RESOURCE_NOT_FOUND


class InternalError(McpError):
    """The peer failed while handling the request (JSON-RPC -32603)."""

    default_code = INTERNAL_ERROR


class ToolError(McpError):
    """A tool call failed.

    Raised in a tool, it becomes a result with ``isError: true`` carrying the
    message (so that the model can see it and try again). Raised by
    :meth:`Client.call_tool`, it carries that result in :attr:`result`.
    """

    def __init__(
        self,
        message: str = "",
        *,
        code: Optional[int] = None,
        data: Any = None,
        result: Any = None,
    ) -> None:
        super().__init__(message, code=code, data=data)
        #: The :class:`~libmcp.types.CallToolResult` (client side), if any.
        self.result = result


class ConnectionClosed(McpError):
    """The connection is closed: the peer went away, the transport failed or
    the session was closed."""


class Timeout(McpError, TimeoutError):
    """The request got no answer in time (it was cancelled on the wire)."""


class Cancelled(McpError):
    """The request was cancelled."""


class InvalidState(McpError, RuntimeError):
    """The session is not in a state that allows the call (e.g. a request
    before it is initialized)."""


class CapabilityNotSupported(McpError):
    """The peer did not declare the capability this operation needs (the
    request was not sent)."""


class ProtocolError(McpError):
    """Something the peer sent does not follow the protocol (including an
    unsupported protocol version and structured content that does not match
    a tool's output schema)."""


class TransportError(McpError, ConnectionError):
    """A transport failed: the server could not be started or reached, an
    address could not be bound, or the store shared with other replicas
    does not answer. Also a ``ConnectionError`` (an ``OSError``)."""


class InvalidArgument(McpError, ValueError):
    """An argument given to libmcp is not valid."""


class HandlerError(McpError, TypeError):
    """A function cannot be registered as a handler. The message names the
    handler (its kind, name, function and where it is defined) and the
    problem: an annotation with no JSON Schema, a URI template that does not
    parse or does not match the parameters, a coroutine object or other
    non-function where a function is expected, a generator, … Raised when
    it is decorated."""


class AuthError(McpError):
    """Authorization failed."""


def _from_core(name: str, message: str, code: Optional[int], data: Any) -> McpError:
    """Builds the exception for a failure reported by the native module:
    ``name`` is the class its kind maps to (``McpError`` itself for a
    JSON-RPC error without a class of its own)."""
    cls = globals().get(name)
    if not (isinstance(cls, type) and issubclass(cls, McpError)):
        cls = McpError
    return cls(message, code=code, data=data)
