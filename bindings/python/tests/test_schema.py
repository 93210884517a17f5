"""Schemas from type hints and docstrings, and the conversions that go with
them (no I/O)."""

from __future__ import annotations

import dataclasses
import enum
import sys
from typing import Any, Dict, List, Literal, Optional, Sequence, Set, Tuple, Union

if sys.version_info >= (3, 9):
    from typing import Annotated

import pytest

from libmcp import Context
from libmcp._docstrings import parse_docstring
from libmcp._functions import inspect_function
from libmcp._schema import (
    SchemaError,
    converter_for,
    output_spec,
    schema_for,
    to_jsonable,
)

if sys.version_info >= (3, 12):
    from typing import NotRequired, TypedDict
else:
    from typing_extensions import NotRequired, TypedDict


class Shade(enum.Enum):
    LIGHT = "light"
    DARK = "dark"


@dataclasses.dataclass
class Node:
    """A tree node."""

    value: int
    children: List["Node"] = dataclasses.field(default_factory=list)


class Movie(TypedDict):
    title: str
    year: NotRequired[int]


@pytest.mark.parametrize(
    "hint, schema",
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (bytes, {"type": "string", "contentEncoding": "base64"}),
        (List[int], {"type": "array", "items": {"type": "integer"}}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (Set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (Tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            Tuple[int, str],
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2},
        ),
        (Dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
        (dict, {"type": "object"}),
        (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (Literal["a", "b"], {"enum": ["a", "b"], "type": "string"}),
        (Literal[1, 2], {"enum": [1, 2], "type": "integer"}),
        (Shade, {"enum": ["light", "dark"], "type": "string"}),
        (Annotated[int, "How many"], {"type": "integer", "description": "How many"}),
    ],
)
def test_schemas_of_type_hints(hint: Any, schema: Dict[str, Any]) -> None:
    assert schema_for(hint) == schema


def test_schemas_of_records() -> None:
    schema = schema_for(Node)
    assert schema == {
        "$ref": "#/$defs/Node",
        "$defs": {
            "Node": {
                "type": "object",
                "title": "Node",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
                },
                "required": ["value"],
                "description": "A tree node.",
            }
        },
    }
    movie = schema_for(Movie)["$defs"]["Movie"]
    assert movie["properties"] == {"title": {"type": "string"}, "year": {"type": "integer"}}
    assert movie["required"] == ["title"]


def test_pydantic_models() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Pet(pydantic.BaseModel):
        name: str = pydantic.Field(description="Its name")
        legs: int = 4

    schema = schema_for(List[Pet])
    assert schema["items"] == {"$ref": "#/$defs/Pet"}
    pet = schema["$defs"]["Pet"]
    assert pet["properties"]["name"]["description"] == "Its name"
    assert pet["required"] == ["name"]
    value = converter_for(List[Pet])([{"name": "Rex"}])
    assert isinstance(value[0], Pet) and value[0].legs == 4
    assert to_jsonable(value) == [{"name": "Rex", "legs": 4}]


def test_unsupported_hints_are_reported() -> None:
    class Opaque:
        pass

    with pytest.raises(SchemaError, match="Opaque"):
        schema_for(Opaque)
    with pytest.raises(SchemaError, match="keys"):
        schema_for(Dict[int, str])

    def tool(x: Opaque) -> str:
        return ""

    with pytest.raises(SchemaError, match="Opaque"):
        inspect_function(tool, Context).input_schema()


def test_converters_build_the_annotated_types() -> None:
    tree = converter_for(Node)({"value": 1, "children": [{"value": 2}]})
    assert tree == Node(1, [Node(2)])
    assert converter_for(float)(3) == 3.0 and isinstance(converter_for(float)(3), float)
    assert converter_for(Shade)("dark") is Shade.DARK
    assert converter_for(Optional[Node])(None) is None
    assert converter_for(Tuple[int, str])([1, "a"]) == (1, "a")
    assert converter_for(Set[int])([1, 1, 2]) == {1, 2}
    assert converter_for(Dict[str, Node])({"a": {"value": 3}}) == {"a": Node(3)}
    assert converter_for(Union[int, Node])({"value": 4}) == Node(4)
    assert converter_for(bytes)("YWJj") == b"abc"


def test_to_jsonable() -> None:
    assert to_jsonable({"n": Node(1), "s": Shade.LIGHT, "t": (1, 2), "b": b"abc"}) == {
        "n": {"value": 1, "children": []},
        "s": "light",
        "t": [1, 2],
        "b": "YWJj",
    }
    with pytest.raises(TypeError):
        to_jsonable(object())


def test_docstrings() -> None:
    google = """Does things.

    More about it.

    Args:
        a: The first,
            continued.
        b (int): The second.

    Returns:
        Something.
    """
    assert parse_docstring(google) == ("Does things.\n\nMore about it.", {"a": "The first, continued.", "b": "The second."})
    numpy = """Does things.

    Parameters
    ----------
    a : int
        The first.
    b
        The second.
    """
    assert parse_docstring(numpy) == ("Does things.", {"a": "The first.", "b": "The second."})
    sphinx = """Does things.

    :param a: The first.
    :param int b: The second.
    :returns: nothing
    """
    assert parse_docstring(sphinx) == ("Does things.", {"a": "The first.", "b": "The second."})
    assert parse_docstring(None) == (None, {})


def test_functions() -> None:
    def tool(name: str, ctx: Context, count: int = 2, *, tags: Optional[List[str]] = None) -> List[int]:
        """A tool.

        Args:
            name: Who.
            count: How many.
        """
        return []

    spec = inspect_function(tool, Context)
    assert spec.context_param == "ctx" and not spec.is_async
    assert spec.description == "A tool."
    assert spec.input_schema() == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who."},
            "count": {"type": "integer", "description": "How many.", "default": 2},
            "tags": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}], "default": None},
        },
        "required": ["name"],
    }
    assert spec.bind({"name": "x", "other": 1}, "CTX") == {"name": "x", "ctx": "CTX"}

    async def untyped(ctx, value):  # type: ignore[no-untyped-def]
        return value

    spec = inspect_function(untyped, Context)
    assert spec.is_async and spec.context_param == "ctx"
    assert spec.input_schema() == {"type": "object", "properties": {"value": {}}, "required": ["value"]}


@pytest.mark.parametrize(
    "annotation, structured, wrap",
    [
        (str, False, False),
        (None, False, False),
        (Any, False, False),
        (list, False, False),
        (int, True, True),
        (List[str], True, True),
        (Optional[int], True, True),
        (Dict[str, int], True, False),
        (Node, True, False),
        (Movie, True, False),
    ],
)
def test_output_specs(annotation: Any, structured: bool, wrap: bool) -> None:
    spec = output_spec(annotation, None)
    assert (spec.schema is not None, spec.wrap) == (structured, wrap)
    if spec.schema is not None:
        assert spec.schema.get("type") == "object"
    assert output_spec(annotation, False).schema is None


def test_forcing_structured_output_needs_a_schema() -> None:
    with pytest.raises(SchemaError):
        output_spec(str, True)
