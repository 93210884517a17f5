"""The libmcp fixture server the tests run: every feature of the Python API.

Usage: python libmcp_server.py stdio
       python libmcp_server.py http [PORT]   (prints the endpoint URL, then serves)
"""

from __future__ import annotations

import asyncio
import sys
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Literal, Optional

if sys.version_info >= (3, 12):
    from typing import TypedDict
else:
    from typing_extensions import TypedDict

import libmcp
from libmcp import Context, ImageContent, McpError, PromptMessage, TextContent, ToolAnnotations

server = libmcp.Server(
    "libmcp-fixture",
    version="1.2.3",
    title="libmcp test fixture",
    instructions="A server for testing libmcp.",
)

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5e2d8b30000000049454e44ae426082")

#: Requests whose handlers saw their cancellation.
CANCELLED: List[str] = []


class Color(Enum):
    RED = "red"
    GREEN = "green"


@dataclass
class Address:
    street: str
    city: str = "Paris"


@dataclass
class Person:
    """A person."""

    name: str
    age: int
    address: Optional[Address] = None
    tags: List[str] = field(default_factory=list)


class Summary(TypedDict):
    name: str
    adult: bool
    city: Optional[str]


class Contact(TypedDict):
    username: str
    email: str


# -- tools


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    """Adds two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return a + b


@server.tool()
async def add_async(a: float, b: float) -> float:
    """Adds two numbers, asynchronously."""
    await asyncio.sleep(0)
    return a + b


@server.tool()
def echo(text: str) -> str:
    """Echoes the text."""
    return text


@server.tool()
def big(megabytes: int) -> str:
    """A text of that many MiB (over the 4 MiB message limit from 5 on)."""
    return "x" * (megabytes << 20)


@server.tool()
def greet(name: str, greeting: Literal["hello", "hi"] = "hello", excited: bool = False) -> str:
    """Greets someone."""
    return f"{greeting}, {name}{'!' if excited else '.'}"


@server.tool()
def describe(person: Person, color: Color = Color.RED) -> Summary:
    """Summarizes a person (dataclass in, TypedDict out)."""
    assert isinstance(person, Person), type(person)
    assert person.address is None or isinstance(person.address, Address)
    assert isinstance(color, Color)
    return {"name": person.name, "adult": person.age >= 18, "city": person.address.city if person.address else None}


@server.tool()
def collect(tags: List[str], limits: Dict[str, int], note: Optional[str] = None) -> Dict[str, Any]:
    """Collects containers."""
    return {"tags": sorted(tags), "total": sum(limits.values()), "note": note}


@server.tool(structured_output=False)
def unstructured(n: int) -> int:
    """An int returned as text only."""
    return n * 10


try:
    import pydantic

    class Item(pydantic.BaseModel):
        """An item."""

        name: str
        price: float = pydantic.Field(description="The price in euros")
        quantity: int = 1

    @server.tool()
    def total(item: Item) -> Item:
        """Doubles an item's quantity (pydantic in and out)."""
        assert isinstance(item, Item)
        return Item(name=item.name, price=item.price, quantity=item.quantity * 2)

except ImportError:  # pragma: no cover - pydantic comes with the test deps
    pass


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports progress and logs each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i} of {steps}")
        await ctx.info(f"step {i}")
    return f"did {steps} steps"


@server.tool()
def progress_sync(steps: int, ctx: Context) -> str:
    """Reports progress from a sync handler."""
    for i in range(1, steps + 1):
        ctx.report_progress(i, steps).result()
    return f"did {steps} steps"


@server.tool()
async def log(level: Literal["debug", "info", "warning", "error"], message: str, ctx: Context) -> str:
    """Logs a message at a level."""
    await ctx.log(level, message, logger="fixture")
    return "logged"


@server.tool()
async def sample(prompt: str, ctx: Context) -> str:
    """Asks the client's model."""
    result = await ctx.sample(prompt, max_tokens=100, system_prompt="Be brief.")
    return f"model {result.model} said: {result.text}"


@server.tool()
def sample_sync(prompt: str, ctx: Context) -> str:
    """Asks the client's model, from a sync handler."""
    result = ctx.sample(prompt, max_tokens=50).result()
    return f"model {result.model} said: {result.text}"


@server.tool()
async def elicit(message: str, ctx: Context) -> str:
    """Asks the user for a contact."""
    result = await ctx.elicit(message, Contact)
    return f"{result.action}: {result.content}"


@server.tool()
async def roots(ctx: Context) -> List[str]:
    """Lists the client's roots."""
    return [r.uri for r in await ctx.list_roots()]


@server.tool()
async def sleep(seconds: float, ctx: Context) -> str:
    """Sleeps (cancellable)."""
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        CANCELLED.append(f"sleep {ctx.request_id}")
        raise
    return f"slept {seconds}"


@server.tool()
def sleep_sync(seconds: float, ctx: Context) -> str:
    """Sleeps in a sync handler, watching for cancellation."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if ctx.cancelled:
            CANCELLED.append(f"sleep_sync {ctx.request_id}")
            return "cancelled"
        time.sleep(0.01)
    return f"slept {seconds}"


@server.tool()
def cancelled_requests() -> List[str]:
    """The requests whose handlers saw their cancellation."""
    return list(CANCELLED)


@server.tool()
def fail(message: str) -> str:
    """Always fails (a tool error)."""
    raise ValueError(message)


@server.tool()
async def fail_with_code(code: int, message: str) -> str:
    """Answers with a JSON-RPC error."""
    raise McpError(message, code=code, data={"why": "asked to"})


@server.tool()
def image() -> ImageContent:
    """A 1x1 PNG."""
    return ImageContent.from_bytes(PNG, "image/png")


@server.tool()
def mixed() -> list:
    """Text and an image."""
    return [TextContent("a pixel:"), ImageContent.from_bytes(PNG, "image/png")]


@server.tool()
def touch(uri: str) -> int:
    """Tells the clients subscribed to a resource that it changed."""
    return server.notify_resource_updated(uri)


@server.tool()
def whoami(ctx: Context) -> Dict[str, Any]:
    """What the server knows about the client."""
    info = ctx.client_info
    return {
        "client": info.name if info else None,
        "protocol": ctx.protocol_version,
        "sampling": "sampling" in (ctx.client_capabilities or {}),
    }


# -- resources


@server.resource("text://static", description="A static text.", mime_type="text/plain")
def static_text() -> str:
    return "static text"


@server.resource("bin://pixel", mime_type="image/png")
def pixel() -> bytes:
    """A 1x1 PNG."""
    return PNG


@server.resource("data://config")
async def config() -> Dict[str, Any]:
    """The configuration, as JSON."""
    return {"debug": False, "level": 3}


@server.resource("greeting://{name}")
def greeting(name: str) -> str:
    """A greeting for a name."""
    return f"Hello, {name}!"


@server.resource("num://{n}/double")
def double(n: int) -> str:
    """Twice a number."""
    return str(n * 2)


@server.resource("fail://resource")
def failing_resource() -> str:
    """Always fails."""
    raise RuntimeError("the resource is broken")


# -- prompts


@server.prompt()
def review(code: str, language: str = "python") -> str:
    """Asks for a code review.

    Args:
        code: The code to review.
        language: Its language.
    """
    return f"Review this {language} code:\n{code}"


@server.prompt(title="A conversation")
async def conversation(topic: str, turns: int = 1) -> list:
    """Starts a conversation about a topic."""
    messages: List[Any] = []
    for i in range(turns):
        messages.append(PromptMessage.user(f"Tell me about {topic} ({i + 1})"))
        messages.append(PromptMessage.assistant(f"{topic} is interesting."))
    return messages


# -- completions


@server.completion(prompt="review", argument="language")
def complete_language(value: str) -> List[str]:
    return [lang for lang in ["python", "rust", "go", "pascal"] if lang.startswith(value)]


@server.completion()
async def complete_other(ref: libmcp.CompletionRef, argument: libmcp.CompletionArgument, context: Dict[str, str]) -> List[str]:
    if ref.type == "ref/resource" and argument.name == "name":
        return [n for n in ["alice", "albert", "bob"] if n.startswith(argument.value)]
    return []


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "stdio"
    if mode == "stdio":
        server.run_stdio()
    elif mode == "http":
        port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
        with server.start_http("127.0.0.1", port) as running:
            print(running.url, flush=True)
            try:
                running.wait()
            except KeyboardInterrupt:
                pass
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
