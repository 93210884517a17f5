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
import inspect
import pathlib
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
from ._docstrings import parse_docstring
from .types import CallToolResult, ContentBlock, Model

__all__ = [
    "SchemaError",
    "Converter",
    "schema_for",
    "converter_for",
    "to_jsonable",
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
