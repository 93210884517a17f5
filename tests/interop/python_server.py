"""A server built with the official Python SDK (2.3, `MCPServer`), for libmcp's
client to call (tests/tests/interop_servers.rs).

Usage: python python_server.py ERA stdio
       python python_server.py ERA http PORT

ERA is `2026` (the SDK's default: 2026-07-28 and the 2025 handshake on one
endpoint) or `2025` (handshake only, as a server of 2025-11-25: on stdio the
SDK's handshake-only loop, over HTTP a 2026-07-28 request is refused with 400
and no 2026 error, the way an older server refuses an unknown protocol
version header). Over HTTP it serves http://127.0.0.1:PORT/mcp.

What it offers: tools `add` (a + b), `ask_name` (asks the user for a name:
an input-required round at 2026-07-28, an elicitation request at 2025-11-25;
"no name" when declined) and `touch` (announces an update of a resource:
to `subscriptions/listen` streams, and to the calling session if it
subscribed with `resources/subscribe`), the resource `interop://static`,
the prompt `greet`.
"""

from __future__ import annotations

import sys
from typing import Annotated

import anyio
import mcp.types as types
from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve
from mcp.server.mcpserver.context import Context
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from pydantic import BaseModel

STATIC_URI = "interop://static"


class Name(BaseModel):
    name: str


def ask() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


server = MCPServer("python-interop-server", version="2.3")
# The sessions that subscribed with resources/subscribe (2025-11-25), by URI.
subscribed: dict[str, list] = {}


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


@server.tool()
def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(ask)]) -> str:
    """Asks the user for a name."""
    if answer.action == "accept":
        return f"hello {answer.data.name}"
    return "no name"


@server.tool()
async def touch(uri: str, ctx: Context) -> str:
    """Announces that the resource `uri` changed."""
    await ctx.notify_resource_updated(uri)
    for session in subscribed.get(uri, []):
        await session.send_resource_updated(uri)
    return f"touched {uri}"


@server.resource(STATIC_URI)
def static() -> str:
    """A static text resource."""
    return "static content"


@server.prompt()
def greet(name: str) -> str:
    """Greets someone."""
    return f"Please greet {name}."


async def on_subscribe(ctx, params: types.SubscribeRequestParams) -> types.EmptyResult:
    subscribed.setdefault(str(params.uri), []).append(ctx.session)
    return types.EmptyResult()


async def on_unsubscribe(ctx, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
    sessions = subscribed.get(str(params.uri), [])
    if ctx.session in sessions:
        sessions.remove(ctx.session)
    return types.EmptyResult()


lowlevel = server._lowlevel_server
lowlevel.add_request_handler("resources/subscribe", types.SubscribeRequestParams, on_subscribe)
lowlevel.add_request_handler("resources/unsubscribe", types.UnsubscribeRequestParams, on_unsubscribe)


async def stdio_2025() -> None:
    """The SDK's handshake-only loop over stdio."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    async with stdio_server() as (read, write):
        async with lowlevel.lifespan(lowlevel) as state:
            await serve_loop(
                lowlevel, read, write, lifespan_state=state, init_options=lowlevel.create_initialization_options()
            )


def handshake_only(app):
    """Refuses requests for revisions without a handshake the way a 2025 server does."""

    async def wrapped(scope, receive, send):
        if scope["type"] == "http":
            headers = dict(scope["headers"])
            version = headers.get(b"mcp-protocol-version", b"").decode("latin-1")
            if version and version not in HANDSHAKE_PROTOCOL_VERSIONS:
                body = (
                    b'{"jsonrpc":"2.0","id":null,"error":{"code":-32000,'
                    b'"message":"Bad Request: Unsupported protocol version"}}'
                )
                await send(
                    {"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]}
                )
                await send({"type": "http.response.body", "body": body})
                return
        await app(scope, receive, send)

    return wrapped


async def http(era: str, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app()
    if era == "2025":
        app = handshake_only(app)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await uvicorn.Server(config).serve()


def main() -> None:
    era, transport = sys.argv[1], sys.argv[2]
    if transport == "stdio":
        if era == "2025":
            anyio.run(stdio_2025)
        else:
            server.run("stdio")
    else:
        anyio.run(http, era, int(sys.argv[3]))


if __name__ == "__main__":
    main()
