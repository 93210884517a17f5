"""The runtime of the generated types in :mod:`libmcp.types`: the
:class:`Model` base, which reads and writes the wire form by the spec each
class registers, and the decoders (lists, maps, unions) the generated code
combines. No field lists here: those come from the schema."""

from __future__ import annotations

import typing
from typing import Any, Callable, ClassVar, Dict, FrozenSet, Iterable, Mapping, Optional, Tuple, TypeVar

from .errors import ProtocolError

#: Turns a wire value into its Python form (values it cannot read pass
#: through unchanged).
Decoder = Callable[[Any], Any]
#: ``(attribute, wire key, decoder or None)``.
FieldSpec = Tuple[str, str, Optional[Decoder]]

M = TypeVar("M", bound="Model")


def _encode(value: Any) -> Any:
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    return value


class Model:
    """Base of the typed MCP objects (each subclass is a dataclass)."""

    _libmcp_fields: ClassVar[Tuple[FieldSpec, ...]] = ()
    _libmcp_wire: ClassVar[Dict[str, Tuple[str, Optional[Decoder]]]] = {}
    _libmcp_nullable: ClassVar[FrozenSet[str]] = frozenset()

    @classmethod
    def from_dict(cls: typing.Type[M], data: Mapping[str, Any]) -> M:
        """Reads the wire form (a dict with camelCase keys)."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, Mapping):
            raise TypeError(f"{cls.__name__}.from_dict needs a dict, not {type(data).__name__}")
        wire = cls._libmcp_wire
        kwargs: Dict[str, Any] = {}
        extra: Dict[str, Any] = {}
        for key, value in data.items():
            known = wire.get(key)
            if known is None:
                extra[key] = value
            else:
                attr, decode = known
                kwargs[attr] = value if decode is None or value is None else decode(value)
        try:
            obj = cls(**kwargs)
        except TypeError as e:
            raise ProtocolError(f"invalid {cls.__name__}: {e}; got {dict(data)!r}") from None
        if extra:
            object.__setattr__(obj, "_extra", extra)
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The wire form: camelCase keys, ``None`` values left out (unless
        the schema requires the key and allows null)."""
        out: Dict[str, Any] = {}
        nullable = self._libmcp_nullable
        for attr, wire, _ in self._libmcp_fields:
            value = getattr(self, attr)
            if value is not None:
                out[wire] = _encode(value)
            elif attr in nullable:
                out[wire] = None
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @property
    def extra(self) -> Dict[str, Any]:
        """Keys of the wire form this version of libmcp does not know."""
        extra: Dict[str, Any] = self.__dict__.get("_extra") or {}
        return extra


def register(cls: typing.Type[Model], fields: Iterable[FieldSpec], nullable: Iterable[str] = ()) -> None:
    """Gives a generated class its wire spec."""
    cls._libmcp_fields = tuple(fields)
    cls._libmcp_wire = {wire: (attr, decode) for attr, wire, decode in cls._libmcp_fields}
    cls._libmcp_nullable = frozenset(nullable)


def model_of(cls: typing.Type[Model]) -> Decoder:
    """Decodes a dict as ``cls``."""

    def decode(value: Any) -> Any:
        return cls.from_dict(value) if isinstance(value, Mapping) else value

    return decode


def list_of(item: Decoder) -> Decoder:
    """Decodes each item of a list."""
    return lambda value: [item(v) for v in value] if isinstance(value, list) else value


def map_of(item: Decoder) -> Decoder:
    """Decodes each value of a dict."""
    return lambda value: {k: item(v) for k, v in value.items()} if isinstance(value, Mapping) else value


def either(obj: Decoder, array: Decoder) -> Decoder:
    """A union of objects and arrays: lists go to ``array``, the rest to
    ``obj``."""
    return lambda value: array(value) if isinstance(value, list) else obj(value)


def tagged(tag: str, classes: Mapping[str, typing.Type[Model]], default: Optional[typing.Type[Model]]) -> Decoder:
    """A union told apart by the constant in ``tag``; ``default`` when the tag
    is missing. A dict with an unknown tag stays a dict."""

    def decode(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        key = value.get(tag)
        cls = default if key is None else classes.get(key) if isinstance(key, str) else None
        return cls.from_dict(value) if cls is not None else value

    return decode


def best_match(*members: Tuple[typing.Type[Model], Tuple[str, ...], Mapping[str, Tuple[Any, ...]]]) -> Decoder:
    """A union without a discriminator: ``(class, required keys, fixed
    values)`` per member; the dict becomes the member whose required keys it
    has and whose fixed values it agrees with, the one requiring most (then
    knowing most of its keys) if several do, the first on a tie. A dict no
    member matches stays a dict."""

    def decode(value: Any) -> Any:
        if not isinstance(value, Mapping):
            return value
        best: Optional[typing.Type[Model]] = None
        best_score = (-1, -1)
        for cls, required, fixed in members:
            if any(k not in value for k in required):
                continue
            if any(k in value and value[k] not in allowed for k, allowed in fixed.items()):
                continue
            known = cls._libmcp_wire
            score = (len(required), sum(1 for k in value if k in known))
            if score > best_score:
                best, best_score = cls, score
        return best.from_dict(value) if best is not None else value

    return decode


_UNIONS: Dict[Any, Decoder] = {}


def register_union(tp: Any, decoder: Decoder) -> None:
    """Lets :func:`decode` read the union or alias ``tp``."""
    _UNIONS[tp] = decoder


def decode(tp: Any, data: Any) -> Any:
    """Reads ``data`` (wire form) as ``tp``: a class of :mod:`libmcp.types`
    or one of its unions and aliases, e.g. ``decode(ContentBlock, {"type":
    "text", "text": "hi"})``."""
    if isinstance(tp, type) and issubclass(tp, Model):
        return tp.from_dict(data)
    decoder = _UNIONS.get(tp)
    if decoder is None:
        raise TypeError(f"{tp!r} is not a type of libmcp.types that can be decoded")
    return decoder(data)
