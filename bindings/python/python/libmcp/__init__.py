"""libmcp: a fast Model Context Protocol engine (in Rust) for Python.

Servers::

    import libmcp

    server = libmcp.Server("demo", version="1.0.0")

    @server.tool()
    def add(a: int, b: int) -> int:
        \"\"\"Adds two numbers.\"\"\"
        return a + b

    if __name__ == "__main__":
        server.run_stdio()

Clients::

    async with libmcp.Client.stdio(["python", "demo.py"]) as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})
        print(result.data)  # 3

:class:`SyncClient` is the blocking twin of :class:`Client`. Errors are
:class:`McpError` subclasses (see :mod:`libmcp.errors`); the typed objects
are in :mod:`libmcp.types`.
"""

import atexit as _atexit

from . import _libmcp, _telemetry, auth, errors, skills, types
from ._libmcp import __version__
from ._pending import Pending
from .client import Client, ClientOptions, SyncClient
from .group import ClientGroup, ServerStatus
from .errors import (
    AuthError,
    Cancelled,
    CapabilityNotSupported,
    ConnectionClosed,
    HandlerError,
    InternalError,
    InvalidArgument,
    InvalidParams,
    InvalidState,
    McpError,
    MethodNotFound,
    ProtocolError,
    ResourceNotFound,
    Timeout,
    ToolError,
    TransportError,
)
from .server import Context, RunningServer, Server, StreamableHTTPApp
from .types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionRef,
    CreateMessageParams,
    CreateMessageResult,
    ElicitParams,
    ElicitResult,
    EmbeddedResource,
    GetPromptResult,
    ImageContent,
    Implementation,
    LogMessage,
    Notification,
    Progress,
    Prompt,
    PromptArgument,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceLink,
    ResourceTemplate,
    Root,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    Tool,
    ToolAnnotations,
)

# Before the interpreter finalizes, stop the library's threads from entering
# Python (a thread entering it during finalization would abort the process).
_atexit.register(_libmcp._shutdown)

__all__ = [
    "__version__",
    "auth",
    "errors",
    "skills",
    "types",
    "Server",
    "Context",
    "RunningServer",
    "StreamableHTTPApp",
    "Client",
    "SyncClient",
    "ClientGroup",
    "ServerStatus",
    "ClientOptions",
    "Pending",
    "McpError",
    "InvalidParams",
    "MethodNotFound",
    "ResourceNotFound",
    "InternalError",
    "ToolError",
    "ConnectionClosed",
    "HandlerError",
    "Timeout",
    "Cancelled",
    "InvalidState",
    "CapabilityNotSupported",
    "ProtocolError",
    "TransportError",
    "InvalidArgument",
    "AuthError",
    "AudioContent",
    "BlobResourceContents",
    "CallToolResult",
    "Completion",
    "CompletionArgument",
    "CompletionRef",
    "CreateMessageParams",
    "CreateMessageResult",
    "ElicitParams",
    "ElicitResult",
    "EmbeddedResource",
    "GetPromptResult",
    "ImageContent",
    "Implementation",
    "LogMessage",
    "Notification",
    "Progress",
    "Prompt",
    "PromptArgument",
    "PromptMessage",
    "ReadResourceResult",
    "Resource",
    "ResourceLink",
    "ResourceTemplate",
    "Root",
    "SamplingMessage",
    "TextContent",
    "TextResourceContents",
    "Tool",
    "ToolAnnotations",
]
