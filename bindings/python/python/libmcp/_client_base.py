"""What the clients share: their options, the handlers' answers, the
connection and each operation as a :class:`~libmcp.Pending`
(:class:`_ClientBase`), and the stdio and HTTP connectors."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
import weakref
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Type,
    TypedDict,
    TypeVar,
    Union,
)

from . import _libmcp, _methods
from ._functions import check_function
from ._invoke import Failure, Invoker
from ._pending import Pending
from ._schema import to_jsonable
from .auth import OAuth
from .errors import INTERNAL_ERROR, ConnectionClosed, McpError, ToolError
from .types import (
    CallToolResult,
    Completion,
    CreateMessageParams,
    CreateMessageResult,
    ElicitParams,
    ElicitResult,
    GetPromptResult,
    Implementation,
    LoggingLevel,
    LogMessage,
    Model,
    Notification,
    Progress,
    Root,
    Task,
)

M = TypeVar("M", bound=Model)

#: A handler of the server's sampling requests.
SamplingHandler = Callable[[CreateMessageParams], Union[CreateMessageResult, str, Mapping[str, Any], Awaitable[Any]]]
#: A handler of the server's elicitation requests.
ElicitationHandler = Callable[[ElicitParams], Union[ElicitResult, Mapping[str, Any], None, Awaitable[Any]]]
#: A callback; may be a plain function or a coroutine function.
Callback = Callable[[Any], Any]


class ClientOptions(TypedDict, total=False):
    """The keyword options of :meth:`Client.stdio` and :meth:`Client.http`
    (see :class:`Client`)."""

    name: str
    version: str
    timeout: float
    protocol: str
    protocol_version: str
    on_sampling: SamplingHandler
    sampling_tools: bool
    on_elicitation: ElicitationHandler
    roots: Sequence[Union[Root, str, Mapping[str, Any]]]
    on_notification: Callback
    on_log: Callback


def _list_of(cls: Type[M]) -> Callable[[Any], List[M]]:
    return lambda items: [cls.from_dict(item) for item in items]


def _root_dict(root: Union[Root, str, Mapping[str, Any]]) -> Dict[str, Any]:
    if isinstance(root, Root):
        return root.to_dict()
    if isinstance(root, str):
        return {"uri": root}
    return dict(root)


def _sampling_answer(_params: Any, value: Any) -> Dict[str, Any]:
    if isinstance(value, CreateMessageResult):
        return value.to_dict()
    if isinstance(value, str):
        return {"role": "assistant", "content": {"type": "text", "text": value}, "model": "unknown"}
    return dict(value)


def _elicitation_answer(_params: Any, value: Any) -> Dict[str, Any]:
    if isinstance(value, ElicitResult):
        return value.to_dict()
    if value is None:
        return {"action": "decline"}
    return {"action": "accept", "content": to_jsonable(value)}


def _handler_failure(error: BaseException) -> Failure:
    if isinstance(error, McpError):
        code = error.code if error.code is not None else INTERNAL_ERROR
        return ("reject", code, error.message or type(error).__name__, to_jsonable(error.data))
    return ("reject", INTERNAL_ERROR, str(error) or type(error).__name__, None)


def _write_stderr(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


class _ClientBase:
    """What :class:`Client` and :class:`SyncClient` share: configuration,
    the connection, and each operation as a :class:`~libmcp.Pending`."""

    def __init__(
        self,
        connect: Callable[[Dict[str, Any]], _libmcp.Call],
        *,
        name: str = "libmcp-python",
        version: Optional[str] = None,
        timeout: Optional[float] = None,
        protocol: str = "auto",
        protocol_version: Optional[str] = None,
        on_sampling: Optional[SamplingHandler] = None,
        sampling_tools: bool = False,
        on_elicitation: Optional[ElicitationHandler] = None,
        roots: Optional[Sequence[Union[Root, str, Mapping[str, Any]]]] = None,
        on_notification: Optional[Callback] = None,
        on_log: Optional[Callback] = None,
    ) -> None:
        for option, callback in (
            ("on_sampling", on_sampling),
            ("on_elicitation", on_elicitation),
            ("on_notification", on_notification),
            ("on_log", on_log),
        ):
            if callback is not None:
                check_function(callback, f"{option}=")
        _libmcp.check_protocol(protocol)
        if protocol_version is not None and protocol != "auto":
            raise ValueError("give protocol= or protocol_version=, not both")
        self._connect = connect
        self._settings: Dict[str, Any] = {
            "name": name,
            "version": version if version is not None else _libmcp.__version__,
            "request_timeout": timeout,
            "protocol": protocol,
            "protocol_version": protocol_version,
            "sampling_tools": sampling_tools,
        }
        self._on_sampling = on_sampling
        self._on_elicitation = on_elicitation
        self._roots = [_root_dict(r) for r in roots] if roots is not None else None
        self._on_notification = on_notification
        self._on_log = on_log
        self._core: Optional[_libmcp.ClientCore] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None

    # -- plumbing

    def _options(self) -> Dict[str, Any]:
        options = dict(self._settings)
        # The engine holds these callables for the connection's lifetime:
        # they refer to this client weakly, so that a client dropped without
        # `close()` is still collected (and its connection shut down).
        me = weakref.ref(self)

        def loop() -> Optional[asyncio.AbstractEventLoop]:
            client = me()
            return client._loop if client is not None else None

        def deliver(wire: Dict[str, Any]) -> None:
            client = me()
            if client is not None:
                client._deliver_notification(wire)

        if self._on_sampling is not None:
            handler = self._on_sampling
            options["on_sampling"] = Invoker(
                lambda params, _ctx: handler(CreateMessageParams.from_dict(params)),
                inspect.iscoroutinefunction(handler),
                loop,
                _sampling_answer,
                _handler_failure,
            )
        if self._on_elicitation is not None:
            elicit = self._on_elicitation
            options["on_elicitation"] = Invoker(
                lambda params, _ctx: elicit(ElicitParams.from_dict(params)),
                inspect.iscoroutinefunction(elicit),
                loop,
                _elicitation_answer,
                _handler_failure,
            )
        if self._roots is not None:
            options["roots"] = self._roots
        options["loop"] = loop  # for connectors' own callbacks (OAuth)
        if self._on_notification is not None or self._on_log is not None:
            options["on_notification"] = deliver
        return options

    def _dispatch(self, callback: Callback, value: Any) -> None:
        """Runs a user callback: on the client's event loop for
        :class:`Client`, on the delivery thread for :class:`SyncClient`."""
        loop = self._loop
        if loop is None:
            if inspect.iscoroutinefunction(callback):
                asyncio.run(callback(value))
            else:
                callback(value)
            return
        if inspect.iscoroutinefunction(callback):
            asyncio.run_coroutine_threadsafe(callback(value), loop)
        else:
            try:
                loop.call_soon_threadsafe(callback, value)
            except RuntimeError:  # the loop is closed
                pass

    def _deliver_notification(self, wire: Dict[str, Any]) -> None:
        notification = Notification.from_dict(wire)
        if self._on_log is not None and notification.method == _methods.NOTIFICATIONS_MESSAGE:
            self._dispatch(self._on_log, LogMessage.from_dict(notification.params or {}))
        if self._on_notification is not None:
            self._dispatch(self._on_notification, notification)

    def _c(self) -> _libmcp.ClientCore:
        core = self._core
        if core is None:
            raise ConnectionClosed("the client is not connected")
        return core

    def _open(self) -> Pending[_libmcp.ClientCore]:
        return Pending(self._connect(self._options()))

    def _close(self) -> Optional[Pending[None]]:
        core, self._core = self._core, None
        if core is None:
            return None
        return Pending(core.close(), lambda _v: core.shutdown())

    # -- information

    @property
    def connected(self) -> bool:
        """Whether the client is connected (until :meth:`close`)."""
        return self._core is not None

    @property
    def server_info(self) -> Implementation:
        """The server's name and version."""
        return Implementation.from_dict(self._c().server_info)

    @property
    def server_capabilities(self) -> Dict[str, Any]:
        """What the server declared it supports (wire form)."""
        return self._c().server_capabilities

    @property
    def instructions(self) -> Optional[str]:
        """The server's instructions, if any."""
        return self._c().instructions

    @property
    def protocol_version(self) -> str:
        """The negotiated protocol revision."""
        return self._c().protocol_version

    # -- operations, as Pending

    def _call_tool(
        self,
        name: str,
        arguments: Optional[Mapping[str, Any]],
        timeout: Optional[float],
        on_progress: Optional[Callback],
        raise_on_error: bool,
    ) -> Pending[CallToolResult]:
        progress = None
        if on_progress is not None:
            callback = on_progress
            progress = lambda p: self._dispatch(callback, Progress.from_dict(p))  # noqa: E731
        args = to_jsonable(arguments) if arguments is not None else None

        def convert(wire: Dict[str, Any]) -> CallToolResult:
            result = CallToolResult.from_dict(wire)
            if raise_on_error and result.is_error:
                raise ToolError(result.text or f"the tool {name!r} failed", result=result)
            return result

        call = self._c().call_tool(name, args, timeout=timeout, on_progress=progress)
        return Pending(call, convert)

    def _call_tool_task(
        self, name: str, arguments: Optional[Mapping[str, Any]], ttl: Optional[float]
    ) -> "Pending[Union[Task, CallToolResult]]":
        args = to_jsonable(arguments) if arguments is not None else None

        def convert(wire: Dict[str, Any]) -> Union[Task, CallToolResult]:
            if "task" in wire:
                return Task.from_dict(wire["task"])
            return CallToolResult.from_dict(wire["result"])

        return Pending(self._c().start_tool_task(name, args, ttl=ttl), convert)

    def _task_result(self, task_id: str, raise_on_error: bool) -> Pending[CallToolResult]:
        def convert(wire: Dict[str, Any]) -> CallToolResult:
            result = CallToolResult.from_dict(wire)
            if raise_on_error and result.is_error:
                raise ToolError(result.text or f"the task {task_id!r} failed", result=result)
            return result

        return Pending(self._c().tool_task_result(task_id), convert)

    def _get_prompt(self, name: str, arguments: Optional[Mapping[str, Any]]) -> Pending[GetPromptResult]:
        args = None
        if arguments is not None:
            args = {k: v if isinstance(v, str) else json.dumps(to_jsonable(v)) for k, v in arguments.items()}
        return Pending(self._c().get_prompt(name, args), GetPromptResult.from_dict)

    def _complete(
        self,
        ref: Dict[str, Any],
        argument: str,
        value: str,
        context: Optional[Mapping[str, str]],
    ) -> Pending[Completion]:
        params: Dict[str, Any] = {"ref": ref, "argument": {"name": argument, "value": value}}
        if context:
            params["context"] = {"arguments": dict(context)}
        return Pending(self._c().complete(params), lambda r: Completion.from_dict(r.get("completion", {})))

    def _set_logging_level(self, level: LoggingLevel) -> Pending[None]:
        return Pending(self._c().set_logging_level(level))

    def _set_roots(self, roots: Sequence[Union[Root, str, Mapping[str, Any]]]) -> Pending[None]:
        return Pending(self._c().set_roots([_root_dict(r) for r in roots]))

    def _request(self, method: str, params: Any, timeout: Optional[float]) -> Pending[Any]:
        return Pending(self._c().request(method, to_jsonable(params), timeout=timeout))

    def __repr__(self) -> str:
        if self._core is None:
            return f"<{type(self).__name__} (not connected)>"
        return f"<{type(self).__name__} connected to {self.server_info.name!r}>"


def _stdio_connect(
    command: Union[str, Sequence[str]],
    env: Optional[Mapping[str, str]],
    cwd: Optional[str],
    inherit_env: bool,
    on_stderr: Optional[Callable[[str], Any]],
) -> Callable[[Dict[str, Any]], _libmcp.Call]:
    argv = [command] if isinstance(command, str) else [str(a) for a in command]
    if not argv:
        raise ValueError("the command is empty")
    sink = on_stderr if on_stderr is not None else _write_stderr

    def connect(options: Dict[str, Any]) -> _libmcp.Call:
        return _libmcp.connect_stdio(
            argv[0],
            argv[1:],
            options,
            env=dict(env) if env is not None else None,
            cwd=None if cwd is None else str(cwd),
            inherit_env=inherit_env,
            on_stderr=sink,
        )

    return connect


def _http_connect(
    url: str, headers: Optional[Mapping[str, str]], auth: Optional["OAuth"] = None
) -> Callable[[Dict[str, Any]], _libmcp.Call]:
    if auth is not None and not isinstance(auth, OAuth):
        raise TypeError(f"auth= takes a libmcp.auth.OAuth, not {type(auth).__name__}")

    def connect(options: Dict[str, Any]) -> _libmcp.Call:
        provider = auth._provider(url, options["loop"]) if auth is not None else None
        return _libmcp.connect_http(url, options, headers=dict(headers) if headers is not None else None, auth=provider)

    return connect
