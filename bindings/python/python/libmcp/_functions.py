"""Handlers' signatures: their parameters (schema, conversion, defaults),
the context parameter, and binding JSON arguments to a call."""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import json
import os
import typing
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from ._constraints import field_default, is_field_info
from ._docstrings import parse_docstring
from ._schema import (
    _NO_DEFAULT,
    Converter,
    SchemaError,
    _Defs,
    _json_default,
    _schema,
    _strip_annotated,
    converter_for,
    schema_for,
)
from .errors import HandlerError, InvalidParams

__all__ = ["ArgumentError", "FunctionSpec", "Param", "inspect_function", "string_binder", "describe_function",
           "check_function", "short_repr"]

@dataclasses.dataclass
class Param:
    """One parameter of a handler."""

    name: str
    annotation: Any
    convert: Converter
    required: bool
    default: Any
    description: Optional[str]
    #: Makes the value of an omitted argument, when Python's default would
    #: not do (a ``Field(...)`` as the default).
    fill: Optional[Callable[[], Any]] = None


@dataclasses.dataclass
class FunctionSpec:
    """What a handler takes: its parameters (without the context), the
    context parameter's name, whether it is a coroutine function, and its
    description."""

    fn: Callable[..., Any]
    params: List[Param]
    context_param: Optional[str]
    is_async: bool
    description: Optional[str]
    return_annotation: Any

    def __post_init__(self) -> None:
        self.fills = [p for p in self.params if p.fill is not None]

    def input_schema(self) -> Dict[str, Any]:
        """The JSON Schema of the parameters, as an object."""
        defs = _Defs()
        properties: Dict[str, Any] = {}
        required: List[str] = []
        for p in self.params:
            try:
                prop = dict(_schema(p.annotation, defs))
            except SchemaError as e:
                raise SchemaError(f"parameter {p.name!r}: {e}") from None
            if p.description and "description" not in prop:
                prop["description"] = p.description
            if p.required:
                required.append(p.name)
            else:
                default = _json_default(p.default)
                if default is not _NO_DEFAULT:
                    prop["default"] = default
            properties[p.name] = prop
        schema: Dict[str, Any] = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        if defs.defs:
            schema["$defs"] = defs.defs
        return schema

    def bind(self, arguments: Mapping[str, Any], context: Any) -> Dict[str, Any]:
        """The keyword arguments for a call with JSON ``arguments``
        (unknown names are dropped)."""
        try:
            kwargs = {p.name: p.convert(arguments[p.name]) for p in self.params if p.name in arguments}
        except Exception as e:  # noqa: BLE001 - found again below, to say which argument
            raise self._argument_error(arguments, e) from None
        for p in self.fills:
            if p.name not in arguments:
                kwargs[p.name] = p.fill()  # type: ignore[misc]
        if self.context_param is not None:
            kwargs[self.context_param] = context
        return kwargs


    def _argument_error(self, arguments: Mapping[str, Any], error: Exception) -> "ArgumentError":
        for p in self.params:
            if p.name in arguments:
                try:
                    p.convert(arguments[p.name])
                except Exception as e:  # noqa: BLE001 - any failure is the argument's
                    return ArgumentError(p.name, e)
        return ArgumentError(None, error)


class ArgumentError(ValueError):
    """An argument the schema accepted but its type's conversion refused
    (a pydantic validator, a model's own checks); the message names it
    (``/name: problem``), as the engine's schema errors do."""

    def __init__(self, name: Optional[str], error: Exception) -> None:
        self.name = name
        self.error = error
        super().__init__("; ".join(_problems(name, error)))


def _problems(name: Optional[str], error: Exception) -> List[str]:
    """One line per problem, each ``/path: message`` (pydantic's
    ``ValidationError`` lists several, with their locations)."""
    prefix = f"/{name}" if name else ""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            found = [
                f"{prefix}{''.join('/' + str(part) for part in e.get('loc', ()))}: {e.get('msg', '')}"
                for e in errors()
            ]
        except Exception:  # noqa: BLE001 - not pydantic's: use the message
            found = []
        if found:
            return found
    message = str(error) or type(error).__name__
    return [f"{prefix}: {message}" if prefix else message]


def describe_function(fn: Any) -> str:
    """``qualname (file.py:line)``, for messages about a handler."""
    target = fn
    while hasattr(target, "func") and hasattr(target, "args"):  # functools.partial
        target = target.func
    name = getattr(target, "__qualname__", None) or getattr(target, "__name__", None) or type(target).__name__
    name = str(name).rsplit("<locals>.", 1)[-1]
    try:
        code = inspect.unwrap(target).__code__
        return f"{name} ({os.path.basename(code.co_filename)}:{code.co_firstlineno})"
    except (AttributeError, ValueError):
        return str(name)


def _is_async_callable(fn: Any) -> bool:
    while hasattr(fn, "func") and hasattr(fn, "args"):  # functools.partial
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004
    return call is not None and not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)


def inspect_function(fn: Callable[..., Any], context_type: type) -> FunctionSpec:
    """Reads a handler's signature, type hints and docstring. A parameter
    annotated with ``context_type`` (or, unannotated, named ``ctx`` or
    ``context``) receives the context."""
    signature = inspect.signature(fn)
    unresolved = ""
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as e:  # noqa: BLE001 - unresolvable hints: use them raw, say why if it matters
        hints = {}
        unresolved = f" ({type(e).__name__}: {e})"
    description, docs = parse_docstring(inspect.getdoc(fn))
    params: List[Param] = []
    context_param: Optional[str] = None
    for name, p in signature.parameters.items():
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if p.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise SchemaError(f"parameter {name!r} is positional-only; handlers are called with keyword arguments")
        annotation = hints.get(name, p.annotation)
        bare, _ = _strip_annotated(annotation)
        if (isinstance(bare, type) and issubclass(bare, context_type)) or (
            annotation is inspect.Parameter.empty and name in ("ctx", "context")
        ):
            context_param = name
            continue
        if isinstance(bare, str):
            raise SchemaError(f"parameter {name!r}: cannot resolve the annotation {bare!r}{unresolved}")
        default, fill = p.default, None
        if is_field_info(default):  # `x: int = Field(ge=0, description=...)`
            field = default
            annotation = typing.Annotated[Any if annotation is inspect.Parameter.empty else annotation, field]
            default = inspect.Parameter.empty if field.is_required() else field.default
            if not field.is_required():
                fill = functools.partial(field_default, field)
        params.append(
            Param(
                name=name,
                annotation=annotation,
                convert=converter_for(annotation),
                required=default is inspect.Parameter.empty and fill is None,
                default=default,
                description=docs.get(name),
                fill=fill,
            )
        )
    returns = hints.get("return", signature.return_annotation)
    if isinstance(returns, str):
        raise SchemaError(f"cannot resolve the return annotation {returns!r}{unresolved}")
    return FunctionSpec(
        fn=fn,
        params=params,
        context_param=context_param,
        is_async=_is_async_callable(fn),
        description=description,
        return_annotation=returns,
    )


# --- string arguments (prompt arguments, URI template variables) ----------------


def _string_converter(annotation: Any) -> Callable[[str], Any]:
    """How a string (a prompt argument, a URI variable) becomes a value of
    ``annotation``: scalars directly, other types from JSON text. Raises
    :class:`SchemaError` for a type with neither."""
    tp, _ = _strip_annotated(annotation)
    origin = typing.get_origin(tp)
    if origin is Union:
        arms = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(arms) == 1:
            return _string_converter(arms[0])
    if tp in (str, Any) or tp is None or tp is _EMPTY:
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
    schema_for(tp)  # a type with no JSON form cannot come from a string either
    convert = converter_for(tp)
    return lambda v: convert(json.loads(v))


_EMPTY = inspect.Parameter.empty

#: ``bind(values, context)``: the keyword arguments for a call with string values.
StringBinder = Callable[[Mapping[str, str], Any], Dict[str, Any]]


def string_binder(spec: FunctionSpec, what: str) -> StringBinder:
    """Binds string values (``what``: ``"argument"``, ``"URI variable"``) to
    ``spec``'s parameters; a value that does not convert is
    :class:`~libmcp.InvalidParams`. Raises :class:`SchemaError` for a
    parameter whose type cannot come from a string."""
    converters: List[Any] = []
    for p in spec.params:
        try:
            converters.append((p.name, _string_converter(p.annotation)))
        except SchemaError as e:
            raise SchemaError(f"parameter {p.name!r}: {e}") from None
    context_param = spec.context_param

    def bind(values: Mapping[str, str], context: Any) -> Dict[str, Any]:
        kwargs: Dict[str, Any] = {}
        for name, convert in converters:
            if name in values:
                try:
                    kwargs[name] = convert(values[name])
                except (ValueError, TypeError) as e:
                    raise InvalidParams(f"{what} {name!r}: {e}") from None
        if context_param is not None:
            kwargs[context_param] = context
        return kwargs

    return bind


def short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_function(fn: Any, where: str) -> None:
    """Raises :class:`~libmcp.HandlerError` if ``fn``, given to ``where``
    (``"server.tool()"``, ``"on_sampling="``), is not a function: above
    all a coroutine object, the result of calling an ``async def`` (closed,
    so that no "never awaited" warning follows the error)."""
    if inspect.iscoroutine(fn):
        called = getattr(fn, "__qualname__", "the function")
        fn.close()
        raise HandlerError(
            f"{where} got a coroutine object, the result of calling {called}(...): "
            f"pass the function itself, {called}, without calling it"
        )
    if inspect.isawaitable(fn) or not callable(fn):
        raise HandlerError(f"{where} needs a function, not {type(fn).__name__} {short_repr(fn)}")
