"""The server: register tools, resources, prompts and completions with
decorators, then serve over stdio or Streamable HTTP."""

from __future__ import annotations

import asyncio
import enum
import inspect
import json
import re
import typing
from typing import (
    Any,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    overload,
)

from . import _libmcp
from ._invoke import Failure, Invoker, LoopThread
from ._pending import Pending
from ._schema import (
    FunctionSpec,
    OutputSpec,
    SchemaError,
    _inline,
    _strip_annotated,
    converter_for,
    inspect_function,
    output_spec,
    schema_for,
    to_jsonable,
)
from .errors import INTERNAL_ERROR, InvalidParams, McpError, ToolError
from .types import (
    BlobResourceContents,
    CallToolResult,
    Completion,
    CompletionArgument,
    CompletionRef,
    ContentBlock,
    CreateMessageResult,
    ElicitResult,
    GetPromptResult,
    Implementation,
    LoggingLevel,
    Model,
    ModelPreferences,
    PromptMessage,
    ReadResourceResult,
    Root,
    SamplingMessage,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

__all__ = ["Server", "Context", "RunningServer"]

F = TypeVar("F", bound=Callable[..., Any])


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class Context:
    """What a handler gets besides its arguments, when it declares a
    parameter annotated ``Context``: the request, the client, and ways to
    talk back to it.

    The methods that talk to the client return a :class:`~libmcp.Pending`:
    ``await`` it in a coroutine handler, call ``.result()`` in a sync one
    (or drop it, for notifications).
    """

    __slots__ = ("_core",)

    def __init__(self, core: _libmcp.ServerContext) -> None:
        self._core = core

    @property
    def request_id(self) -> Union[str, int, None]:
        """The id of the request being handled."""
        return self._core.request_id

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled the request (or the session ended);
        long-running sync handlers should check it."""
        return self._core.cancelled

    @property
    def client_info(self) -> Optional[Implementation]:
        """The client's name and version."""
        info = self._core.client_info
        return Implementation.from_dict(info) if info else None

    @property
    def client_capabilities(self) -> Optional[Dict[str, Any]]:
        """What the client declared it supports (wire form)."""
        return self._core.client_capabilities

    @property
    def protocol_version(self) -> Optional[str]:
        """The negotiated protocol revision."""
        return self._core.protocol_version

    @property
    def progress_token(self) -> Union[str, int, None]:
        """The progress token the client sent, if it asked for progress."""
        return self._core.progress_token

    def report_progress(
        self, progress: float, total: Optional[float] = None, message: Optional[str] = None
    ) -> Pending[None]:
        """Reports progress (sent only if the client asked for it)."""
        return Pending(self._core.progress(float(progress), None if total is None else float(total), message))

    def log(self, level: LoggingLevel, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Sends a log message (if ``level`` passes the level the client
        set); ``data`` is any JSON-compatible value."""
        return Pending(self._core.log(level, to_jsonable(data), logger))

    def debug(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``debug``."""
        return self.log("debug", data, logger=logger)

    def info(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``info``."""
        return self.log("info", data, logger=logger)

    def notice(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``notice``."""
        return self.log("notice", data, logger=logger)

    def warning(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``warning``."""
        return self.log("warning", data, logger=logger)

    def error(self, data: Any, *, logger: Optional[str] = None) -> Pending[None]:
        """Logs at ``error``."""
        return self.log("error", data, logger=logger)

    def sample(
        self,
        messages: Union[str, Sequence[Union[str, SamplingMessage, Mapping[str, Any]]]],
        *,
        max_tokens: int = 1000,
        system_prompt: Optional[str] = None,
        temperature: Optional[float] = None,
        stop_sequences: Optional[Sequence[str]] = None,
        model_preferences: Union[ModelPreferences, Mapping[str, Any], None] = None,
        include_context: Optional[str] = None,
        metadata: Optional[Mapping[str, Any]] = None,
    ) -> Pending[CreateMessageResult]:
        """Asks the client's model for a completion (``sampling/createMessage``).

        ``messages`` is a string (one user message) or a list of strings
        (user messages), :class:`~libmcp.types.SamplingMessage` objects or
        wire-form dicts. Raises :class:`~libmcp.CapabilityNotSupported` if
        the client did not declare sampling.
        """
        if isinstance(messages, str):
            messages = [messages]
        wire: List[Any] = []
        for m in messages:
            if isinstance(m, str):
                wire.append({"role": "user", "content": {"type": "text", "text": m}})
            elif isinstance(m, Model):
                wire.append(m.to_dict())
            else:
                wire.append(dict(m))
        params: Dict[str, Any] = {"messages": wire, "maxTokens": max_tokens}
        if system_prompt is not None:
            params["systemPrompt"] = system_prompt
        if temperature is not None:
            params["temperature"] = temperature
        if stop_sequences is not None:
            params["stopSequences"] = list(stop_sequences)
        if model_preferences is not None:
            params["modelPreferences"] = to_jsonable(model_preferences)
        if include_context is not None:
            params["includeContext"] = include_context
        if metadata is not None:
            params["metadata"] = to_jsonable(metadata)
        return Pending(self._core.create_message(params), CreateMessageResult.from_dict)

    def elicit(self, message: str, schema: Union[Type[Any], Mapping[str, Any]]) -> Pending[ElicitResult]:
        """Asks the user for input through the client (form mode).

        ``schema`` is a flat JSON object schema, or a dataclass, TypedDict or
        pydantic model whose fields are primitives. Raises
        :class:`~libmcp.CapabilityNotSupported` if the client did not declare
        elicitation.
        """
        if isinstance(schema, Mapping):
            requested = dict(schema)
        else:
            requested = _inline(schema_for(schema))
            requested.pop("title", None)
        params = {"mode": "form", "message": message, "requestedSchema": requested}
        return Pending(self._core.elicit(params), ElicitResult.from_dict)

    def elicit_url(self, message: str, url: str, elicitation_id: str) -> Pending[ElicitResult]:
        """Asks the user to open ``url`` (URL-mode elicitation)."""
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return Pending(self._core.elicit(params), ElicitResult.from_dict)

    def list_roots(self) -> Pending[List[Root]]:
        """The client's roots (``roots/list``). Raises
        :class:`~libmcp.CapabilityNotSupported` if it did not declare roots."""
        return Pending(self._core.list_roots(), lambda r: [Root.from_dict(x) for x in r.get("roots", [])])

    def wait_cancelled(self) -> Pending[None]:
        """Finishes when the request is cancelled (or the session ends)."""
        return Pending(self._core.wait_cancelled())

    def __repr__(self) -> str:
        return f"<Context request_id={self.request_id!r}>"


# --- answers ------------------------------------------------------------------

_CONTENT_CLASSES = typing.get_args(ContentBlock)
#: The ``type`` of each kind of content block.
_CONTENT = tuple(cls.type for cls in _CONTENT_CLASSES)


def _content_block(item: Any) -> Dict[str, Any]:
    if isinstance(item, Model):
        return item.to_dict()
    if isinstance(item, str):
        return {"type": "text", "text": item}
    if isinstance(item, Mapping) and item.get("type") in _CONTENT:
        return dict(item)
    data = to_jsonable(item)
    return {"type": "text", "text": data if isinstance(data, str) else _dumps(data)}


def _is_content(item: Any) -> bool:
    return isinstance(item, _CONTENT_CLASSES)


def _tool_result(value: Any, out: OutputSpec) -> Dict[str, Any]:
    if isinstance(value, CallToolResult):
        return value.to_dict()
    if out.schema is not None:
        data = to_jsonable(value)
        structured = {"result": data} if out.wrap else data
        if not isinstance(structured, dict):
            raise TypeError(f"the tool must return an object, not {type(value).__name__}")
        text = data if isinstance(data, str) else _dumps(data)
        return {"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": False}
    if value is None:
        content: List[Any] = []
    elif isinstance(value, (list, tuple)) and value and all(_is_content(v) for v in value):
        content = [v.to_dict() for v in value]
    else:
        content = [_content_block(value)]
    return {"content": content, "isError": False}


def _tool_failure(error: BaseException) -> Failure:
    if isinstance(error, McpError) and not isinstance(error, ToolError) and error.code is not None:
        return ("reject", error.code, error.message, to_jsonable(error.data))
    message = str(error.message if isinstance(error, McpError) else error) or type(error).__name__
    return ("resolve", {"content": [{"type": "text", "text": message}], "isError": True})


def _rpc_failure(error: BaseException) -> Failure:
    if isinstance(error, McpError):
        code = error.code if error.code is not None else INTERNAL_ERROR
        return ("reject", code, error.message or type(error).__name__, to_jsonable(error.data))
    return ("reject", INTERNAL_ERROR, str(error) or type(error).__name__, None)


def _resource_contents(uri: str, value: Any, mime_type: Optional[str]) -> Dict[str, Any]:
    if isinstance(value, ReadResourceResult):
        return value.to_dict()
    items = value if isinstance(value, (list, tuple)) and all(
        isinstance(v, (TextResourceContents, BlobResourceContents)) for v in value
    ) and value else [value]
    contents: List[Any] = []
    for item in items:
        if isinstance(item, (TextResourceContents, BlobResourceContents)):
            contents.append(item.to_dict())
        elif isinstance(item, str):
            contents.append({"uri": uri, "mimeType": mime_type or "text/plain", "text": item})
        elif isinstance(item, (bytes, bytearray)):
            blob = to_jsonable(bytes(item))
            contents.append({"uri": uri, "mimeType": mime_type or "application/octet-stream", "blob": blob})
        else:
            contents.append({"uri": uri, "mimeType": mime_type or "application/json", "text": _dumps(to_jsonable(item))})
    return {"contents": contents}


def _prompt_result(value: Any, description: Optional[str]) -> Dict[str, Any]:
    if isinstance(value, GetPromptResult):
        return value.to_dict()
    items = value if isinstance(value, (list, tuple)) else [value]
    messages: List[Any] = []
    for item in items:
        if isinstance(item, str):
            messages.append({"role": "user", "content": {"type": "text", "text": item}})
        elif isinstance(item, PromptMessage):
            messages.append(item.to_dict())
        elif isinstance(item, Mapping) and "role" in item:
            content = item.get("content")
            messages.append({"role": item["role"], "content": _content_block(content)})
        else:
            messages.append({"role": "user", "content": _content_block(item)})
    result: Dict[str, Any] = {"messages": messages}
    if description:
        result["description"] = description
    return result


def _completion_result(value: Any) -> Dict[str, Any]:
    if value is None:
        return {"values": []}
    if isinstance(value, Completion):
        return value.to_dict()
    if isinstance(value, Mapping):
        return dict(value)
    values = [str(v) for v in value]
    return {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}


# --- string arguments (prompt arguments, URI template variables) -----------------


def _string_converter(annotation: Any) -> Callable[[str], Any]:
    tp, _ = _strip_annotated(annotation)
    origin = typing.get_origin(tp)
    if origin is Union:
        arms = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(arms) == 1:
            return _string_converter(arms[0])
    if tp in (str, Any) or tp is None or isinstance(tp, str) or tp is _EMPTY:
        return lambda v: v
    if tp is int:
        return int
    if tp is float:
        return float
    if tp is bool:
        return lambda v: v.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return lambda v: tp(v)
    if typing.get_origin(tp) is typing.Literal:
        return lambda v: v
    convert = converter_for(tp)
    return lambda v: convert(json.loads(v))


_EMPTY = inspect.Parameter.empty


def _bind_strings(spec: FunctionSpec, values: Mapping[str, str], context: Any, what: str) -> Dict[str, Any]:
    kwargs: Dict[str, Any] = {}
    for p in spec.params:
        if p.name not in values:
            continue
        try:
            kwargs[p.name] = _string_converter(p.annotation)(values[p.name])
        except (ValueError, TypeError) as e:
            raise InvalidParams(f"{what} {p.name!r}: {e}") from None
    if spec.context_param is not None:
        kwargs[spec.context_param] = context
    return kwargs


_TEMPLATE_EXPR = re.compile(r"\{([^}]*)\}")


def _template_variables(uri: str) -> List[str]:
    names: List[str] = []
    for expr in _TEMPLATE_EXPR.findall(uri):
        expr = expr.lstrip("+#./;?&")
        for var in expr.split(","):
            var = var.split(":")[0].rstrip("*").strip()
            if var:
                names.append(var)
    return names


# --- the server ----------------------------------------------------------------------


class RunningServer:
    """A server serving one transport in the background (from
    :meth:`Server.start_stdio` or :meth:`Server.start_http`). Use it as a
    context manager, or call :meth:`stop`."""

    def __init__(self, serving: _libmcp.Serving, transport: str) -> None:
        self._serving = serving
        self.transport = transport

    @property
    def host(self) -> Optional[str]:
        """The address an HTTP transport listens on."""
        address = self._serving.address
        return address[0] if address else None

    @property
    def port(self) -> Optional[int]:
        """The port an HTTP transport listens on."""
        address = self._serving.address
        return address[1] if address else None

    @property
    def url(self) -> Optional[str]:
        """The MCP endpoint of an HTTP transport, ``http://host:port/mcp``."""
        address = self._serving.address
        if address is None:
            return None
        host = f"[{address[0]}]" if ":" in address[0] else address[0]
        return f"http://{host}:{address[1]}/mcp"

    def wait(self, timeout: Optional[float] = None) -> str:
        """Blocks until the transport stops serving (Ctrl-C raises
        ``KeyboardInterrupt``); returns why it stopped."""
        return typing.cast(str, self._serving.wait().result(timeout))

    async def wait_async(self) -> str:
        """Waits (in asyncio) until the transport stops serving."""
        return typing.cast(str, await Pending(self._serving.wait()))

    def stop(self) -> None:
        """Stops serving (idempotent): a stdio session is closed; an HTTP
        server ends its sessions and stops listening. Requests in progress
        get up to 3 s to finish."""
        self._serving.stop()

    def __enter__(self) -> "RunningServer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        where = self.url or self.transport
        return f"<RunningServer {where}>"


class Server:
    """An MCP server.

    ::

        server = libmcp.Server("demo", version="1.0.0")

        @server.tool()
        def add(a: int, b: int) -> int:
            \"\"\"Adds two numbers.\"\"\"
            return a + b

        server.run_stdio()

    Handlers may be plain functions (run on a worker thread) or ``async
    def`` functions (run on the server's own event loop thread). A handler
    parameter annotated :class:`Context` receives the request's context.

    Args:
        name: The server's name, sent to clients.
        version: Its version.
        title: A human-readable title.
        instructions: Hints for the model about how to use the server.
        page_size: Items per page of ``*/list`` results (default 100).
        request_timeout: Seconds a request to the client (sampling,
            elicitation, roots) waits for its answer (default 60).
        max_concurrent_requests: Most requests of one session handled at
            once (default 1024).
    """

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        title: Optional[str] = None,
        instructions: Optional[str] = None,
        page_size: Optional[int] = None,
        request_timeout: Optional[float] = None,
        max_concurrent_requests: Optional[int] = None,
    ) -> None:
        self.name = name
        self.version = version
        self._core = _libmcp.ServerCore(
            name,
            version,
            title=title,
            instructions=instructions,
            page_size=page_size,
            request_timeout=request_timeout,
            max_concurrent_requests=max_concurrent_requests,
        )
        self._loop = LoopThread(name)
        self._completions: Dict[Tuple[str, Optional[str], Optional[str]], Tuple[FunctionSpec, int]] = {}
        self._completion_fallback: Optional[Tuple[FunctionSpec, int]] = None
        self._completion_registered = False

    # -- tools

    @overload
    def tool(self, fn: F) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Union[ToolAnnotations, Mapping[str, Any], None] = None,
        structured_output: Optional[bool] = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: Optional[F] = None,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Union[ToolAnnotations, Mapping[str, Any], None] = None,
        structured_output: Optional[bool] = None,
    ) -> Any:
        """Registers a function as a tool (use as ``@server.tool()`` or
        ``@server.tool``).

        The input schema comes from the parameters' type hints, their
        descriptions from the docstring (Google, NumPy or Sphinx style);
        arguments are validated against it before the function runs. The
        description is the docstring's text before its sections.

        The return value becomes the result: a ``str`` is text; content
        objects (:class:`~libmcp.types.TextContent`, …) or a list of them
        are content; a :class:`~libmcp.types.CallToolResult` is sent as is.
        With a return annotation that has a JSON Schema (a dataclass,
        TypedDict, pydantic model or dict: as is; ``int``, ``list[...]``, …:
        wrapped as ``{"result": value}``), the value is structured content
        and the schema the tool's ``outputSchema``; ``structured_output``
        forces this on or off.

        Raising an exception returns a result with ``isError: true`` and the
        message; raising :class:`~libmcp.McpError` with a ``code`` answers
        with that JSON-RPC error instead.
        """

        def register(f: F) -> F:
            self.add_tool(
                f,
                name=name,
                description=description,
                title=title,
                annotations=annotations,
                structured_output=structured_output,
            )
            return f

        if fn is not None:
            return register(fn)
        return register

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        annotations: Union[ToolAnnotations, Mapping[str, Any], None] = None,
        structured_output: Optional[bool] = None,
    ) -> None:
        """Registers ``fn`` as a tool (see :meth:`tool`). Once the server
        runs, clients are told the tool list changed."""
        spec = inspect_function(fn, Context)
        out = output_spec(spec.return_annotation, structured_output)
        schema = spec.input_schema()
        call = spec.fn
        bind = spec.bind
        wants_context = spec.context_param is not None

        def run(args: Mapping[str, Any], core: Any) -> Any:
            return call(**bind(args, Context(core) if wants_context else None))

        invoker = Invoker(run, spec.is_async, self._loop.get, lambda _a, v: _tool_result(v, out), _tool_failure)
        if isinstance(annotations, ToolAnnotations):
            annotations = annotations.to_dict()
        self._core.add_tool(
            name or _name(fn),
            schema,
            invoker,
            description=description if description is not None else spec.description,
            title=title,
            annotations=dict(annotations) if annotations is not None else None,
            output_schema=out.schema,
        )

    def remove_tool(self, name: str) -> bool:
        """Removes a tool while the server runs (clients are told); returns
        whether it existed."""
        return self._core.remove_tool(name)

    # -- resources

    def resource(
        self,
        uri: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        mime_type: Optional[str] = None,
    ) -> Callable[[F], F]:
        """Registers a function as a resource at ``uri``, or, when ``uri``
        is an RFC 6570 template such as ``"file:///{path}"``, as a resource
        template whose variables are passed as the parameters of the same
        names (converted to their annotated types).

        The value returned is the contents: ``str`` is text (default MIME
        type ``text/plain``), ``bytes`` a blob, other values JSON text
        (``application/json``); or return
        :class:`~libmcp.types.TextResourceContents` /
        :class:`~libmcp.types.BlobResourceContents` (or a list of them).
        """

        def register(f: F) -> F:
            self.add_resource(f, uri, name=name, description=description, title=title, mime_type=mime_type)
            return f

        return register

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
        mime_type: Optional[str] = None,
    ) -> None:
        """Registers ``fn`` as a resource or resource template (see
        :meth:`resource`)."""
        spec = inspect_function(fn, Context)
        variables = _template_variables(uri)
        description = description if description is not None else spec.description
        if variables:
            for p in spec.params:
                if p.required and p.name not in variables:
                    raise SchemaError(f"{_name(fn)}: parameter {p.name!r} is not a variable of {uri!r}")

            def run_template(args: Tuple[str, Dict[str, str]], core: Any) -> Any:
                context = Context(core) if spec.context_param else None
                return spec.fn(**_bind_strings(spec, args[1], context, "URI variable"))

            invoker = Invoker(
                run_template,
                spec.is_async,
                self._loop.get,
                lambda args, v: _resource_contents(args[0], v, mime_type),
                _rpc_failure,
            )
            self._core.add_resource_template(uri, name or _name(fn), invoker, description=description, mime_type=mime_type)
            return
        for p in spec.params:
            if p.required:
                raise SchemaError(f"{_name(fn)}: the resource {uri!r} has no variables for parameter {p.name!r}")

        def run(_uri: str, core: Any) -> Any:
            context = Context(core) if spec.context_param else None
            return spec.fn(**({spec.context_param: context} if spec.context_param else {}))

        invoker = Invoker(run, spec.is_async, self._loop.get, lambda u, v: _resource_contents(u, v, mime_type), _rpc_failure)
        self._core.add_resource(uri, name or _name(fn), invoker, description=description, title=title, mime_type=mime_type)

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource while the server runs; returns whether it
        existed."""
        return self._core.remove_resource(uri)

    def notify_resource_updated(self, uri: str) -> int:
        """Tells every client subscribed to ``uri`` that it changed;
        returns how many were told."""
        return self._core.notify_resource_updated(uri)

    # -- prompts

    @overload
    def prompt(self, fn: F) -> F: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        fn: Optional[F] = None,
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
    ) -> Any:
        """Registers a function as a prompt. Its parameters are the
        prompt's arguments (required unless they have a default; clients
        send strings, converted to the annotated types); their descriptions
        come from the docstring.

        Return a string (one user message), a
        :class:`~libmcp.types.PromptMessage`, a list of strings and messages,
        or a :class:`~libmcp.types.GetPromptResult`.
        """

        def register(f: F) -> F:
            self.add_prompt(f, name=name, description=description, title=title)
            return f

        if fn is not None:
            return register(fn)
        return register

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: Optional[str] = None,
        description: Optional[str] = None,
        title: Optional[str] = None,
    ) -> None:
        """Registers ``fn`` as a prompt (see :meth:`prompt`)."""
        spec = inspect_function(fn, Context)
        description = description if description is not None else spec.description

        def run(args: Mapping[str, str], core: Any) -> Any:
            context = Context(core) if spec.context_param else None
            return spec.fn(**_bind_strings(spec, args, context, "argument"))

        invoker = Invoker(run, spec.is_async, self._loop.get, lambda _a, v: _prompt_result(v, description), _rpc_failure)
        arguments = [(p.name, p.description, p.required) for p in spec.params]
        self._core.add_prompt(name or _name(fn), invoker, description=description, title=title, arguments=arguments)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt while the server runs; returns whether it
        existed."""
        return self._core.remove_prompt(name)

    # -- completions

    def completion(
        self,
        fn: Optional[F] = None,
        *,
        prompt: Optional[str] = None,
        resource: Optional[str] = None,
        argument: Optional[str] = None,
    ) -> Any:
        """Registers a completion handler (declares ``completions``).

        - ``@server.completion(prompt="name", argument="arg")`` (or
          ``resource="template://{x}"``): the function gets the value typed
          so far (and, if it takes a second parameter, the other arguments
          already given, as a dict) and returns a list of strings or a
          :class:`~libmcp.types.Completion`. Without ``argument``, it
          completes every argument of that prompt or template.
        - ``@server.completion()``: the fallback for everything else; it gets
          ``(ref: CompletionRef, argument: CompletionArgument,
          context_arguments: dict)``.

        Completion handlers must be registered before the server starts.
        """

        def register(f: F) -> F:
            spec = inspect_function(f, Context)
            arity = len(spec.params)
            if prompt is not None or resource is not None:
                if prompt is not None and resource is not None:
                    raise ValueError("give either prompt= or resource=, not both")
                key = ("ref/prompt", prompt, argument) if prompt is not None else ("ref/resource", resource, argument)
                self._completions[key] = (spec, arity)
            else:
                self._completion_fallback = (spec, arity)
            self._register_completion()
            return f

        if fn is not None:
            return register(fn)
        return register

    def _register_completion(self) -> None:
        if self._completion_registered:
            return
        self._core.set_completion(
            Invoker(self._complete, True, self._loop.get, lambda _a, v: _completion_result(v), _rpc_failure)
        )
        self._completion_registered = True

    async def _complete(self, params: Mapping[str, Any], core: Any) -> Any:
        ref = CompletionRef.from_dict(params.get("ref", {}))
        argument = CompletionArgument.from_dict(params.get("argument", {}))
        context_arguments: Dict[str, str] = dict((params.get("context") or {}).get("arguments") or {})
        target = ref.name if ref.type == "ref/prompt" else ref.uri
        found = self._completions.get((ref.type, target, argument.name)) or self._completions.get(
            (ref.type, target, None)
        )
        if found is not None:
            spec, arity = found
            args: List[Any] = [argument.value, context_arguments][: max(1, arity)]
        elif self._completion_fallback is not None:
            spec, arity = self._completion_fallback
            args = [ref, argument, context_arguments][:arity]
        else:
            return None
        kwargs = {p.name: a for p, a in zip(spec.params, args)}
        if spec.context_param is not None:
            kwargs[spec.context_param] = Context(core)
        value = spec.fn(**kwargs)
        if asyncio.iscoroutine(value) or isinstance(value, asyncio.Future):
            value = await value
        return value

    # -- running

    def start_stdio(self) -> RunningServer:
        """Starts serving one client over this process's stdin and stdout,
        in the background. Nothing else may write to stdout."""
        return RunningServer(self._core.serve_stdio(), "stdio")

    def start_http(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
    ) -> RunningServer:
        """Starts serving Streamable HTTP at ``http://host:port/mcp`` in the
        background (port 0 picks a free port; see
        :attr:`RunningServer.url`).

        Args:
            stateless: No sessions; every request stands alone.
            json_response: Answer with JSON, never SSE streams.
            allowed_hosts: The accepted ``Host`` headers (``host[:port]``);
                by default only loopback names, ``["*"]`` accepts any.
            max_body_size: Largest request body in bytes (default 4 MiB);
                larger gets HTTP 413.
            max_header_size: Largest request head in bytes (default 32 KiB);
                larger gets HTTP 431.
            max_sessions: Most sessions at once (default 10,000); more gets
                HTTP 503.
            idle_timeout: Seconds after which an idle session ends (default
                30 minutes).
            cancel_on_disconnect: Cancel a request whose client goes away
                before its answer, as if the client had cancelled it.
        """
        serving = self._core.serve_http(
            host,
            port,
            stateless=stateless,
            json_response=json_response,
            allowed_hosts=list(allowed_hosts) if allowed_hosts is not None else None,
            max_body_size=max_body_size,
            max_header_size=max_header_size,
            max_sessions=max_sessions,
            idle_timeout=idle_timeout,
            cancel_on_disconnect=cancel_on_disconnect,
        )
        return RunningServer(serving, "http")

    def run_stdio(self) -> None:
        """Serves one client over stdin and stdout until it disconnects
        (or Ctrl-C)."""
        self._run(self.start_stdio())

    def run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
    ) -> None:
        """Serves Streamable HTTP at ``http://host:port/mcp`` until Ctrl-C;
        the options are those of :meth:`start_http`."""
        self._run(
            self.start_http(
                host,
                port,
                stateless=stateless,
                json_response=json_response,
                allowed_hosts=allowed_hosts,
                max_body_size=max_body_size,
                max_header_size=max_header_size,
                max_sessions=max_sessions,
                idle_timeout=idle_timeout,
                cancel_on_disconnect=cancel_on_disconnect,
            )
        )

    def run(self, transport: str = "stdio", **options: Any) -> None:
        """Runs with ``transport`` ``"stdio"`` or ``"http"`` (options as for
        :meth:`run_http`)."""
        if transport == "stdio":
            self.run_stdio()
        elif transport in ("http", "streamable-http"):
            self.run_http(**options)
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'http'")

    async def run_stdio_async(self) -> None:
        """Serves over stdin and stdout until the client disconnects or the
        awaiting task is cancelled."""
        await self._run_async(self.start_stdio())

    async def run_http_async(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        stateless: bool = False,
        json_response: bool = False,
        allowed_hosts: Optional[Sequence[str]] = None,
        max_body_size: Optional[int] = None,
        max_header_size: Optional[int] = None,
        max_sessions: Optional[int] = None,
        idle_timeout: Optional[float] = None,
        cancel_on_disconnect: bool = False,
    ) -> None:
        """Serves Streamable HTTP until the awaiting task is cancelled; the
        options are those of :meth:`start_http`."""
        await self._run_async(
            self.start_http(
                host,
                port,
                stateless=stateless,
                json_response=json_response,
                allowed_hosts=allowed_hosts,
                max_body_size=max_body_size,
                max_header_size=max_header_size,
                max_sessions=max_sessions,
                idle_timeout=idle_timeout,
                cancel_on_disconnect=cancel_on_disconnect,
            )
        )

    @staticmethod
    def _run(running: RunningServer) -> None:
        try:
            running.wait()
        except KeyboardInterrupt:
            pass
        finally:
            running.stop()

    @staticmethod
    async def _run_async(running: RunningServer) -> None:
        try:
            await running.wait_async()
        finally:
            running.stop()

    def close(self) -> None:
        """Stops the event loop thread coroutine handlers run on (servers
        started from this object should be stopped first)."""
        self._loop.close()

    def __repr__(self) -> str:
        return f"<Server {self.name!r} {self.version}>"


def _name(fn: Any) -> str:
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or name == "<lambda>":
        raise ValueError(f"give a name for {fn!r}")
    return name
