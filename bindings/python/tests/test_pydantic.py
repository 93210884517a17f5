"""pydantic: models as arguments and results, ``Field`` constraints kept in
the input schema and enforced before the tool runs, and pydantic staying
an optional dependency."""

from __future__ import annotations

import subprocess
import textwrap
from typing import Annotated, Any, Dict, Iterator, List, Optional

import pytest

import libmcp
from conftest import PYTHON, child_env
from libmcp._functions import inspect_function
from libmcp._schema import schema_for

pydantic = pytest.importorskip("pydantic")
annotated_types = pytest.importorskip("annotated_types")
from pydantic import AfterValidator, BaseModel, Field, StringConstraints  # noqa: E402


class Address(BaseModel):
    street: str = Field(min_length=1)
    zip_code: str = Field(alias="zipCode", pattern=r"^[0-9]{5}$")


class Person(BaseModel):
    """A person."""

    name: str = Field(max_length=10, description="Their name")
    age: int = Field(ge=0, le=150)
    address: Optional[Address] = None


def _even(n: int) -> int:
    if n % 2:
        raise ValueError("must be even")
    return n


@pytest.mark.parametrize(
    "hint, schema",
    [
        (Annotated[int, Field(ge=0, le=10)], {"type": "integer", "minimum": 0, "maximum": 10}),
        (Annotated[float, Field(gt=0, lt=1, multiple_of=0.25)],
         {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1, "multipleOf": 0.25}),
        (Annotated[str, Field(min_length=2, max_length=5, pattern="^a")],
         {"type": "string", "minLength": 2, "maxLength": 5, "pattern": "^a"}),
        (Annotated[List[int], Field(min_length=1, max_length=3)],
         {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 3}),
        (Annotated[Dict[str, int], Field(max_length=2)],
         {"type": "object", "additionalProperties": {"type": "integer"}, "maxProperties": 2}),
        (Annotated[Optional[str], Field(max_length=3)],
         {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "null"}]}),
        (Annotated[int, Field(description="How many", title="Count", examples=[3])],
         {"type": "integer", "description": "How many", "title": "Count", "examples": [3]}),
        (Annotated[int, Field(json_schema_extra={"x-unit": "kg"})], {"type": "integer", "x-unit": "kg"}),
        (Annotated[str, StringConstraints(max_length=4, pattern="^[a-z]+$")],
         {"type": "string", "maxLength": 4, "pattern": "^[a-z]+$"}),
        (Annotated[int, annotated_types.Interval(ge=1, lt=5)], {"type": "integer", "minimum": 1, "exclusiveMaximum": 5}),
        (Annotated[str, annotated_types.Len(1, 2)], {"type": "string", "minLength": 1, "maxLength": 2}),
    ],
)
def test_constraints_become_schema_keywords(hint: Any, schema: Dict[str, Any]) -> None:
    assert schema_for(hint) == schema


def test_field_as_a_default_is_the_parameter_schema() -> None:
    def tool(
        query: str = Field(description="What to look for", min_length=1),
        limit: int = Field(10, ge=1, le=100),
        tags: List[str] = Field(default_factory=list),
    ) -> str:
        return ""

    spec = inspect_function(tool, libmcp.Context)
    assert spec.input_schema() == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What to look for", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 10},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
    }
    # Omitted arguments get the field's default, not the FieldInfo object.
    first = spec.bind({"query": "q"}, None)
    assert first == {"query": "q", "limit": 10, "tags": []}
    assert spec.bind({"query": "q"}, None)["tags"] is not first["tags"]


def test_pydantic_dataclass_fields() -> None:
    @pydantic.dataclasses.dataclass
    class Box:
        width: int = Field(gt=0)
        label: str = Field("box", max_length=8)

    box = schema_for(Box)["$defs"]["Box"]
    assert box["properties"] == {
        "width": {"type": "integer", "exclusiveMinimum": 0},
        "label": {"type": "string", "maxLength": 8, "default": "box"},
    }
    assert box["required"] == ["width"]


def test_a_constraint_that_cannot_apply_is_refused_at_decoration() -> None:
    server = libmcp.Server("bad")
    with pytest.raises(
        libmcp.HandlerError,
        match=r"^tool 'count' \(count \(test_pydantic\.py:\d+\)\): parameter 'n': "
        r"the constraint max_length=3 does not apply to an integer$",
    ):

        @server.tool()
        def count(n: Annotated[int, Field(max_length=3)]) -> int:
            return n


# --- live: enforced before the function runs ------------------------------------

calls: List[str] = []


def _server() -> libmcp.Server:
    server = libmcp.Server("pydantic-test")

    @server.tool()
    def pick(
        n: Annotated[int, Field(ge=0, le=10)],
        word: Annotated[str, Field(max_length=5, pattern="^[a-z]+$")] = "abc",
    ) -> str:
        """Picks."""
        calls.append("pick")
        return f"{word}{n}"

    @server.tool()
    def even(n: Annotated[int, AfterValidator(_even)]) -> int:
        """Needs pydantic to check."""
        calls.append("even")
        return n

    @server.tool()
    def greet(person: Person) -> Person:
        """A model in, a model out."""
        calls.append("greet")
        assert isinstance(person, Person)
        return person.model_copy(update={"name": person.name.upper()})

    @server.tool()
    def people(n: int = Field(2, ge=1)) -> List[Person]:
        """A list of models out."""
        return [Person(name=f"p{i}", age=i) for i in range(n)]

    return server


@pytest.fixture(scope="module")
def client() -> Iterator[libmcp.SyncClient]:
    with _server().start_http() as running:
        assert running.url is not None
        with libmcp.SyncClient.http(running.url) as client:
            yield client


def _refused(client: libmcp.SyncClient, tool: str, arguments: Dict[str, Any]) -> str:
    calls.clear()
    with pytest.raises(libmcp.ToolError) as error:
        client.call_tool(tool, arguments)
    assert calls == [], "the function ran"
    result = error.value.result
    assert result is not None and result.is_error
    return result.text


def test_constraints_are_listed_and_enforced(client: libmcp.SyncClient) -> None:
    tools = {t.name: t for t in client.list_tools()}
    assert tools["pick"].input_schema["properties"] == {
        "n": {"type": "integer", "minimum": 0, "maximum": 10},
        "word": {"type": "string", "maxLength": 5, "pattern": "^[a-z]+$", "default": "abc"},
    }
    assert client.call_tool("pick", {"n": 3, "word": "xy"}).text == "xy3"
    assert "minimum of 0" in _refused(client, "pick", {"n": -1})
    assert "maximum of 10" in _refused(client, "pick", {"n": 11})
    text = _refused(client, "pick", {"n": 1, "word": "toolong"})
    assert text.startswith("Invalid arguments for tool `pick`") and "/word" in text and "longer than 5" in text
    assert "does not match" in _refused(client, "pick", {"n": 1, "word": "UP"})
    assert "required" in _refused(client, "pick", {})


def test_validators_only_pydantic_knows_are_enforced(client: libmcp.SyncClient) -> None:
    assert client.call_tool("even", {"n": 4}).data == 4
    text = _refused(client, "even", {"n": 3})
    assert text.startswith("Invalid arguments for tool `even`: /n: ") and "must be even" in text


def test_models_as_arguments_and_results(client: libmcp.SyncClient) -> None:
    tools = {t.name: t for t in client.list_tools()}
    person = tools["greet"].input_schema["$defs"]["Person"]
    assert person["properties"]["age"] == {"maximum": 150, "minimum": 0, "title": "Age", "type": "integer"}
    address = tools["greet"].input_schema["$defs"]["Address"]
    assert "zipCode" in address["properties"]  # pydantic's alias, as it validates
    assert tools["greet"].output_schema is not None
    assert tools["greet"].output_schema["properties"]["name"]["maxLength"] == 10

    result = client.call_tool(
        "greet", {"person": {"name": "ann", "age": 30, "address": {"street": "Main", "zipCode": "12345"}}}
    )
    assert result.structured_content == {
        "name": "ANN",
        "age": 30,
        "address": {"street": "Main", "zipCode": "12345"},
    }
    assert "minimum of 0" in _refused(client, "greet", {"person": {"name": "ann", "age": -1}})
    # (The engine's message for a failed `anyOf` names the place, not the arm's problem.)
    assert "/person/address" in _refused(
        client, "greet", {"person": {"name": "ann", "age": 1, "address": {"street": "x", "zipCode": "1"}}}
    )
    people = client.call_tool("people", {"n": 2})
    assert people.structured_content == {
        "result": [{"name": "p0", "age": 0, "address": None}, {"name": "p1", "age": 1, "address": None}]
    }
    assert client.call_tool("people").structured_content is not None
    assert "minimum of 1" in _refused(client, "people", {"n": 0})


def test_pydantic_is_not_needed() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["pydantic"] = None  # `import pydantic` fails
        import libmcp
        from typing import Annotated, List
        import dataclasses

        @dataclasses.dataclass
        class Point:
            x: int
            y: int = 0

        server = libmcp.Server("plain")

        @server.tool()
        def shift(p: Point, by: Annotated[int, "how far"] = 1) -> Point:
            return Point(p.x + by, p.y)

        with server.start_http() as running, libmcp.SyncClient.http(running.url) as client:
            result = client.call_tool("shift", {"p": {"x": 1}, "by": 2})
            assert result.structured_content == {"x": 3, "y": 0}, result
        assert sys.modules["pydantic"] is None
        print("ok")
        """
    )
    out = subprocess.run([PYTHON, "-c", script], capture_output=True, text=True, timeout=60, env=child_env())
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
