"""A server built with the official MCP Python SDK (MCPServer, formerly
FastMCP), for testing the libmcp client against it.

Usage: python official_server.py stdio
       python official_server.py http PORT
"""

from __future__ import annotations

import sys
import warnings
from typing import List

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import Completion, ResourceTemplateReference, SamplingMessage, TextContent

try:
    from mcp import MCPDeprecationWarning

    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
except ImportError:  # pragma: no cover
    pass

mcp = MCPServer(name="official-fixture", version="9.9.9", instructions="The official SDK's server.")

CANCELLED: List[str] = []


class Contact(BaseModel):
    username: str
    email: str


class Point(BaseModel):
    x: float
    y: float


@mcp.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@mcp.tool()
def echo(text: str) -> str:
    """Echoes the text."""
    return text


@mcp.tool()
def midpoint(p: Point, q: Point) -> Point:
    """The middle of two points."""
    return Point(x=(p.x + q.x) / 2, y=(p.y + q.y) / 2)


@mcp.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports progress and logs each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await ctx.info(f"step {i}")
    return f"did {steps} steps"


@mcp.tool()
async def sample(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    result = await ctx.session.create_message(
        messages=[SamplingMessage(role="user", content=TextContent(type="text", text=prompt))],
        max_tokens=64,
    )
    return f"model {result.model} said: {result.content.text}"


@mcp.tool()
async def elicit(message: str, ctx: Context) -> str:
    """Asks the user for a contact."""
    result = await ctx.elicit(message, Contact)
    if result.action == "accept":
        return f"accept: {result.data.username} <{result.data.email}>"
    return result.action


@mcp.tool()
async def roots(ctx: Context) -> List[str]:
    """The client's roots."""
    listed = await ctx.session.list_roots()
    return [str(r.uri) for r in listed.roots]


@mcp.tool()
def fail(message: str) -> str:
    """Always fails."""
    raise ValueError(message)


@mcp.tool()
async def sleep(seconds: float) -> str:
    """Sleeps (cancellable)."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        CANCELLED.append("sleep")
        raise
    return "slept"


@mcp.tool()
def cancelled_requests() -> List[str]:
    """Requests whose handlers were cancelled."""
    return list(CANCELLED)


@mcp.resource("text://hello", mime_type="text/plain")
def hello() -> str:
    """A greeting."""
    return "hello from the SDK"


@mcp.resource("user://{name}/profile")
def profile(name: str) -> str:
    """A user's profile."""
    return f"profile of {name}"


@mcp.prompt()
def review(code: str, language: str = "python") -> str:
    """Asks for a review."""
    return f"Review this {language} code:\n{code}"


@mcp.completion()
async def complete(ref, argument, context):
    if isinstance(ref, ResourceTemplateReference) and argument.name == "name":
        return Completion(values=[n for n in ("ann", "andy", "bob") if n.startswith(argument.value)])
    if argument.name == "language":
        return Completion(values=[n for n in ("python", "rust") if n.startswith(argument.value)])
    return None


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "http":
        mcp.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
