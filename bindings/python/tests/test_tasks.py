"""Tasks in the Python face, under both revisions: tools declared with
`task=` run as tasks (2025-11-25 `tools/call` with `task` and `tasks/*`;
2026-07-28 the tasks extension), and the client calls them as tasks, polls,
waits, lists, cancels, and answers a task's questions through its
elicitation handler."""

from __future__ import annotations

import asyncio
from typing import Any, Dict, Iterator, List

import pytest

import libmcp
from conftest import run

PROTOCOLS = ["2025-11-25", "2026-07-28"]


class Fixture:
    def __init__(self) -> None:
        self.cancelled = 0
        self.running = 0
        server = libmcp.Server("tasks")
        self.server = server

        @server.tool(task=True)
        async def slow(ms: int) -> str:
            """Sleeps `ms` milliseconds."""
            self.running += 1
            try:
                await asyncio.sleep(ms / 1000)
            except asyncio.CancelledError:
                self.cancelled += 1
                raise
            return f"slept {ms} ms"

        @server.tool(task=True)
        async def ask(ctx: libmcp.Context) -> str:
            """Asks the user, from inside the task."""
            await asyncio.sleep(0.02)  # the question comes while it is a task
            answer = await ctx.elicit("Go?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
            return f"answered {answer.action} {answer.content}"

        @server.tool(task="optional")
        def boom() -> str:
            """Fails (a plain function, on a worker thread)."""
            raise RuntimeError("boom")

        @server.tool(task="required")
        async def must() -> str:
            """Only as a task."""
            return "as a task"

        @server.tool()
        def plain() -> str:
            """Never a task."""
            return "plain"


@pytest.fixture
def fixture() -> Iterator[Fixture]:
    f = Fixture()
    yield f
    f.server.close()


def _client(url: str, protocol: str, asked: List[str]) -> libmcp.Client:
    async def on_elicitation(params: libmcp.ElicitParams) -> Dict[str, Any]:
        asked.append(params.message)
        return {"ok": True}

    return libmcp.Client.http(url, protocol=protocol, on_elicitation=on_elicitation)


async def _until(condition: Any, timeout: float = 10.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    assert condition()


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_tool_task_polled_waited_and_cancelled(fixture: Fixture, protocol: str) -> None:
    asked: List[str] = []

    async def go() -> None:
        with fixture.server.start_http() as running:
            async with _client(running.url, protocol, asked) as client:  # type: ignore[arg-type]
                assert client.protocol_version == protocol
                task = await client.call_tool_task("slow", {"ms": 50})
                assert isinstance(task, libmcp.types.Task)
                assert task.status in ("working", "completed")
                polled = await client.get_task(task.task_id)
                assert polled.task_id == task.task_id
                result = await client.task_result(task.task_id)
                assert result.text == "slept 50 ms"
                assert (await client.get_task(task.task_id)).status == "completed"

                # A question inside the task, answered by the handler.
                task = await client.call_tool_task("ask")
                assert isinstance(task, libmcp.types.Task)
                result = await client.task_result(task.task_id)
                assert result.text == "answered accept {'ok': True}"
                assert asked == ["Go?"]

                # A failing sync tool: the task's result is an error.
                task = await client.call_tool_task("boom")
                assert isinstance(task, libmcp.types.Task)
                with pytest.raises(libmcp.ToolError, match="boom"):
                    await client.task_result(task.task_id)
                result = await client.task_result(task.task_id, raise_on_error=False)
                assert result.is_error

                # A long task cancelled: the coroutine is cancelled too.
                task = await client.call_tool_task("slow", {"ms": 60_000})
                assert isinstance(task, libmcp.types.Task)
                await _until(lambda: fixture.running == 2)
                cancelled = await client.cancel_task(task.task_id)
                assert cancelled.task_id == task.task_id
                assert cancelled.status == "cancelled"
                await _until(lambda: fixture.cancelled == 1)
                assert (await client.get_task(task.task_id)).status == "cancelled"

                # The same tool called plainly still answers.
                assert (await client.call_tool("slow", {"ms": 1})).text == "slept 1 ms"

    run(go())


def test_tasks_are_listed_in_a_2025_session(fixture: Fixture) -> None:
    with fixture.server.start_http() as running:
        with libmcp.SyncClient.http(running.url, protocol="2025-11-25") as client:  # type: ignore[arg-type]
            first = client.call_tool_task("slow", {"ms": 1})
            second = client.call_tool_task("must")
            assert isinstance(first, libmcp.types.Task) and isinstance(second, libmcp.types.Task)
            assert client.task_result(second.task_id).text == "as a task"
            listed = {task.task_id for task in client.list_tasks().tasks}
            assert {first.task_id, second.task_id} <= listed


def test_under_2026_the_server_decides(fixture: Fixture) -> None:
    """A tool that does not run as a task answers at once; the extension
    has no tasks/list; a tool that must be a task refuses a plain call."""
    with fixture.server.start_http() as running:
        with libmcp.SyncClient.http(running.url, protocol="2026-07-28") as client:  # type: ignore[arg-type]
            result = client.call_tool_task("plain")
            assert isinstance(result, libmcp.CallToolResult)
            assert result.text == "plain"
            with pytest.raises(libmcp.McpError):
                client.list_tasks()
            with pytest.raises(libmcp.McpError, match="io.modelcontextprotocol/tasks"):
                client.call_tool("must")
            task = client.call_tool_task("must")
            assert isinstance(task, libmcp.types.Task)
            assert client.task_result(task.task_id).text == "as a task"


def test_task_option_is_checked() -> None:
    server = libmcp.Server("x")
    with pytest.raises(libmcp.HandlerError, match="task="):

        @server.tool(task="sometimes")
        def f() -> str:
            return ""

    tools = libmcp.Server("y")

    @tools.tool(task="required")
    def g() -> str:
        return ""

    with tools.start_http() as running, libmcp.SyncClient.http(running.url, protocol="2025-11-25") as client:  # type: ignore[arg-type]
        (tool,) = client.list_tools()
        assert tool.execution is not None and tool.execution.task_support == "required"

