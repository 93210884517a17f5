"""OpenTelemetry trace context across the package (``libmcp/_telemetry.py``):
a client call carries the caller's current context, a handler runs in its
request's, and without ``opentelemetry`` (or with a broken context)
everything still works.

The server runs in this process over HTTP, so the caller's spans and the
handlers' land in the same in-memory exporter."""

from __future__ import annotations

import importlib
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest
from conftest import run
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import libmcp
from libmcp import _libmcp, _telemetry

EXPORTER = InMemorySpanExporter()
PROVIDER = TracerProvider()
PROVIDER.add_span_processor(SimpleSpanProcessor(EXPORTER))
TRACER = PROVIDER.get_tracer("libmcp-tests")

server = libmcp.Server("telemetry-test", version="1.0.0")


@server.tool()
def sync_tool() -> str:
    """Starts a span in a sync handler."""
    with TRACER.start_as_current_span("handler sync_tool"):
        return "sync"


@server.tool()
async def async_tool() -> str:
    """Starts a span in a coroutine handler."""
    with TRACER.start_as_current_span("handler async_tool"):
        return "async"


@server.tool()
async def asks_the_client(ctx: libmcp.Context) -> str:
    """Asks the client for a sampling, inside a span of its own."""
    with TRACER.start_as_current_span("handler asks_the_client"):
        result = await ctx.sample("hello", max_tokens=10)
        return result.text or ""


@server.prompt()
def traced_prompt() -> str:
    """A prompt that starts a span."""
    with TRACER.start_as_current_span("handler traced_prompt"):
        return "a prompt"


@server.resource("trace://resource")
def traced_resource() -> str:
    """A resource that starts a span."""
    with TRACER.start_as_current_span("handler traced_resource"):
        return "a resource"


HANDLERS = {
    "handler sync_tool",
    "handler async_tool",
    "handler traced_prompt",
    "handler traced_resource",
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with server.start_http("127.0.0.1", 0) as running:
        assert running.url is not None
        yield running.url


@pytest.fixture(autouse=True)
def fresh() -> Iterator[None]:
    """An empty exporter, and the package's own hooks again afterwards."""
    EXPORTER.clear()
    yield
    importlib.reload(_telemetry)


def spans() -> Dict[str, ReadableSpan]:
    return {span.name: span for span in EXPORTER.get_finished_spans()}


def parent_of(span: ReadableSpan) -> Optional[int]:
    return span.parent.span_id if span.parent is not None else None


async def call_each(client: libmcp.Client) -> None:
    assert (await client.call_tool("sync_tool")).text == "sync"
    assert (await client.call_tool("async_tool")).text == "async"
    assert (await client.get_prompt("traced_prompt")).messages
    assert (await client.read_resource("trace://resource")).text == "a resource"


def call_each_sync(client: libmcp.SyncClient) -> None:
    assert client.call_tool("sync_tool").text == "sync"
    assert client.call_tool("async_tool").text == "async"
    assert client.get_prompt("traced_prompt").messages
    assert client.read_resource("trace://resource").text == "a resource"


def assert_children_of(caller: str, names: Any) -> None:
    recorded = spans()
    parent = recorded[caller].context
    for name in names:
        span = recorded[name]
        assert span.context.trace_id == parent.trace_id, name
        assert parent_of(span) == parent.span_id, name


def assert_roots(names: Any) -> None:
    recorded = spans()
    for name in names:
        assert recorded[name].parent is None, name


@pytest.mark.parametrize("protocol", ["auto", "2025-11-25"])
def test_an_async_call_carries_the_callers_context(url: str, protocol: str) -> None:
    assert _telemetry.available()

    async def main() -> None:
        async with libmcp.Client.http(url, protocol=protocol) as client:
            with TRACER.start_as_current_span("caller"):
                await call_each(client)

    run(main())
    assert_children_of("caller", HANDLERS)


def test_a_sync_call_carries_the_callers_context(url: str) -> None:
    with libmcp.SyncClient.http(url) as client:
        with TRACER.start_as_current_span("caller"):
            call_each_sync(client)
    assert_children_of("caller", HANDLERS)


def test_a_call_outside_any_span_starts_no_trace(url: str) -> None:
    with libmcp.SyncClient.http(url) as client:
        with TRACER.start_as_current_span("earlier"):
            client.call_tool("sync_tool")
        EXPORTER.clear()
        call_each_sync(client)
    # A handler's context was detached after it: nothing leaks to the next.
    assert_roots(HANDLERS)


def test_a_handlers_own_requests_carry_its_span(url: str) -> None:
    def on_sampling(params: libmcp.CreateMessageParams) -> str:
        with TRACER.start_as_current_span("client on_sampling"):
            return "sampled"

    async def main() -> str:
        async with libmcp.Client.http(url, protocol="2025-11-25", on_sampling=on_sampling) as client:
            with TRACER.start_as_current_span("caller"):
                return (await client.call_tool("asks_the_client")).text

    assert run(main()) == "sampled"
    assert_children_of("caller", ["handler asks_the_client"])
    assert_children_of("handler asks_the_client", ["client on_sampling"])


def test_without_opentelemetry_everything_works(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("opentelemetry", "opentelemetry.context", "opentelemetry.propagate"):
        monkeypatch.setitem(sys.modules, name, None)
    importlib.reload(_telemetry)
    assert not _telemetry.available()

    async def main() -> None:
        async with libmcp.Client.http(url) as client:
            with TRACER.start_as_current_span("caller"):
                await call_each(client)

    run(main())
    with libmcp.SyncClient.http(url) as client:
        with TRACER.start_as_current_span("caller"):
            call_each_sync(client)
    assert_roots(HANDLERS)


def broken_hooks(current: Callable[[], Any], attach: Callable[[Dict[str, str]], Any]) -> None:
    _libmcp.set_trace_hooks(current, attach)


@pytest.mark.parametrize(
    "carrier",
    [
        {"traceparent": "not a traceparent"},
        {"traceparent": "00-00000000000000000000000000000000-00f067aa0ba902b7-01"},
        {"traceparent": 42},
        {"tracestate": "a=b"},
        "not a dict",
        None,
    ],
)
def test_a_malformed_context_is_ignored(url: str, carrier: Any) -> None:
    attached: List[Dict[str, str]] = []

    def attach(c: Dict[str, str]) -> Callable[[], None]:
        attached.append(c)
        return lambda: None

    broken_hooks(lambda: carrier, attach)
    with libmcp.SyncClient.http(url) as client:
        call_each_sync(client)
    assert attached == []


def test_failing_hooks_fail_no_call(url: str) -> None:
    def current() -> Dict[str, str]:
        raise RuntimeError("inject failed")

    def attach(c: Dict[str, str]) -> Callable[[], None]:
        raise RuntimeError("attach failed")

    with libmcp.SyncClient.http(url) as client:
        with TRACER.start_as_current_span("caller"):
            broken_hooks(_telemetry.current, attach)
            call_each_sync(client)
            broken_hooks(current, _telemetry.attach)
            call_each_sync(client)
