"""Handlers' return values and exceptions as the answers the engine sends."""

from __future__ import annotations

import json
import typing
from typing import Any, Dict, List, Mapping, Optional

from ._invoke import Failure
from ._schema import OutputSpec, to_jsonable
from .errors import INTERNAL_ERROR, McpError, ToolError
from .types import (
    BlobResourceContents,
    CallToolResult,
    Completion,
    ContentBlock,
    GetPromptResult,
    Model,
    PromptMessage,
    ReadResourceResult,
    TextResourceContents,
)

__all__ = ["tool_result", "tool_failure", "rpc_failure", "resource_contents", "prompt_result", "completion_result"]


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


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


def tool_result(value: Any, out: OutputSpec) -> Dict[str, Any]:
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


def tool_failure(error: BaseException) -> Failure:
    if isinstance(error, McpError) and not isinstance(error, ToolError) and error.code is not None:
        return ("reject", error.code, error.message, to_jsonable(error.data))
    message = str(error.message if isinstance(error, McpError) else error) or type(error).__name__
    return ("resolve", {"content": [{"type": "text", "text": message}], "isError": True})


def rpc_failure(error: BaseException) -> Failure:
    if isinstance(error, McpError):
        code = error.code if error.code is not None else INTERNAL_ERROR
        return ("reject", code, error.message or type(error).__name__, to_jsonable(error.data))
    return ("reject", INTERNAL_ERROR, str(error) or type(error).__name__, None)


def resource_contents(uri: str, value: Any, mime_type: Optional[str]) -> Dict[str, Any]:
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


def prompt_result(value: Any, description: Optional[str]) -> Dict[str, Any]:
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


def completion_result(value: Any) -> Dict[str, Any]:
    if value is None:
        return {"values": []}
    if isinstance(value, Completion):
        return value.to_dict()
    if isinstance(value, Mapping):
        return dict(value)
    values = [str(v) for v in value]
    return {"values": values[:100], "total": len(values), "hasMore": len(values) > 100}
