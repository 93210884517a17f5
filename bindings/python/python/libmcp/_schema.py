"""JSON Schemas from Python type hints and docstrings, and the conversions
that go with them (validated JSON arguments to the annotated Python types;
return values to JSON).

Supported: ``str``, ``int``, ``float``, ``bool``, ``None``, ``bytes``
(base64), ``list``/``Sequence``/``set``/``tuple``, ``dict``/``Mapping``,
``Optional``/``Union``, ``Literal``, ``Enum``, ``Annotated`` (a ``str`` in it
is the description), ``TypedDict``, dataclasses, and pydantic models when
pydantic is installed (through their ``model_json_schema``).
"""

from __future__ import annotations

import base64
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import functools
import inspect
import pathlib
import re
import typing
import uuid
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._constraints import (
    NO_DEFAULT,
    ConstraintError,
    apply_metadata,
    field_default,
    is_field_info,
    needs_pydantic,
    unwrap,
)
from .types import CallToolResult, ContentBlock, Model

__all__ = [
    "SchemaError",
    "ArgumentError",
    "Converter",
    "schema_for",
    "converter_for",
    "to_jsonable",
    "parse_docstring",
    "FunctionSpec",
    "Param",
    "inspect_function",
    "OutputSpec",
    "output_spec",
]

Converter = Callable[[Any], Any]

_NONE = type(None)
_CONTENT_CLASSES: Tuple[type, ...] = typing.get_args(ContentBlock)


class SchemaError(TypeError):
    """A type hint has no JSON Schema (the message says which)."""


def _identity(value: Any) -> Any:
    return value


def _strip_annotated(tp: Any) -> Tuple[Any, Optional[str]]:
    """The type inside ``Annotated`` (and ``Required``/``NotRequired``), and
    the description its metadata gives."""
    inner, metadata = unwrap(tp)
    if not metadata:
        return inner, None
    try:
        description = apply_metadata({}, metadata).get("description")
    except ConstraintError:
        description = None
    return inner, description if isinstance(description, str) else None


def _is_typeddict(tp: Any) -> bool:
    is_td = getattr(typing, "is_typeddict", None)
    if is_td is not None and is_td(tp):
        return True
    return (
        isinstance(tp, type)
        and issubclass(tp, dict)
        and hasattr(tp, "__total__")
        and hasattr(tp, "__annotations__")
    )


def _is_pydantic(tp: Any) -> bool:
    return isinstance(tp, type) and hasattr(tp, "model_json_schema") and hasattr(tp, "model_validate")


def _is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def _is_union(origin: Any) -> bool:
    if origin is Union:
        return True
    union_type = getattr(__import__("types"), "UnionType", None)
    return union_type is not None and origin is union_type


def _class_doc(cls: type) -> Optional[str]:
    doc = cls.__dict__.get("__doc__")
    if not doc:
        return None
    doc = inspect.cleandoc(doc)
    if doc.startswith(cls.__name__ + "("):  # a dataclass's generated doc
        return None
    return parse_docstring(doc)[0]


class _Defs:
    """The ``$defs`` being collected for one schema; ``mode`` is pydantic's
    (``"validation"`` for input, ``"serialization"`` for output)."""

    def __init__(self, mode: str = "validation") -> None:
        self.defs: Dict[str, Any] = {}
        self.names: Dict[Any, str] = {}
        self.mode = mode

    def name_for(self, cls: type) -> Tuple[str, bool]:
        """The definition name of ``cls``, and whether it is new."""
        if cls in self.names:
            return self.names[cls], False
        base = cls.__name__
        name, n = base, 1
        while name in self.defs:
            n += 1
            name = f"{base}{n}"
        self.names[cls] = name
        self.defs[name] = {}
        return name, True


def _enum_schema(values: Sequence[Any]) -> Dict[str, Any]:
    schema: Dict[str, Any] = {"enum": list(values)}
    kinds = {type(v) for v in values}
    if kinds == {str}:
        schema["type"] = "string"
    elif kinds == {int}:
        schema["type"] = "integer"
    elif kinds == {bool}:
        schema["type"] = "boolean"
    return schema


def _object_hints(cls: type) -> Dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception as e:  # noqa: BLE001 - unresolvable forward references
        raise SchemaError(f"cannot resolve the type hints of {cls.__qualname__}: {e}") from None


def _schema(tp: Any, defs: _Defs) -> Dict[str, Any]:
    tp, metadata = unwrap(tp)
    schema = _schema_of(tp, defs)
    if metadata:
        try:
            schema = apply_metadata(schema, metadata)
        except ConstraintError as e:
            raise SchemaError(str(e)) from None
    return schema


def _schema_of(tp: Any, defs: _Defs) -> Dict[str, Any]:
    if tp is Any or tp is object or tp is inspect.Parameter.empty:
        return {}
    if tp is None or tp is _NONE:
        return {"type": "null"}
    if tp is str:
        return {"type": "string"}
    if tp is bool:
        return {"type": "boolean"}
    if tp is int:
        return {"type": "integer"}
    if tp is float:
        return {"type": "number"}
    if tp is bytes:
        return {"type": "string", "contentEncoding": "base64"}
    if tp in (list, tuple, set, frozenset) or tp is collections.abc.Sequence:
        return {"type": "array"}
    if tp is dict or tp is collections.abc.Mapping:
        return {"type": "object"}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Literal:
        return _enum_schema(args)
    if _is_union(origin):
        arms = [_schema(a, defs) for a in args]
        return {"anyOf": arms}
    if origin in (list, set, frozenset, collections.abc.Sequence, collections.abc.MutableSequence,
                  collections.abc.Iterable, collections.abc.Set, collections.abc.MutableSet):
        schema: Dict[str, Any] = {"type": "array"}
        if args:
            schema["items"] = _schema(args[0], defs)
        if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet):
            schema["uniqueItems"] = True
        return schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _schema(args[0], defs)}
        if args == ((),):
            return {"type": "array", "maxItems": 0}
        return {
            "type": "array",
            "prefixItems": [_schema(a, defs) for a in args],
            "minItems": len(args),
            "maxItems": len(args),
        }
    if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
        schema = {"type": "object"}
        if len(args) == 2:
            if args[0] is not str:
                raise SchemaError(f"JSON object keys are strings; {tp!r} has {args[0]!r} keys")
            value_schema = _schema(args[1], defs)
            if value_schema:
                schema["additionalProperties"] = value_schema
        return schema
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_schema([m.value for m in tp])
    if isinstance(tp, type) and issubclass(tp, Model):
        return {"type": "object"}
    if _is_pydantic(tp):
        name, new = defs.name_for(tp)
        if new:
            schema = dict(tp.model_json_schema(ref_template="#/$defs/{model}", mode=defs.mode))
            for sub, sub_schema in schema.pop("$defs", {}).items():
                defs.defs.setdefault(sub, sub_schema)
            defs.defs[name] = schema
        return {"$ref": f"#/$defs/{name}"}
    if _is_typeddict(tp) or _is_dataclass_type(tp):
        name, new = defs.name_for(tp)
        if new:
            defs.defs[name] = _record_schema(tp, defs)
        return {"$ref": f"#/$defs/{name}"}
    if tp is datetime.datetime:
        return {"type": "string", "format": "date-time"}
    if tp is datetime.date:
        return {"type": "string", "format": "date"}
    if tp is uuid.UUID:
        return {"type": "string", "format": "uuid"}
    raise SchemaError(f"no JSON Schema for the type {tp!r}")


def _record_schema(tp: type, defs: _Defs) -> Dict[str, Any]:
    hints = _object_hints(tp)
    properties: Dict[str, Any] = {}
    required: List[str] = []
    if _is_typeddict(tp):
        required_keys = getattr(tp, "__required_keys__", set(hints) if tp.__total__ else set())  # type: ignore[attr-defined]
        for key, hint in hints.items():
            properties[key] = _schema(hint, defs)
            # `NotRequired[...]` written as a string annotation is not seen by
            # TypedDict itself: look at the resolved hint too.
            marker = getattr(typing.get_origin(hint), "_name", None)
            if marker == "Required" or (marker != "NotRequired" and key in required_keys):
                required.append(key)
    else:
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            hint = hints.get(f.name, Any)
            field_default_value: Any = f.default
            if is_field_info(f.default):  # a pydantic dataclass's `x: int = Field(...)`
                hint = typing.Annotated[hint, f.default]
                field_default_value = field_default(f.default)
                if field_default_value is NO_DEFAULT:
                    field_default_value = dataclasses.MISSING
            prop = _schema(hint, defs)
            if field_default_value is not dataclasses.MISSING:
                default = _json_default(field_default_value)
                if default is not _NO_DEFAULT:
                    prop = dict(prop)
                    prop["default"] = default
            elif f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            properties[f.name] = prop
    schema: Dict[str, Any] = {"type": "object", "title": tp.__name__, "properties": properties}
    if required:
        schema["required"] = required
    doc = _class_doc(tp)
    if doc:
        schema["description"] = doc
    return schema


_NO_DEFAULT = object()


def _json_default(value: Any) -> Any:
    try:
        return to_jsonable(value)
    except TypeError:
        return _NO_DEFAULT


def schema_for(tp: Any, mode: str = "validation") -> Dict[str, Any]:
    """The JSON Schema of a type hint (with its ``$defs``); ``mode``
    ``"serialization"`` describes values a handler returns."""
    defs = _Defs(mode)
    schema = dict(_schema(tp, defs))
    if defs.defs:
        schema["$defs"] = defs.defs
    return schema


# --- JSON arguments to Python values ---------------------------------------


def _matches(tp: Any) -> Callable[[Any], bool]:
    """A quick test of whether a JSON value could be of type ``tp`` (for
    choosing a ``Union`` arm)."""
    tp, _ = _strip_annotated(tp)
    origin = typing.get_origin(tp)
    if tp is None or tp is _NONE:
        return lambda v: v is None
    if tp is str or tp is bytes or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
        return lambda v: isinstance(v, str) or (not isinstance(v, (dict, list)) and v is not None)
    if tp is bool:
        return lambda v: isinstance(v, bool)
    if tp is int:
        return lambda v: isinstance(v, int) and not isinstance(v, bool)
    if tp is float:
        return lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
    if origin is typing.Literal:
        options = typing.get_args(tp)
        return lambda v: v in options
    if tp in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset) or (
        origin is not None and isinstance(origin, type) and issubclass(origin, collections.abc.Iterable)
        and not issubclass(origin, collections.abc.Mapping) and origin is not str
    ):
        return lambda v: isinstance(v, list)
    return lambda v: isinstance(v, dict)


def converter_for(tp: Any) -> Converter:
    """A function turning a JSON value (already validated against
    :func:`schema_for` ``(tp)``) into a value of type ``tp``. Metadata
    only pydantic can enforce (validators, ``strict``, …) makes it a
    pydantic ``TypeAdapter``'s validation."""
    if needs_pydantic(unwrap(tp)[1]):
        return _pydantic_converter(tp)
    tp, _ = _strip_annotated(tp)
    if tp is float:
        return lambda v: float(v) if isinstance(v, int) and not isinstance(v, bool) else v
    if tp is bytes:
        return lambda v: base64.b64decode(v) if isinstance(v, str) else v
    if tp is datetime.datetime:
        return lambda v: datetime.datetime.fromisoformat(v.replace("Z", "+00:00")) if isinstance(v, str) else v
    if tp is datetime.date:
        return lambda v: datetime.date.fromisoformat(v) if isinstance(v, str) else v
    if tp is uuid.UUID:
        return lambda v: uuid.UUID(v) if isinstance(v, str) else v
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return lambda v: tp(v)
    if isinstance(tp, type) and issubclass(tp, Model):
        return lambda v: tp.from_dict(v) if isinstance(v, dict) else v
    if _is_pydantic(tp):
        return lambda v: tp.model_validate(v)
    if _is_dataclass_type(tp):
        return _dataclass_converter(tp)
    if _is_typeddict(tp):
        hints = _object_hints(tp)
        fields = {k: converter_for(h) for k, h in hints.items()}
        fields = {k: c for k, c in fields.items() if c is not _identity}
        if not fields:
            return _identity
        return lambda v: {k: fields[k](x) if k in fields else x for k, x in v.items()} if isinstance(v, dict) else v
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(origin):
        arms = [(_matches(a), converter_for(a)) for a in args]
        if all(c is _identity for _, c in arms):
            return _identity

        def union(v: Any) -> Any:
            for matches, convert in arms:
                if matches(v):
                    try:
                        return convert(v)
                    except (TypeError, ValueError, KeyError):
                        continue
            return v

        return union
    if origin in (list, collections.abc.Sequence, collections.abc.MutableSequence, collections.abc.Iterable):
        item = converter_for(args[0]) if args else _identity
        if item is _identity:
            return _identity
        return lambda v: [item(x) for x in v] if isinstance(v, list) else v
    if origin in (set, frozenset, collections.abc.Set, collections.abc.MutableSet) or tp in (set, frozenset):
        item = converter_for(args[0]) if args else _identity
        make = frozenset if frozenset in (origin, tp) else set
        return lambda v: make(item(x) for x in v) if isinstance(v, list) else v
    if origin is tuple or tp is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = converter_for(args[0])
            return lambda v: tuple(item(x) for x in v) if isinstance(v, list) else v
        items = [converter_for(a) for a in args if a != ()]
        if not items:
            return lambda v: tuple(v) if isinstance(v, list) else v
        return lambda v: tuple(c(x) for c, x in zip(items, v)) if isinstance(v, list) else v
    if origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping):
        value = converter_for(args[1]) if len(args) == 2 else _identity
        if value is _identity:
            return _identity
        return lambda v: {k: value(x) for k, x in v.items()} if isinstance(v, dict) else v
    return _identity


def _pydantic_converter(tp: Any) -> Converter:
    residual = needs_pydantic(unwrap(tp)[1])
    try:
        from pydantic import TypeAdapter
    except ImportError:
        raise SchemaError(f"{residual[0]!r} can only be enforced with pydantic, which is not installed") from None
    return TypeAdapter(tp).validate_python


def _dataclass_converter(cls: type) -> Converter:
    fields: Optional[Dict[str, Converter]] = None

    def convert(value: Any) -> Any:
        nonlocal fields
        if not isinstance(value, dict):
            return value
        if fields is None:  # built on first use, so recursive types work
            hints = _object_hints(cls)
            fields = {f.name: converter_for(hints.get(f.name, Any)) for f in dataclasses.fields(cls) if f.init}
        return cls(**{k: fields[k](v) for k, v in value.items() if k in fields})

    return convert


# --- Python values to JSON --------------------------------------------------


def to_jsonable(value: Any) -> Any:
    """``value`` as JSON-compatible data (dicts, lists, str, int, float,
    bool, None): dataclasses, TypedDicts, pydantic models, enums, tuples,
    sets, bytes (base64), dates (ISO 8601), UUIDs, decimals and paths are
    converted; anything else is a ``TypeError``."""
    if value is None or isinstance(value, (str, bool, int, float)):
        if isinstance(value, enum.Enum):
            return to_jsonable(value.value)
        return value
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal, pathlib.PurePath)):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


# --- docstrings ---------------------------------------------------------------

_GOOGLE_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters|"
    r"Returns?|Yields?|Raises|Examples?|Notes?|Attributes|See Also|Warnings?|Todo|References)\s*:\s*$"
)
_NUMPY_RULE = re.compile(r"^-{3,}\s*$")
_PARAM_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args", "keyword arguments", "other parameters"}
_GOOGLE_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ENTRY = re.compile(r"^(\*{0,2}\w+)\s*(:.*)?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")
_SPHINX_FIELD = re.compile(r"^:\w+")


def parse_docstring(doc: Optional[str]) -> Tuple[Optional[str], Dict[str, str]]:
    """Splits a docstring (Google, NumPy or Sphinx style) into the
    description (the text before any section) and the parameters'
    descriptions."""
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    description: List[str] = []
    params: Dict[str, str] = {}
    i = 0
    in_description = True
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        google = _GOOGLE_SECTION.match(stripped)
        numpy = i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1].strip()) and stripped
        sphinx = _SPHINX_FIELD.match(stripped)
        if google or numpy:
            in_description = False
            title = (google.group(1) if google else stripped).lower()
            i += 1 if google else 2
            body: List[str] = []
            while i < len(lines):
                nxt = lines[i]
                if nxt.strip() and not nxt.startswith((" ", "\t")) and (
                    _GOOGLE_SECTION.match(nxt.strip())
                    or (i + 1 < len(lines) and _NUMPY_RULE.match(lines[i + 1].strip()))
                    or _SPHINX_FIELD.match(nxt.strip())
                ):
                    break
                if google and nxt.strip() and not nxt.startswith((" ", "\t")):
                    break
                body.append(nxt)
                i += 1
            if title in _PARAM_SECTIONS:
                params.update(_section_params(body, numpy_style=not google))
            continue
        if sphinx:
            in_description = False
            match = _SPHINX_PARAM.match(stripped)
            i += 1
            text = [match.group(2)] if match else []
            while i < len(lines) and lines[i].startswith((" ", "\t")) and lines[i].strip():
                text.append(lines[i].strip())
                i += 1
            if match:
                params[match.group(1)] = " ".join(t for t in text if t)
            continue
        if in_description:
            description.append(line)
        i += 1
    summary = "\n".join(description).strip()
    return (summary or None), params


def _section_params(body: List[str], numpy_style: bool) -> Dict[str, str]:
    params: Dict[str, str] = {}
    indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
    if not indents:
        return params
    base = min(indents)
    current: Optional[str] = None
    text: List[str] = []

    def flush() -> None:
        if current is not None:
            params[current.lstrip("*")] = " ".join(t for t in text if t).strip()

    for line in body:
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip())
        stripped = line.strip()
        if indent == base:
            entry = (_NUMPY_ENTRY if numpy_style else _GOOGLE_ENTRY).match(stripped)
            if entry:
                flush()
                current = entry.group(1)
                text = [] if numpy_style else [entry.group(3)]
                continue
        text.append(stripped)
    flush()
    return params


# --- functions -----------------------------------------------------------------


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
                raise SchemaError(f"parameter {p.name!r} of {_name_of(self.fn)}: {e}") from None
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


def _name_of(fn: Any) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


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
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception:  # noqa: BLE001 - unresolvable hints: use them raw
        hints = {}
    description, docs = parse_docstring(inspect.getdoc(fn))
    params: List[Param] = []
    context_param: Optional[str] = None
    for name, p in signature.parameters.items():
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        if p.kind is inspect.Parameter.POSITIONAL_ONLY:
            raise SchemaError(f"{_name_of(fn)}: positional-only parameter {name!r} is not supported")
        annotation = hints.get(name, p.annotation)
        bare, _ = _strip_annotated(annotation)
        if (isinstance(bare, type) and issubclass(bare, context_type)) or (
            annotation is inspect.Parameter.empty and name in ("ctx", "context")
        ):
            context_param = name
            continue
        if isinstance(bare, str):
            raise SchemaError(f"{_name_of(fn)}: cannot resolve the annotation {bare!r} of {name!r}")
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
    return FunctionSpec(
        fn=fn,
        params=params,
        context_param=context_param,
        is_async=_is_async_callable(fn),
        description=description,
        return_annotation=hints.get("return", signature.return_annotation),
    )


# --- tool output -----------------------------------------------------------------


@dataclasses.dataclass
class OutputSpec:
    """How a tool's return value becomes its result: with ``schema``, the
    value is structured content (``wrap``: as ``{"result": value}``)."""

    schema: Optional[Dict[str, Any]]
    wrap: bool


def _is_unstructured(tp: Any) -> bool:
    """Return types whose values are content, not data."""
    tp, _ = _strip_annotated(tp)
    if tp in (inspect.Parameter.empty, inspect.Signature.empty, Any, str, None, _NONE, object):
        return True
    if isinstance(tp, type) and issubclass(tp, (CallToolResult,) + _CONTENT_CLASSES):
        return True
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if _is_union(origin):
        return any(_is_unstructured(a) for a in args if a is not _NONE)
    if tp in (list, tuple, collections.abc.Sequence) or (
        origin in (list, tuple, collections.abc.Sequence) and (not args or args[0] in (Any, object))
    ):
        return True  # items of unknown type: content blocks, or text
    if origin in (list, collections.abc.Sequence) and args:
        inner, _ = _strip_annotated(args[0])
        return _is_content_type(inner)
    return _is_content_type(tp)


def _is_content_type(tp: Any) -> bool:
    if isinstance(tp, type) and issubclass(tp, _CONTENT_CLASSES):
        return True
    origin = typing.get_origin(tp)
    return _is_union(origin) and all(_is_content_type(a) for a in typing.get_args(tp))


def _is_object_type(tp: Any) -> bool:
    tp, _ = _strip_annotated(tp)
    origin = typing.get_origin(tp)
    return (
        _is_dataclass_type(tp)
        or _is_typeddict(tp)
        or _is_pydantic(tp)
        or tp is dict
        or origin in (dict, collections.abc.Mapping, collections.abc.MutableMapping)
    )


def _inline(schema: Dict[str, Any]) -> Dict[str, Any]:
    """A schema whose root is a ``$ref`` into its own ``$defs``, with the
    referenced definition at the root (output schemas must be objects)."""
    ref = schema.get("$ref")
    defs = schema.get("$defs", {})
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref[len("#/$defs/"):]
        root = dict(defs.get(name, {}))
        rest = {k: v for k, v in defs.items() if k != name}
        # Other definitions may refer to the root's: keep it reachable.
        if any(ref in repr(v) for v in rest.values()):
            rest[name] = defs[name]
        if rest:
            root["$defs"] = rest
        return root
    return schema


def output_spec(return_annotation: Any, structured: Optional[bool]) -> OutputSpec:
    """How a tool with this return annotation answers. ``structured``:
    ``None`` decides from the annotation, ``False`` never produces
    structured content, ``True`` requires it."""
    if structured is False:
        return OutputSpec(None, False)
    if _is_unstructured(return_annotation):
        if structured:
            raise SchemaError(
                f"structured_output=True needs a return annotation with a JSON Schema, not {return_annotation!r}"
            )
        return OutputSpec(None, False)
    if _is_object_type(return_annotation):
        return OutputSpec(_inline(schema_for(return_annotation, "serialization")), False)
    inner = schema_for(return_annotation, "serialization")
    defs = inner.pop("$defs", None)
    schema: Dict[str, Any] = {"type": "object", "properties": {"result": inner}, "required": ["result"]}
    if defs:
        schema["$defs"] = defs
    return OutputSpec(schema, True)
