"""Behaviour of the generated types in :mod:`libmcp.types`: helpers and
convenience constructors, mixed into the classes that
``codegen/src/python/compat.rs`` (``MIXINS``) names. Never fields: those
come from the schema."""

from __future__ import annotations

import base64
import typing
from typing import Any, Protocol, Type, TypeVar

T = TypeVar("T")


class _HasContent(Protocol):
    @property
    def content(self) -> Any: ...


class _HasStructured(Protocol):
    @property
    def structured_content(self) -> Any: ...


class _HasData(Protocol):
    @property
    def data(self) -> str: ...


class _HasBlob(Protocol):
    @property
    def blob(self) -> str: ...


class _HasContents(Protocol):
    @property
    def contents(self) -> Any: ...


class _HasAction(Protocol):
    @property
    def action(self) -> str: ...


def _text_of(blocks: Any) -> str:
    from .types import TextContent

    if not isinstance(blocks, list):
        blocks = [blocks]
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))


class ContentText:
    """``text``: the text blocks of ``content``."""

    @property
    def text(self: _HasContent) -> str:
        """The text blocks of :attr:`content`, joined by newlines."""
        return _text_of(self.content)


class StructuredData:
    """``data``: the structured content, unwrapped."""

    @property
    def data(self: _HasStructured) -> Any:
        """The structured content; for a tool whose output was wrapped as
        ``{"result": value}`` (a non-object return type), that ``value``."""
        structured = self.structured_content
        if isinstance(structured, dict) and list(structured) == ["result"]:
            return structured["result"]
        return structured


class Base64Data:
    """Raw bytes in and out of base64 ``data``."""

    @classmethod
    def from_bytes(cls: Type[T], data: bytes, mime_type: str) -> T:
        """The content of raw bytes of type ``mime_type``."""
        make: Any = cls
        return typing.cast(T, make(data=base64.b64encode(data).decode("ascii"), mime_type=mime_type))

    def to_bytes(self: _HasData) -> bytes:
        """The raw bytes."""
        return base64.b64decode(self.data)


class BlobBytes:
    """Raw bytes out of base64 ``blob``."""

    def to_bytes(self: _HasBlob) -> bytes:
        """The raw bytes."""
        return base64.b64decode(self.blob)


class ContentsText:
    """``text``: the text contents."""

    @property
    def text(self: _HasContents) -> str:
        """The text contents, joined by newlines."""
        from .types import TextResourceContents

        return "\n".join(c.text for c in self.contents if isinstance(c, TextResourceContents))


class MessageShortcuts:
    """Messages of text in one call."""

    @classmethod
    def user(cls: Type[T], text: str) -> T:
        """A user message with text."""
        from .types import TextContent

        make: Any = cls
        return typing.cast(T, make(role="user", content=TextContent(text=text)))

    @classmethod
    def assistant(cls: Type[T], text: str) -> T:
        """An assistant message with text."""
        from .types import TextContent

        make: Any = cls
        return typing.cast(T, make(role="assistant", content=TextContent(text=text)))


class Acceptance:
    """``accepted``: whether the user accepted."""

    @property
    def accepted(self: _HasAction) -> bool:
        """Whether the user accepted."""
        return self.action == "accept"
