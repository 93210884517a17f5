"""What ``Annotated`` metadata adds to a schema: descriptions, pydantic
``Field`` details, and constraints.

Constraints are the annotated-types objects (``Ge``, ``MaxLen``, …) that
``pydantic.Field(ge=…, max_length=…, pattern=…)`` puts in ``Annotated``
(or that a user writes directly). They become JSON Schema keywords
(``minimum``, ``maxLength``, ``pattern``, …), so the engine enforces them
against the input schema before a handler runs. Metadata that has no JSON
Schema form (pydantic validators, ``strict``, ``strip_whitespace``) is left to
pydantic: :func:`needs_pydantic` tells the converter to validate with it.

pydantic is never imported here: its objects are recognised by their module
and attributes, so it stays an optional dependency.
"""

from __future__ import annotations

import dataclasses
import decimal
import fractions
import typing
from typing import Any, Dict, Iterator, List, Sequence, Tuple

__all__ = ["unwrap", "apply_metadata", "needs_pydantic", "is_field_info", "field_default", "NO_DEFAULT"]

#: Constraint attributes and the JSON Schema keywords they become.
_NUMERIC = {"gt": "exclusiveMinimum", "ge": "minimum", "lt": "exclusiveMaximum", "le": "maximum",
            "multiple_of": "multipleOf"}
_LENGTH = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems"),
           "object": ("minProperties", "maxProperties")}
_CONSTRAINTS = tuple(_NUMERIC) + ("min_length", "max_length", "pattern")

#: No default: the field or parameter is required.
NO_DEFAULT = object()


class ConstraintError(TypeError):
    """A constraint that cannot apply to its type (the message says which)."""


def unwrap(tp: Any) -> Tuple[Any, List[Any]]:
    """The type inside ``Annotated`` (and ``Required``/``NotRequired``), and
    the ``Annotated`` metadata, innermost first."""
    metadata: List[Any] = []
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            args = typing.get_args(tp)
            metadata[:0] = args[1:]
            tp = args[0]
            continue
        if origin is not None and getattr(origin, "_name", None) in ("Required", "NotRequired"):
            tp = typing.get_args(tp)[0]
            continue
        return tp, metadata


def _library(obj: Any) -> str:
    return type(obj).__module__.split(".", 1)[0]


def is_field_info(obj: Any) -> bool:
    """Whether ``obj`` is a pydantic ``FieldInfo`` (what ``Field(...)`` makes)."""
    return _library(obj) == "pydantic" and type(obj).__name__ == "FieldInfo"


def field_default(field: Any) -> Any:
    """The default a ``FieldInfo`` gives, :data:`NO_DEFAULT` if it is
    required; a default factory is called."""
    if field.is_required():
        return NO_DEFAULT
    if getattr(field, "default_factory", None) is not None:
        return field.default_factory()
    return field.default


def _flatten(metadata: Sequence[Any]) -> Iterator[Any]:
    """The metadata with ``FieldInfo`` and grouped metadata (``Interval``,
    ``Len``, ``StringConstraints``) opened: each ``FieldInfo`` comes before
    its constraints."""
    for item in metadata:
        if is_field_info(item):
            yield item
            yield from _flatten(item.metadata)
        elif not isinstance(item, type) and getattr(item, "__is_annotated_types_grouped_metadata__", False):
            yield from _flatten(list(item))
        else:
            yield item


def _attributes(item: Any) -> Dict[str, Any]:
    """The set attributes of an annotated-types or pydantic metadata object."""
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        values = {f.name: getattr(item, f.name, None) for f in dataclasses.fields(item)}
    else:
        values = dict(getattr(item, "__dict__", {}))
    return {k: v for k, v in values.items() if v is not None}


def _constraints(item: Any) -> Dict[str, Any]:
    """The constraints an object carries (empty for anything else)."""
    if isinstance(item, (str, type)) or is_field_info(item) or _library(item) not in ("annotated_types", "pydantic"):
        return {}
    return {k: v for k, v in _attributes(item).items() if k in _CONSTRAINTS}


def _is_residual(item: Any) -> bool:
    """Whether ``item`` is pydantic or annotated-types metadata with more
    than constraints (validators, ``strict``, predicates, …)."""
    if isinstance(item, (str, type)) or is_field_info(item) or _library(item) not in ("annotated_types", "pydantic"):
        return False
    attributes = _attributes(item)
    return not attributes or any(k not in _CONSTRAINTS for k in attributes)


def needs_pydantic(metadata: Sequence[Any]) -> List[Any]:
    """The metadata only pydantic can enforce (empty when the schema says
    it all)."""
    return [item for item in _flatten(metadata) if _is_residual(item)]


def _number(value: Any) -> Any:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (decimal.Decimal, fractions.Fraction)):
        return float(value)
    return None


def _kind(schema: Dict[str, Any]) -> str:
    if "$ref" in schema:
        return "an object type"
    kind = schema.get("type")
    if kind is None:
        return "any value"
    if schema.get("contentEncoding"):
        return "bytes"
    article = "an" if str(kind)[:1] in "aeiou" else "a"
    if schema.get("format"):
        return f"{article} {kind} with format {schema['format']}"
    return f"{article} {kind}"


def _constrain(schema: Dict[str, Any], name: str, value: Any) -> Dict[str, Any]:
    """``schema`` with one constraint added (into every arm of an
    ``anyOf`` it applies to, as pydantic does for ``Optional``)."""
    arms = schema.get("anyOf")
    if isinstance(arms, list):
        constrained, applied = [], False
        for arm in arms:
            try:
                constrained.append(_constrain(arm, name, value))
                applied = True
            except ConstraintError:
                constrained.append(arm)
        if not applied:
            raise ConstraintError(f"the constraint {name}={value!r} applies to none of {arms!r}")
        return {**schema, "anyOf": constrained}
    kind = schema.get("type")
    plain = "contentEncoding" not in schema and "format" not in schema and "$ref" not in schema
    if name in _NUMERIC and kind in ("integer", "number") and _number(value) is not None:
        return {**schema, _NUMERIC[name]: _number(value)}
    if name in ("min_length", "max_length") and kind in _LENGTH and plain and isinstance(value, int):
        low, high = _LENGTH[kind]
        return {**schema, low if name == "min_length" else high: value}
    if name == "pattern" and kind == "string" and plain:
        return {**schema, "pattern": getattr(value, "pattern", value)}
    raise ConstraintError(f"the constraint {name}={value!r} does not apply to {_kind(schema)}")


def apply_metadata(schema: Dict[str, Any], metadata: Sequence[Any]) -> Dict[str, Any]:
    """``schema`` (of the type inside ``Annotated``) with what the metadata
    adds: a ``str`` or an object's ``description`` (or PEP 727
    ``documentation``) is the description; a ``FieldInfo`` gives title,
    description, examples and ``json_schema_extra``; constraints become
    keywords. Raises :class:`ConstraintError` for a constraint the type
    cannot have."""
    schema = dict(schema)
    for item in _flatten(metadata):
        if isinstance(item, str):
            schema["description"] = item
        elif is_field_info(item):
            from ._schema import to_jsonable  # a cycle: _schema imports this module

            for attribute in ("title", "description", "examples"):
                value = getattr(item, attribute, None)
                if value is not None:
                    schema[attribute] = to_jsonable(value)
            extra = getattr(item, "json_schema_extra", None)
            if isinstance(extra, dict):
                schema.update(to_jsonable(extra))
            elif callable(extra):
                extra(schema)
        else:
            constraints = _constraints(item)
            for name, value in constraints.items():
                schema = _constrain(schema, name, value)
            if not constraints and not isinstance(item, type):
                text = getattr(item, "description", None) or getattr(item, "documentation", None)
                if isinstance(text, str):
                    schema["description"] = text
    return schema
