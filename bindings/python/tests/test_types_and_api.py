"""The typed objects, the exception hierarchy, and the public API's
documentation and typing artefacts."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import libmcp
from libmcp import errors, types


def test_wire_form_round_trip() -> None:
    wire = {
        "name": "t",
        "inputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": True, "futureHint": 1},
        "_meta": {"k": "v"},
        "somethingNew": [1, 2],
    }
    tool = libmcp.Tool.from_dict(wire)
    assert tool.input_schema == {"type": "object"}
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    assert tool.meta == {"k": "v"}
    assert tool.extra == {"somethingNew": [1, 2]}
    assert tool.to_dict() == wire


def test_content_is_decoded_by_type() -> None:
    result = libmcp.CallToolResult.from_dict(
        {
            "content": [
                {"type": "text", "text": "a"},
                {"type": "image", "data": "AA==", "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "x://y", "blob": "AA=="}},
                {"type": "resource_link", "uri": "x://z", "name": "z"},
                {"type": "text", "text": "b"},
            ],
            "isError": False,
        }
    )
    kinds = [type(c) for c in result.content]
    assert kinds == [libmcp.TextContent, libmcp.ImageContent, libmcp.EmbeddedResource, libmcp.ResourceLink, libmcp.TextContent]
    embedded = result.content[2]
    assert isinstance(embedded, libmcp.EmbeddedResource)
    assert isinstance(embedded.resource, libmcp.BlobResourceContents)
    assert result.text == "a\nb"


def test_invalid_wire_data_is_a_protocol_error() -> None:
    with pytest.raises(libmcp.ProtocolError, match="Tool"):
        libmcp.Tool.from_dict({"inputSchema": {}})


@pytest.mark.parametrize(
    "name, code, cls",
    [
        ("InvalidParams", -32602, libmcp.InvalidParams),
        ("MethodNotFound", -32601, libmcp.MethodNotFound),
        ("ResourceNotFound", -32002, libmcp.ResourceNotFound),
        ("InternalError", -32603, libmcp.InternalError),
        ("McpError", -1, libmcp.McpError),
        ("Timeout", None, libmcp.Timeout),
        ("ConnectionClosed", None, libmcp.ConnectionClosed),
        ("Cancelled", None, libmcp.Cancelled),
        ("InvalidState", None, libmcp.InvalidState),
        ("CapabilityNotSupported", None, libmcp.CapabilityNotSupported),
        ("ProtocolError", None, libmcp.ProtocolError),
        ("TransportError", None, libmcp.TransportError),
        ("InvalidArgument", None, libmcp.InvalidArgument),
        ("AuthError", None, libmcp.AuthError),
        # Not a class of libmcp.errors (a newer native module): the base.
        ("SomethingNew", None, libmcp.McpError),
        ("annotations", None, libmcp.McpError),
    ],
)
def test_exception_hierarchy(name: str, code: object, cls: type) -> None:
    error = errors._from_core(name, "message", code, {"d": 1})  # type: ignore[arg-type]
    assert type(error) is cls
    assert isinstance(error, libmcp.McpError)
    assert (error.message, error.code, error.data) == ("message", code, {"d": 1})


def test_exceptions_are_also_builtin_kinds() -> None:
    assert issubclass(libmcp.Timeout, TimeoutError)
    assert issubclass(libmcp.TransportError, ConnectionError)
    assert issubclass(libmcp.TransportError, OSError)
    assert issubclass(libmcp.InvalidArgument, ValueError)
    assert issubclass(libmcp.InvalidState, RuntimeError)
    assert libmcp.InvalidParams("x").code == -32602
    assert str(libmcp.McpError("boom", code=7)) == "boom (code 7)"


def _public_members(obj: object) -> list:
    return [
        (name, member)
        for name, member in inspect.getmembers(obj)
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, property))
    ]


def test_everything_public_is_documented() -> None:
    undocumented = []
    for name in libmcp.__all__:
        obj = getattr(libmcp, name)
        if inspect.ismodule(obj) or isinstance(obj, str):
            continue
        if not inspect.getdoc(obj):
            undocumented.append(name)
        if inspect.isclass(obj) and obj.__module__.startswith("libmcp"):
            for member_name, member in _public_members(obj):
                owner = next((k for k in obj.__mro__ if member_name in vars(k)), obj)
                if owner.__module__.startswith("libmcp") and not inspect.getdoc(member):
                    undocumented.append(f"{name}.{member_name}")
    assert undocumented == []


def test_the_package_is_typed() -> None:
    package = Path(libmcp.__file__).parent
    assert (package / "py.typed").exists()
    assert (package / "_libmcp.pyi").exists()
    native = libmcp._libmcp
    stub = (package / "_libmcp.pyi").read_text()
    for name in ("Call", "Responder", "ServerContext", "Serving", "ServerCore", "ClientCore", "connect_stdio", "connect_http"):
        assert hasattr(native, name) and name in stub


def test_version() -> None:
    assert libmcp.__version__.count(".") == 2
