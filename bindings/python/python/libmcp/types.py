"""Typed MCP objects: what clients receive and what handlers may return.

Each type is a dataclass with snake_case attributes. ``Type.from_dict(d)``
reads the wire form (camelCase keys, ``_meta``), ``obj.to_dict()`` writes it
back; keys this version does not know are kept and written back too (see
:attr:`Model.extra`).
"""

from __future__ import annotations

import base64
import dataclasses
import typing
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, List, Literal, Mapping, Optional, Tuple, TypeVar, Union

__all__ = [
    "Model",
    "Implementation",
    "Annotations",
    "Icon",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "ContentBlock",
    "TextResourceContents",
    "BlobResourceContents",
    "ResourceContents",
    "ToolAnnotations",
    "Tool",
    "CallToolResult",
    "Resource",
    "ResourceTemplate",
    "ReadResourceResult",
    "PromptArgument",
    "Prompt",
    "PromptMessage",
    "GetPromptResult",
    "Completion",
    "CompletionRef",
    "CompletionArgument",
    "Root",
    "SamplingMessage",
    "ModelPreferences",
    "CreateMessageParams",
    "CreateMessageResult",
    "ElicitParams",
    "ElicitResult",
    "LogMessage",
    "Progress",
    "Notification",
    "Role",
    "LoggingLevel",
]

Role = Literal["user", "assistant"]
LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

M = TypeVar("M", bound="Model")

_Decoder = Callable[[Any], Any]


def _wire_name(attr: str) -> str:
    if attr == "meta":
        return "_meta"
    head, *rest = attr.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


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

    _libmcp_spec: ClassVar[Optional[List[Tuple[str, str, _Decoder]]]] = None

    @classmethod
    def _spec(cls) -> List[Tuple[str, str, _Decoder]]:
        spec = cls.__dict__.get("_libmcp_spec")
        if spec is None:
            hints = typing.get_type_hints(cls)
            spec = [
                (f.name, _wire_name(f.name), _decoder(hints[f.name]))
                for f in dataclasses.fields(cls)  # type: ignore[arg-type]
            ]
            cls._libmcp_spec = spec
        return spec

    @classmethod
    def from_dict(cls: typing.Type[M], data: Mapping[str, Any]) -> M:
        """Reads the wire form (a dict with camelCase keys)."""
        if isinstance(data, cls):
            return data
        if not isinstance(data, Mapping):
            raise TypeError(f"{cls.__name__}.from_dict needs a dict, not {type(data).__name__}")
        kwargs: Dict[str, Any] = {}
        extra: Dict[str, Any] = {}
        spec = cls._spec()
        wires = {wire: (attr, decode) for attr, wire, decode in spec}
        for key, value in data.items():
            known = wires.get(key)
            if known is None:
                extra[key] = value
            else:
                kwargs[known[0]] = known[1](value)
        try:
            obj = cls(**kwargs)
        except TypeError as e:
            from .errors import ProtocolError

            raise ProtocolError(f"invalid {cls.__name__}: {e}; got {dict(data)!r}") from None
        if extra:
            object.__setattr__(obj, "_extra", extra)
        return obj

    def to_dict(self) -> Dict[str, Any]:
        """The wire form: camelCase keys, ``None`` values left out."""
        out: Dict[str, Any] = {}
        for attr, wire, _ in self._spec():
            value = getattr(self, attr)
            if value is not None:
                out[wire] = _encode(value)
        for key, value in self.extra.items():
            out.setdefault(key, value)
        return out

    @property
    def extra(self) -> Dict[str, Any]:
        """Keys of the wire form this version of libmcp does not know."""
        return self.__dict__.get("_extra") or {}


def _model_decoder(cls: typing.Type[Model]) -> _Decoder:
    def decode(value: Any) -> Any:
        return cls.from_dict(value) if isinstance(value, Mapping) else value

    return decode


def _identity(value: Any) -> Any:
    return value


def _decoder(tp: Any) -> _Decoder:
    special = _UNION_DECODERS.get(tp)
    if special is not None:
        return special
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if isinstance(tp, type) and issubclass(tp, Model):
        return _model_decoder(tp)
    if origin is Union:
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            inner = _decoder(rest[0])
            if inner is _identity:
                return _identity
            return lambda v: None if v is None else inner(v)
        union = Union[tuple(rest)]  # type: ignore[valid-type]
        special = _UNION_DECODERS.get(union)
        if special is not None:
            return lambda v: None if v is None else special(v)
        return _identity
    if origin in (list, List):
        inner = _decoder(args[0]) if args else _identity
        if inner is _identity:
            return _identity
        return lambda v: [inner(x) for x in v] if isinstance(v, list) else v
    if origin in (dict, Dict):
        inner = _decoder(args[1]) if len(args) == 2 else _identity
        if inner is _identity:
            return _identity
        return lambda v: {k: inner(x) for k, x in v.items()} if isinstance(v, dict) else v
    return _identity


@dataclass
class Icon(Model):
    """An icon of a server, tool, resource or prompt."""

    src: str
    mime_type: Optional[str] = None
    sizes: Optional[List[str]] = None
    theme: Optional[str] = None


@dataclass
class Implementation(Model):
    """The name and version of a client or server."""

    name: str
    version: str
    title: Optional[str] = None
    description: Optional[str] = None
    website_url: Optional[str] = None
    icons: Optional[List[Icon]] = None


@dataclass
class Annotations(Model):
    """Hints about who content is for and how important it is."""

    audience: Optional[List[Role]] = None
    priority: Optional[float] = None
    last_modified: Optional[str] = None


@dataclass
class TextContent(Model):
    """Text."""

    text: str
    type: Literal["text"] = "text"
    annotations: Optional[Annotations] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class ImageContent(Model):
    """An image: base64 ``data`` of type ``mime_type``."""

    data: str
    mime_type: str
    type: Literal["image"] = "image"
    annotations: Optional[Annotations] = None
    meta: Optional[Dict[str, Any]] = None

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str) -> "ImageContent":
        """An image from raw bytes."""
        return cls(base64.b64encode(data).decode("ascii"), mime_type)

    def to_bytes(self) -> bytes:
        """The raw bytes."""
        return base64.b64decode(self.data)


@dataclass
class AudioContent(Model):
    """Audio: base64 ``data`` of type ``mime_type``."""

    data: str
    mime_type: str
    type: Literal["audio"] = "audio"
    annotations: Optional[Annotations] = None
    meta: Optional[Dict[str, Any]] = None

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str) -> "AudioContent":
        """Audio from raw bytes."""
        return cls(base64.b64encode(data).decode("ascii"), mime_type)

    def to_bytes(self) -> bytes:
        """The raw bytes."""
        return base64.b64decode(self.data)


@dataclass
class ResourceLink(Model):
    """A link to a resource the client may read."""

    uri: str
    name: str
    type: Literal["resource_link"] = "resource_link"
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Annotations] = None
    icons: Optional[List[Icon]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class TextResourceContents(Model):
    """The text of a resource."""

    uri: str
    text: str
    mime_type: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class BlobResourceContents(Model):
    """The binary contents of a resource, base64-encoded in ``blob``."""

    uri: str
    blob: str
    mime_type: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None

    def to_bytes(self) -> bytes:
        """The raw bytes."""
        return base64.b64decode(self.blob)


ResourceContents = Union[TextResourceContents, BlobResourceContents]


@dataclass
class EmbeddedResource(Model):
    """A resource's contents embedded in a message or result."""

    resource: ResourceContents
    type: Literal["resource"] = "resource"
    annotations: Optional[Annotations] = None
    meta: Optional[Dict[str, Any]] = None


ContentBlock = Union[TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource]

_CONTENT_TYPES: Dict[str, typing.Type[Model]] = {
    "text": TextContent,
    "image": ImageContent,
    "audio": AudioContent,
    "resource_link": ResourceLink,
    "resource": EmbeddedResource,
}


def _decode_content(value: Any) -> Any:
    if isinstance(value, Mapping):
        cls = _CONTENT_TYPES.get(value.get("type", ""))
        if cls is not None:
            return cls.from_dict(value)
    return value


def _decode_content_or_list(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode_content(v) for v in value]
    return _decode_content(value)


def _decode_resource_contents(value: Any) -> Any:
    if isinstance(value, Mapping):
        if "blob" in value:
            return BlobResourceContents.from_dict(value)
        if "text" in value:
            return TextResourceContents.from_dict(value)
    return value


_UNION_DECODERS: Dict[Any, _Decoder] = {
    ContentBlock: _decode_content,
    ResourceContents: _decode_resource_contents,
    Union[ContentBlock, List[ContentBlock]]: _decode_content_or_list,
}


def _text_of(blocks: Any) -> str:
    if not isinstance(blocks, list):
        blocks = [blocks]
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))


@dataclass
class ToolAnnotations(Model):
    """Hints about a tool's behaviour (clients must not rely on them for
    security)."""

    title: Optional[str] = None
    read_only_hint: Optional[bool] = None
    destructive_hint: Optional[bool] = None
    idempotent_hint: Optional[bool] = None
    open_world_hint: Optional[bool] = None


@dataclass
class Tool(Model):
    """A tool a server offers."""

    name: str
    input_schema: Dict[str, Any]
    description: Optional[str] = None
    title: Optional[str] = None
    output_schema: Optional[Dict[str, Any]] = None
    annotations: Optional[ToolAnnotations] = None
    icons: Optional[List[Icon]] = None
    execution: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class CallToolResult(Model):
    """What a tool call returned."""

    content: List[ContentBlock] = field(default_factory=list)
    structured_content: Optional[Dict[str, Any]] = None
    is_error: bool = False
    meta: Optional[Dict[str, Any]] = None

    @property
    def text(self) -> str:
        """The text blocks of :attr:`content`, joined by newlines."""
        return _text_of(self.content)

    @property
    def data(self) -> Any:
        """The structured content; for a tool whose output was wrapped as
        ``{"result": value}`` (a non-object return type), that ``value``."""
        structured = self.structured_content
        if isinstance(structured, dict) and list(structured) == ["result"]:
            return structured["result"]
        return structured


@dataclass
class Resource(Model):
    """A resource a server offers at a fixed URI."""

    uri: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    size: Optional[int] = None
    annotations: Optional[Annotations] = None
    icons: Optional[List[Icon]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class ResourceTemplate(Model):
    """A family of resources whose URIs match an RFC 6570 template."""

    uri_template: str
    name: str
    title: Optional[str] = None
    description: Optional[str] = None
    mime_type: Optional[str] = None
    annotations: Optional[Annotations] = None
    icons: Optional[List[Icon]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class ReadResourceResult(Model):
    """The contents of a resource."""

    contents: List[ResourceContents] = field(default_factory=list)
    meta: Optional[Dict[str, Any]] = None

    @property
    def text(self) -> str:
        """The text contents, joined by newlines."""
        return "\n".join(c.text for c in self.contents if isinstance(c, TextResourceContents))


@dataclass
class PromptArgument(Model):
    """An argument a prompt takes."""

    name: str
    description: Optional[str] = None
    required: Optional[bool] = None
    title: Optional[str] = None


@dataclass
class Prompt(Model):
    """A prompt template a server offers."""

    name: str
    description: Optional[str] = None
    title: Optional[str] = None
    arguments: Optional[List[PromptArgument]] = None
    icons: Optional[List[Icon]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class PromptMessage(Model):
    """One message of a rendered prompt."""

    role: Role
    content: ContentBlock

    @classmethod
    def user(cls, text: str) -> "PromptMessage":
        """A user message with text."""
        return cls("user", TextContent(text))

    @classmethod
    def assistant(cls, text: str) -> "PromptMessage":
        """An assistant message with text."""
        return cls("assistant", TextContent(text))


@dataclass
class GetPromptResult(Model):
    """A rendered prompt."""

    messages: List[PromptMessage] = field(default_factory=list)
    description: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class Completion(Model):
    """Completion values for an argument."""

    values: List[str] = field(default_factory=list)
    total: Optional[int] = None
    has_more: Optional[bool] = None


@dataclass
class CompletionRef(Model):
    """What is being completed: a prompt (``type="ref/prompt"``, ``name``)
    or a resource template (``type="ref/resource"``, ``uri``)."""

    type: str
    name: Optional[str] = None
    uri: Optional[str] = None


@dataclass
class CompletionArgument(Model):
    """The argument being completed and what was typed so far."""

    name: str
    value: str


@dataclass
class Root(Model):
    """A directory or file the client lets the server work in."""

    uri: str
    name: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class SamplingMessage(Model):
    """A message of a sampling request or result."""

    role: Role
    content: Union[ContentBlock, List[ContentBlock]]
    meta: Optional[Dict[str, Any]] = None

    @property
    def text(self) -> str:
        """The text of the content."""
        return _text_of(self.content)


@dataclass
class ModelPreferences(Model):
    """What the server prefers in a model (hints, and priorities 0..1)."""

    hints: Optional[List[Dict[str, Any]]] = None
    cost_priority: Optional[float] = None
    speed_priority: Optional[float] = None
    intelligence_priority: Optional[float] = None


@dataclass
class CreateMessageParams(Model):
    """A server's sampling request (``sampling/createMessage``)."""

    messages: List[SamplingMessage]
    max_tokens: int
    system_prompt: Optional[str] = None
    temperature: Optional[float] = None
    stop_sequences: Optional[List[str]] = None
    model_preferences: Optional[ModelPreferences] = None
    include_context: Optional[str] = None
    metadata: Optional[Dict[str, Any]] = None
    tools: Optional[List[Dict[str, Any]]] = None
    tool_choice: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class CreateMessageResult(Model):
    """The client's answer to a sampling request."""

    role: Role
    content: Union[ContentBlock, List[ContentBlock]]
    model: str
    stop_reason: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None

    @property
    def text(self) -> str:
        """The text of the content."""
        return _text_of(self.content)


@dataclass
class ElicitParams(Model):
    """A server's request for user input (``elicitation/create``): in form
    mode a ``message`` and a flat ``requested_schema``; in URL mode a
    ``url`` to open and an ``elicitation_id``."""

    message: str
    requested_schema: Optional[Dict[str, Any]] = None
    mode: Optional[str] = None
    url: Optional[str] = None
    elicitation_id: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class ElicitResult(Model):
    """The user's answer: ``accept`` (with ``content``), ``decline`` or
    ``cancel``."""

    action: Literal["accept", "decline", "cancel"]
    content: Optional[Dict[str, Any]] = None
    meta: Optional[Dict[str, Any]] = None

    @property
    def accepted(self) -> bool:
        """Whether the user accepted."""
        return self.action == "accept"


@dataclass
class LogMessage(Model):
    """A log message from a server (``notifications/message``)."""

    level: LoggingLevel
    data: Any
    logger: Optional[str] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class Progress(Model):
    """A progress report for a request."""

    progress: float
    total: Optional[float] = None
    message: Optional[str] = None
    progress_token: Optional[Union[str, int]] = None
    meta: Optional[Dict[str, Any]] = None


@dataclass
class Notification(Model):
    """Any notification: its ``method`` and ``params``."""

    method: str
    params: Optional[Dict[str, Any]] = None
