"""The server: register tools, resources, prompts and completions with
decorators, then serve over stdio or Streamable HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
from typing import (
    Any,
    AsyncContextManager,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Tuple,
    TypeVar,
    Union,
    overload,
)

from . import _libmcp
from ._answers import (
    completion_result,
    prompt_result,
    resource_contents,
    rpc_failure,
    tool_failure,
    tool_result,
)
from ._context import Context
from ._functions import (
    ArgumentError,
    FunctionSpec,
    check_function,
    describe_function,
    inspect_function,
    short_repr,
    string_binder,
)
from ._invoke import Invoker, LoopThread
from ._asgi import StreamableHTTPApp
from ._serving import RunningServer, Serving
from ._schema import OutputSpec, SchemaError, output_spec
from .errors import HandlerError, InternalError, McpError, ToolError
from .types import CompletionArgument, CompletionRef, ToolAnnotations

__all__ = ["Server", "Context", "RunningServer", "StreamableHTTPApp"]

F = TypeVar("F", bound=Callable[..., Any])

logger = logging.getLogger("libmcp")


# --- the server ----------------------------------------------------------------------


class Server(Serving):
    """An MCP server.

    ::

        server = libmcp.Server("demo", version="1.0.0")

        @server.tool()
        def add(a: int, b: int) -> int:
            \"\"\"Adds two numbers.\"\"\"
            return a + b

        server.run_stdio()

    Handlers may be plain functions (run on a worker thread of a pool, or
    inline on the event loop with ``sync_handlers="inline"``) or ``async
    def`` functions, which run on the caller's event loop when serving from
    asyncio (:meth:`run_stdio_async`, :meth:`run_http_async`, the ASGI app
    of :meth:`streamable_http_app`) and otherwise
    on the server's own event loop thread. A handler parameter annotated
    :class:`Context` receives the request's context.

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
        sync_handlers: Where plain ``def`` handlers run: ``"thread"`` (the
            default) on a worker thread of a pool, ``"inline"`` on the event
            loop that runs the ``async def`` handlers, one at a time — for
            short handlers that must not block, or that use objects bound
            to that loop.
        lifespan: ``lifespan(server)`` returns an async context manager
            (e.g. an ``@contextlib.asynccontextmanager`` function) entered on
            the serving event loop before the first handler runs and exited
            when serving ends; what it yields is :attr:`lifespan_context`.
            Used by :meth:`run_stdio`, :meth:`run_http`, their ``_async``
            twins and :meth:`streamable_http_app` (not by ``start_*``).
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
        sync_handlers: str = "thread",
        lifespan: Optional[Callable[["Server"], AsyncContextManager[Any]]] = None,
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
        if sync_handlers not in ("thread", "inline"):
            raise ValueError(f"sync_handlers is 'thread' or 'inline', not {sync_handlers!r}")
        self._inline = sync_handlers == "inline"
        self._loop = LoopThread(name)
        self._caller_loops: List[asyncio.AbstractEventLoop] = []
        self._completions: Dict[Tuple[str, Optional[str], Optional[str]], Tuple[FunctionSpec, int]] = {}
        self._completion_fallback: Optional[Tuple[FunctionSpec, int]] = None
        self._completion_registered = False
        self._lifespan = lifespan
        self._lifespan_users = 0
        self._lifespan_exit: Optional[contextlib.AsyncExitStack] = None
        #: What the lifespan's context manager yielded (None without one, or
        #: when not serving).
        self.lifespan_context: Any = None

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
        task: Union[bool, str] = False,
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
        task: Union[bool, str] = False,
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

        ``task=True`` (or ``"optional"``) lets a client run the call as a
        task, ``task="required"`` only as one: the call then answers at
        once with a task the client polls, and the function runs on (its
        ``ctx.elicit``/``ctx.sample`` wait for the client to answer through
        the task).
        """

        def register(f: F) -> F:
            self.add_tool(
                f,
                name=name,
                description=description,
                title=title,
                annotations=annotations,
                structured_output=structured_output,
                task=task,
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
        task: Union[bool, str] = False,
    ) -> None:
        """Registers ``fn`` as a tool (see :meth:`tool`). Once the server
        runs, clients are told the tool list changed. Raises
        :class:`~libmcp.HandlerError` if it cannot be a tool."""
        _check_function(fn, "tool")
        with _defining("tool", name, fn):
            tool_name = name or _name(fn)
            task_support = _task_support(task)
            spec = inspect_function(fn, Context)
            try:
                out = output_spec(spec.return_annotation, structured_output)
            except SchemaError as e:
                raise SchemaError(f"return annotation: {e} (structured_output=False sends the value as text)") from None
            schema = spec.input_schema()
            self._add_tool(tool_name, fn, spec, out, schema, description, title, annotations, task_support)

    def _add_tool(
        self,
        tool_name: str,
        fn: Callable[..., Any],
        spec: FunctionSpec,
        out: OutputSpec,
        schema: Dict[str, Any],
        description: Optional[str],
        title: Optional[str],
        annotations: Union[ToolAnnotations, Mapping[str, Any], None],
        task_support: Optional[str] = None,
    ) -> None:
        call = spec.fn
        bind = spec.bind
        wants_context = spec.context_param is not None

        def run(args: Mapping[str, Any], core: Any) -> Any:
            try:
                kwargs = bind(args, Context(core) if wants_context else None)
            except ArgumentError as e:
                # Worded like the engine's schema errors (isError, so the
                # model can correct its call); the function is not called.
                raise ToolError(f"Invalid arguments for tool `{tool_name}`: {e}") from None
            return call(**kwargs)

        def answer(_args: Any, value: Any) -> Any:
            try:
                return tool_result(value, out)
            except (TypeError, ValueError) as e:
                raise ToolError(_unsendable("tool", tool_name, fn, value, e)) from None

        invoker = Invoker(run, spec.is_async, self._handler_loop, answer, tool_failure, inline=self._inline)
        if isinstance(annotations, ToolAnnotations):
            annotations = annotations.to_dict()
        self._core.add_tool(
            tool_name,
            schema,
            invoker,
            description=description if description is not None else spec.description,
            title=title,
            annotations=dict(annotations) if annotations is not None else None,
            output_schema=out.schema,
            task_support=task_support,
        )

    def remove_tool(self, name: str) -> bool:
        """Removes a tool, before or while the server runs (clients are
        told); returns whether it existed."""
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

        if not isinstance(uri, str):
            if callable(uri):
                raise HandlerError(
                    f"server.resource needs the URI before the function: "
                    f"@server.resource(\"scheme://...\") above {describe_function(uri)}"
                )
            raise HandlerError(f"a resource's URI is a string, not {type(uri).__name__}")

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
        :meth:`resource`). Raises :class:`~libmcp.HandlerError` if it cannot
        be one (a template that does not parse, or whose variables and
        parameters differ)."""
        _check_function(fn, "resource")
        with _defining("resource", uri, fn):
            spec = inspect_function(fn, Context)
            variables = _libmcp.uri_template_variables(uri)
            self._add_resource(fn, spec, uri, variables, name or _name(fn), description, title, mime_type)

    def _add_resource(
        self,
        fn: Callable[..., Any],
        spec: FunctionSpec,
        uri: str,
        variables: List[str],
        name: str,
        description: Optional[str],
        title: Optional[str],
        mime_type: Optional[str],
    ) -> None:
        description = description if description is not None else spec.description

        def answer(args: Any, value: Any) -> Any:
            read = args[0] if isinstance(args, tuple) else args
            try:
                return resource_contents(read, value, mime_type)
            except (TypeError, ValueError) as e:
                raise InternalError(_unsendable("resource", read, fn, value, e)) from None

        if variables:
            params = {p.name for p in spec.params}
            for p in spec.params:
                if p.required and p.name not in variables:
                    raise SchemaError(f"parameter {p.name!r} is not a variable of the template")
            for variable in variables:
                if variable not in params:
                    raise SchemaError(f"the template's variable {variable!r} is not a parameter of the function")
            bind = string_binder(spec, "URI variable")

            def run_template(args: Tuple[str, Dict[str, str]], core: Any) -> Any:
                return spec.fn(**bind(args[1], Context(core) if spec.context_param else None))

            invoker = Invoker(run_template, spec.is_async, self._handler_loop, answer, rpc_failure, inline=self._inline)
            self._core.add_resource_template(uri, name, invoker, description=description, mime_type=mime_type)
            return
        for p in spec.params:
            if p.required:
                raise SchemaError(f"parameter {p.name!r} is required, but the URI has no variables")

        def run(_uri: str, core: Any) -> Any:
            context = Context(core) if spec.context_param else None
            return spec.fn(**({spec.context_param: context} if spec.context_param else {}))

        invoker = Invoker(run, spec.is_async, self._handler_loop, answer, rpc_failure, inline=self._inline)
        self._core.add_resource(uri, name, invoker, description=description, title=title, mime_type=mime_type)

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource, before or while the server runs (clients are
        told); returns whether it existed."""
        return self._core.remove_resource(uri)

    def remove_resource_template(self, uri_template: str) -> bool:
        """Removes a resource template (as registered, e.g.
        ``"notes://{name}"``), before or while the server runs (clients are
        told); returns whether it existed."""
        return self._core.remove_resource_template(uri_template)

    def notify_resource_updated(self, uri: str) -> int:
        """Tells every client subscribed to ``uri`` that it changed;
        returns how many were told."""
        return self._core.notify_resource_updated(uri)

    # -- skills

    def serve_skills(self, directory: Union[str, "os.PathLike[str]"], *, directory_read: bool = True) -> None:
        """Serves the skills under ``directory`` (the skills extension,
        ``io.modelcontextprotocol/skills``) in place of those served until
        now, before or while the server runs (clients are told). Each folder
        holding a ``SKILL.md`` is a skill named after the folder, with every
        file under it; clients list them with ``skills/list`` and read their
        files as resources (folders with ``resources/directory/read`` when
        ``directory_read``). Raises :class:`~libmcp.InvalidArgument` naming
        the skill that breaks the extension's rules (frontmatter, name,
        limits) or the path that cannot be read; nothing changes then."""
        self._core.set_skills_dir(os.fspath(directory), directory_read=directory_read)

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
        """Registers ``fn`` as a prompt (see :meth:`prompt`). Raises
        :class:`~libmcp.HandlerError` if it cannot be one."""
        _check_function(fn, "prompt")
        with _defining("prompt", name, fn):
            prompt_name = name or _name(fn)
            spec = inspect_function(fn, Context)
            bind = string_binder(spec, "argument")
            description = description if description is not None else spec.description

            def run(args: Mapping[str, str], core: Any) -> Any:
                return spec.fn(**bind(args, Context(core) if spec.context_param else None))

            def answer(_args: Any, value: Any) -> Any:
                try:
                    return prompt_result(value, description)
                except (TypeError, ValueError) as e:
                    raise InternalError(_unsendable("prompt", prompt_name, fn, value, e)) from None

            invoker = Invoker(run, spec.is_async, self._handler_loop, answer, rpc_failure, inline=self._inline)
            arguments = [(p.name, p.description, p.required) for p in spec.params]
            self._core.add_prompt(prompt_name, invoker, description=description, title=title, arguments=arguments)

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt, before or while the server runs (clients are
        told); returns whether it existed."""
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

        if prompt is not None and resource is not None:
            raise HandlerError("server.completion(): give either prompt= or resource=, not both")

        def register(f: F) -> F:
            _check_function(f, "completion")
            target = prompt if prompt is not None else resource
            with _defining("completion", target, f):
                spec = inspect_function(f, Context)
                arity = len(spec.params)
                given = ("value", "other arguments") if target is not None else ("ref", "argument", "other arguments")
                if sum(p.required for p in spec.params) > len(given):
                    raise SchemaError(f"it is called with at most {len(given)} arguments ({', '.join(given)})")
            if target is not None:
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
            Invoker(self._complete, True, self._handler_loop, _completion_answer, rpc_failure)
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

    def __repr__(self) -> str:
        return f"<Server {self.name!r} {self.version}>"


def _name(fn: Any) -> str:
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str) or name == "<lambda>":
        raise ValueError("it has no name of its own: give name=...")
    return name


def _task_support(task: Union[bool, str]) -> Optional[str]:
    """The tool's declared task support for ``task=``."""
    if task is True:
        return "optional"
    if task is False:
        return None
    if task in ("forbidden", "optional", "required"):
        return str(task)
    raise ValueError(f"task= is True, False, 'optional', 'required' or 'forbidden', not {task!r}")


def _check_function(fn: Any, kind: str) -> None:
    """Refuses what is not a function where a handler is expected, before
    anything else looks at it."""
    if isinstance(fn, str) and kind in ("tool", "prompt"):
        raise HandlerError(f"server.{kind}({fn!r}): the name is a keyword argument, @server.{kind}(name={fn!r})")
    check_function(fn, f"server.{kind}()")
    target = getattr(fn, "func", fn)
    if inspect.isgeneratorfunction(target) or inspect.isasyncgenfunction(target):
        raise HandlerError(
            f"{kind} handler {describe_function(fn)} is a generator function: return the value (a list, …) instead"
        )


@contextlib.contextmanager
def _defining(kind: str, name: Optional[str], fn: Any) -> Iterator[None]:
    """Turns what goes wrong while registering a handler into one
    :class:`~libmcp.HandlerError` naming it."""
    try:
        yield
    except HandlerError:
        raise
    except (SchemaError, McpError, ValueError, TypeError) as e:
        label = f"{kind} {name!r}" if name is not None else kind
        if name is None and isinstance(getattr(fn, "__name__", None), str) and fn.__name__ != "<lambda>":
            label = f"{kind} {fn.__name__!r}"
        message = e.message if isinstance(e, McpError) else str(e)
        raise HandlerError(f"{label} ({describe_function(fn)}): {message}") from None


def _unsendable(kind: str, name: str, fn: Any, value: Any, error: BaseException) -> str:
    """The message for a handler's return value that cannot be sent (logged
    with where the handler is, answered without it)."""
    logger.error("%s %r (%s) returned %s: %s", kind, name, describe_function(fn), short_repr(value), error)
    return f"{kind} {name!r} returned {type(value).__name__}, which cannot be sent: {error}"


def _completion_answer(_args: Any, value: Any) -> Any:
    try:
        return completion_result(value)
    except (TypeError, ValueError) as e:
        raise InternalError(f"the completion handler returned {type(value).__name__}, not a list of strings: {e}") from None
