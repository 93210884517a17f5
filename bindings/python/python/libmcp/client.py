"""The client: :class:`Client` for asyncio, :class:`SyncClient` for scripts.

::

    async with libmcp.Client.stdio(["python", "server.py"]) as client:
        tools = await client.list_tools()
        result = await client.call_tool("add", {"a": 1, "b": 2})
        print(result.text)

    with libmcp.SyncClient.http("http://127.0.0.1:8000/mcp") as client:
        print(client.call_tool("add", {"a": 1, "b": 2}).data)
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, List, Mapping, Optional, Sequence, Union

from ._client_base import (
    Callback,
    ClientOptions,
    ElicitationHandler,
    SamplingHandler,
    _ClientBase,
    _http_connect,
    _stdio_connect,
)
from ._operations import _AsyncOperations, _SyncOperations
from ._pending import Pending
from .auth import OAuth
from .skills import LoadedSkill, SkillEntry, _entries
from .types import (
    CallToolResult,
    CancelTaskResult,
    Completion,
    GetPromptResult,
    GetTaskResult,
    ListTasksResult,
    LoggingLevel,
    Root,
    Task,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Client", "SyncClient", "ClientOptions", "SamplingHandler", "ElicitationHandler", "Callback"]


class Client(_AsyncOperations):
    """An MCP client for asyncio.

    Create it with :meth:`stdio` or :meth:`http`, then connect with
    ``async with`` (or :meth:`connect` and :meth:`close`). Cancelling a task
    awaiting a request cancels the request on the wire too.

    Keyword arguments (of :meth:`stdio` and :meth:`http`):
        name, version: How the client introduces itself.
        timeout: Seconds each request waits for its answer (default 60).
        protocol: How the protocol revision is chosen: ``"auto"`` (default:
            the newest both sides speak, probed with ``server/discover``
            and falling back to ``initialize`` for older servers),
            ``"legacy"`` (``initialize`` only, 2025-11-25 and older), or a
            revision such as ``"2026-07-28"`` (that one only). Anything else
            raises :class:`ValueError`. :attr:`protocol_version` tells which
            revision was agreed. Sampling and elicitation handlers answer
            the server the same way at every revision (under 2026-07-28
            through input-required rounds of the request that needs them).
        protocol_version: The same as ``protocol=`` with a revision.
        on_sampling: Answers the server's sampling requests; gets a
            :class:`~libmcp.types.CreateMessageParams`, returns a
            :class:`~libmcp.types.CreateMessageResult` (or a string).
            Declares the ``sampling`` capability.
        sampling_tools: Also declare ``sampling.tools``.
        on_elicitation: Answers the server's elicitation requests; gets an
            :class:`~libmcp.types.ElicitParams`, returns an
            :class:`~libmcp.types.ElicitResult`, a dict (accepted content) or
            ``None`` (declined). Declares ``elicitation``.
        roots: Roots to offer (URIs, :class:`~libmcp.types.Root` objects or
            dicts). Declares ``roots``.
        on_notification: Called with every server
            :class:`~libmcp.types.Notification`.
        on_log: Called with every :class:`~libmcp.types.LogMessage`.

    Handlers and callbacks may be plain or coroutine functions; coroutine
    functions and plain callbacks run on the event loop that connected,
    plain sampling/elicitation handlers on a worker thread.
    """

    @classmethod
    def stdio(
        cls,
        command: Union[str, Sequence[str]],
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        inherit_env: bool = False,
        on_stderr: Optional[Callable[[str], Any]] = None,
        **options: Unpack[ClientOptions],
    ) -> "Client":
        """A client of the server started as ``command`` (``[program,
        *args]``), talking over its stdin and stdout.

        The server gets a small safe environment (``PATH``, ``HOME``,
        ``LANG``, …) plus ``env``, or all of this process's with
        ``inherit_env``. Each line it writes to stderr goes to ``on_stderr``
        (default: this process's stderr). Closing the client closes the
        server's stdin, then terminates it if it does not exit.
        """
        return cls(_stdio_connect(command, env, cwd, inherit_env, on_stderr), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        auth: Optional[OAuth] = None,
        **options: Unpack[ClientOptions],
    ) -> "Client":
        """A client of the Streamable HTTP endpoint ``url``, sending
        ``headers`` (e.g. ``Authorization``) with every request. With
        ``auth`` (a :class:`libmcp.auth.OAuth`), a server that answers 401
        is authorized with OAuth 2.1; a failed authorization raises
        :class:`~libmcp.AuthError`."""
        return cls(_http_connect(url, headers, auth), **options)

    async def connect(self) -> "Client":
        """Connects and initializes the session (no-op if connected)."""
        if self._core is None:
            self._loop = asyncio.get_running_loop()
            self._core = await self._open()
        return self

    async def close(self) -> None:
        """Ends the session and closes the transport (idempotent)."""
        pending = self._close()
        if pending is not None:
            await pending

    async def __aenter__(self) -> "Client":
        return await self.connect()

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        on_progress: Optional[Callback] = None,
        raise_on_error: bool = True,
    ) -> CallToolResult:
        """Calls a tool.

        Args:
            name: The tool.
            arguments: Its arguments (JSON-compatible; dataclasses and
                pydantic models are converted).
            timeout: Seconds to wait instead of the client's timeout.
            on_progress: Called with each :class:`~libmcp.types.Progress`
                the tool reports.
            raise_on_error: Raise :class:`~libmcp.ToolError` when the result
                has ``isError: true`` (default); otherwise return it.

        Raises:
            ToolError: The tool failed (with ``raise_on_error``).
            InvalidParams: No such tool.
            Timeout: No answer in time (the call was cancelled).
        """
        return await self._call_tool(name, arguments, timeout, on_progress, raise_on_error)

    async def call_tool_task(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, ttl: Optional[float] = None
    ) -> Union[Task, CallToolResult]:
        """Calls a tool as a task, under either revision: in a 2025-11-25
        session ``tools/call`` with ``task`` (the server must declare task
        support and the tool allow it; ``ttl`` asks how many seconds the
        server keeps the task); under 2026-07-28 declaring the tasks
        extension, where the server decides. Returns the
        :class:`~libmcp.types.Task` (poll it with :meth:`get_task`, wait
        with :meth:`task_result`, stop it with :meth:`cancel_task`), or the
        final :class:`~libmcp.types.CallToolResult` when the server ran
        the call at once."""
        return await self._call_tool_task(name, arguments, ttl)

    async def get_task(self, task_id: str) -> GetTaskResult:
        """The task's status (``tasks/get``)."""
        return await Pending(self._c().get_task(task_id), GetTaskResult.from_dict)

    async def task_result(self, task_id: str, *, raise_on_error: bool = True) -> CallToolResult:
        """Waits for a tool-call task to end and returns the tool's result
        (raising :class:`~libmcp.ToolError` for ``isError`` unless
        ``raise_on_error=False``; :class:`~libmcp.Cancelled` if it was
        cancelled). Questions the task asks meanwhile (elicitation,
        sampling) go to the client's handlers."""
        return await self._task_result(task_id, raise_on_error)

    async def list_tasks(self, cursor: Optional[str] = None) -> ListTasksResult:
        """One page of the server's tasks (``tasks/list``; 2025-11-25 only,
        the 2026-07-28 tasks extension has no listing)."""
        return await Pending(self._c().list_tasks(cursor), ListTasksResult.from_dict)

    async def cancel_task(self, task_id: str) -> CancelTaskResult:
        """Cancels a task (``tasks/cancel``); returns the task as it is then."""
        return await Pending(self._c().cancel_task(task_id), CancelTaskResult.from_dict)

    async def list_skills(self) -> List[SkillEntry]:
        """Every skill the server offers (``skills/list``, all pages; the
        skills extension). Reads no skill file. Raises
        :class:`~libmcp.CapabilityNotSupported` if the server does not
        declare the extension."""
        return await Pending(self._c().list_skills(), _entries)

    async def get_skill(self, uri: str) -> SkillEntry:
        """The entry of the skill whose ``SKILL.md`` is at ``uri``
        (``skills/get``)."""
        return await Pending(self._c().get_skill(uri), SkillEntry.from_dict)

    async def load_skill(self, uri: str) -> LoadedSkill:
        """Looks up the skill at ``uri`` and reads its ``SKILL.md``, verified
        against the entry (size, digest, frontmatter); raises
        :class:`~libmcp.ProtocolError` on a mismatch."""
        return await Pending(self._c().load_skill(uri), LoadedSkill._from_native)

    async def read_skill_file(self, skill_uri: str, file_uri: str) -> bytes:
        """Reads ``file_uri``, a file the entry of the skill at ``skill_uri``
        lists, verified (size, digest); raises
        :class:`~libmcp.ProtocolError` on a mismatch or a file the entry
        does not list."""
        return await Pending(self._c().read_skill_file(skill_uri, file_uri), bytes)

    async def get_prompt(self, name: str, arguments: Optional[Mapping[str, Any]] = None) -> GetPromptResult:
        """Renders a prompt (non-string arguments are sent as JSON)."""
        return await self._get_prompt(name, arguments)

    async def complete_prompt(
        self, prompt: str, argument: str, value: str, context: Optional[Mapping[str, str]] = None
    ) -> Completion:
        """Completions for an argument of a prompt."""
        return await self._complete({"type": "ref/prompt", "name": prompt}, argument, value, context)

    async def complete_resource(
        self, uri_template: str, argument: str, value: str, context: Optional[Mapping[str, str]] = None
    ) -> Completion:
        """Completions for a variable of a resource template."""
        return await self._complete({"type": "ref/resource", "uri": uri_template}, argument, value, context)

    async def set_logging_level(self, level: LoggingLevel) -> None:
        """Asks the server for log messages at ``level`` and above."""
        await self._set_logging_level(level)

    async def set_roots(self, roots: Sequence[Union[Root, str, Mapping[str, Any]]]) -> None:
        """Replaces the roots offered (needs ``roots=`` at creation) and
        tells the server."""
        await self._set_roots(roots)

    async def request(self, method: str, params: Any = None, *, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its raw result (wire form)."""
        return await self._request(method, params, timeout)

    async def wait_closed(self) -> str:
        """Waits until the session ends (e.g. the server exits); returns
        why."""
        return await Pending(self._c().closed())


class SyncClient(_SyncOperations):
    """The blocking twin of :class:`Client`, for scripts: the same
    constructors, options and methods, without ``await``.

    Each call releases the GIL while it waits; Ctrl-C cancels the request
    and raises ``KeyboardInterrupt``. Callbacks and handlers run on a
    library thread (coroutine functions with ``asyncio.run`` there).
    """

    @classmethod
    def stdio(
        cls,
        command: Union[str, Sequence[str]],
        *,
        env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None,
        inherit_env: bool = False,
        on_stderr: Optional[Callable[[str], Any]] = None,
        **options: Unpack[ClientOptions],
    ) -> "SyncClient":
        """See :meth:`Client.stdio`."""
        return cls(_stdio_connect(command, env, cwd, inherit_env, on_stderr), **options)

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Optional[Mapping[str, str]] = None,
        auth: Optional[OAuth] = None,
        **options: Unpack[ClientOptions],
    ) -> "SyncClient":
        """See :meth:`Client.http`."""
        return cls(_http_connect(url, headers, auth), **options)

    def connect(self) -> "SyncClient":
        """Connects and initializes the session (no-op if connected)."""
        if self._core is None:
            self._core = self._open().result()
        return self

    def close(self) -> None:
        """Ends the session and closes the transport (idempotent)."""
        pending = self._close()
        if pending is not None:
            pending.result()

    def __enter__(self) -> "SyncClient":
        return self.connect()

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]] = None,
        *,
        timeout: Optional[float] = None,
        on_progress: Optional[Callback] = None,
        raise_on_error: bool = True,
    ) -> CallToolResult:
        """See :meth:`Client.call_tool`."""
        return self._call_tool(name, arguments, timeout, on_progress, raise_on_error).result()

    def call_tool_task(
        self, name: str, arguments: Optional[Mapping[str, Any]] = None, *, ttl: Optional[float] = None
    ) -> Union[Task, CallToolResult]:
        """See :meth:`Client.call_tool_task`."""
        return self._call_tool_task(name, arguments, ttl).result()

    def get_task(self, task_id: str) -> GetTaskResult:
        """See :meth:`Client.get_task`."""
        return Pending(self._c().get_task(task_id), GetTaskResult.from_dict).result()

    def task_result(self, task_id: str, *, raise_on_error: bool = True) -> CallToolResult:
        """See :meth:`Client.task_result`."""
        return self._task_result(task_id, raise_on_error).result()

    def list_tasks(self, cursor: Optional[str] = None) -> ListTasksResult:
        """See :meth:`Client.list_tasks`."""
        return Pending(self._c().list_tasks(cursor), ListTasksResult.from_dict).result()

    def cancel_task(self, task_id: str) -> CancelTaskResult:
        """See :meth:`Client.cancel_task`."""
        return Pending(self._c().cancel_task(task_id), CancelTaskResult.from_dict).result()

    def list_skills(self) -> List[SkillEntry]:
        """See :meth:`Client.list_skills`."""
        return Pending(self._c().list_skills(), _entries).result()

    def get_skill(self, uri: str) -> SkillEntry:
        """See :meth:`Client.get_skill`."""
        return Pending(self._c().get_skill(uri), SkillEntry.from_dict).result()

    def load_skill(self, uri: str) -> LoadedSkill:
        """See :meth:`Client.load_skill`."""
        return Pending(self._c().load_skill(uri), LoadedSkill._from_native).result()

    def read_skill_file(self, skill_uri: str, file_uri: str) -> bytes:
        """See :meth:`Client.read_skill_file`."""
        return Pending(self._c().read_skill_file(skill_uri, file_uri), bytes).result()

    def get_prompt(self, name: str, arguments: Optional[Mapping[str, Any]] = None) -> GetPromptResult:
        """See :meth:`Client.get_prompt`."""
        return self._get_prompt(name, arguments).result()

    def complete_prompt(
        self, prompt: str, argument: str, value: str, context: Optional[Mapping[str, str]] = None
    ) -> Completion:
        """See :meth:`Client.complete_prompt`."""
        return self._complete({"type": "ref/prompt", "name": prompt}, argument, value, context).result()

    def complete_resource(
        self, uri_template: str, argument: str, value: str, context: Optional[Mapping[str, str]] = None
    ) -> Completion:
        """See :meth:`Client.complete_resource`."""
        return self._complete({"type": "ref/resource", "uri": uri_template}, argument, value, context).result()

    def set_logging_level(self, level: LoggingLevel) -> None:
        """See :meth:`Client.set_logging_level`."""
        self._set_logging_level(level).result()

    def set_roots(self, roots: Sequence[Union[Root, str, Mapping[str, Any]]]) -> None:
        """See :meth:`Client.set_roots`."""
        self._set_roots(roots).result()

    def request(self, method: str, params: Any = None, *, timeout: Optional[float] = None) -> Any:
        """See :meth:`Client.request`."""
        return self._request(method, params, timeout).result()

    def wait_closed(self, timeout: Optional[float] = None) -> str:
        """See :meth:`Client.wait_closed`."""
        return Pending(self._c().closed()).result(timeout)
