"""Mistakes a Python user makes with handlers: each gives one clear
exception naming the handler and the problem, when it is decorated where
possible, else a clear error answer naming it when it is called."""

from __future__ import annotations

import asyncio
import re
import warnings
from typing import Any, Dict, Iterator, List

import pytest

import libmcp


class Opaque:
    """A type with no JSON Schema."""


@pytest.fixture
def server() -> libmcp.Server:
    return libmcp.Server("mistakes")


def _refused(match: str) -> Any:
    return pytest.raises(libmcp.HandlerError, match=match)


def test_the_exception_is_a_type_error_and_an_mcp_error() -> None:
    assert issubclass(libmcp.HandlerError, TypeError)
    assert issubclass(libmcp.HandlerError, libmcp.McpError)


# --- unsupported annotations --------------------------------------------------------


def test_a_parameter_with_no_json_schema(server: libmcp.Server) -> None:
    with _refused(r"^tool 'convert' \(.*convert \(test_handler_errors\.py:\d+\)\): parameter 'x': "
                  r"no JSON Schema for the type .*Opaque"):

        @server.tool()
        def convert(x: Opaque) -> str:
            return ""


def test_a_return_annotation_with_no_json_schema(server: libmcp.Server) -> None:
    with _refused(r"^tool 'make' .*return annotation: no JSON Schema .*Opaque.*structured_output=False"):

        @server.tool()
        def make() -> Opaque:
            return Opaque()

    @server.tool(structured_output=False)  # the way out the message gives
    def make_text() -> Opaque:
        return Opaque()


def test_an_unresolvable_annotation_says_why(server: libmcp.Server) -> None:
    namespace: Dict[str, Any] = {}
    exec(  # an annotation naming a class that does not exist
        "from __future__ import annotations\ndef lookup(key: Missing) -> str:\n    return ''\n",
        namespace,
    )
    with _refused(r"^tool 'lookup' .*parameter 'key': cannot resolve the annotation 'Missing' "
                  r"\(NameError: name 'Missing' is not defined\)"):
        server.add_tool(namespace["lookup"])


def test_dict_keys_must_be_strings(server: libmcp.Server) -> None:
    with _refused(r"^tool 'count' .*parameter 'by_id': JSON object keys are strings"):

        @server.tool()
        def count(by_id: Dict[int, str]) -> int:
            return len(by_id)


def test_a_prompt_argument_that_cannot_come_from_a_string(server: libmcp.Server) -> None:
    with _refused(r"^prompt 'ask' .*parameter 'who': no JSON Schema .*Opaque"):

        @server.prompt()
        def ask(who: Opaque) -> str:
            return ""


def test_a_positional_only_parameter(server: libmcp.Server) -> None:
    namespace: Dict[str, Any] = {}
    exec("def add(a: int, /, b: int) -> int:\n    return a + b\n", namespace)
    with _refused(r"^tool 'add' .*parameter 'a' is positional-only"):
        server.add_tool(namespace["add"])


# --- not a function -------------------------------------------------------------------------


async def fetch(url: str) -> str:
    return url


def test_a_coroutine_object_instead_of_a_function(server: libmcp.Server) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no "coroutine was never awaited" on top
        with _refused(r"^server\.tool\(\) got a coroutine object, the result of calling fetch\(\.\.\.\): "
                      r"pass the function itself, fetch, without calling it"):
            server.tool(fetch("x"))  # type: ignore[arg-type]
        with _refused("coroutine object"):
            server.tool()(fetch("x"))  # type: ignore[arg-type]
        with _refused(r"^server\.prompt\(\) got a coroutine object"):
            server.prompt(fetch("x"))  # type: ignore[arg-type]
        with _refused(r"^server\.resource\(\) got a coroutine object"):
            server.resource("res://x")(fetch("x"))  # type: ignore[arg-type]
        with _refused(r"^server\.completion\(\) got a coroutine object"):
            server.completion(prompt="p")(fetch("x"))  # type: ignore[arg-type]


def test_other_things_that_are_not_functions(server: libmcp.Server) -> None:
    with _refused(r"^server\.tool\('search'\): the name is a keyword argument, @server\.tool\(name='search'\)"):
        server.tool("search")  # type: ignore[call-overload]
    with _refused(r"^server\.tool\(\) needs a function, not int 3"):
        server.tool(3)  # type: ignore[call-overload]
    loop = asyncio.new_event_loop()
    try:
        with _refused(r"^server\.tool\(\) needs a function, not Future"):
            server.add_tool(loop.create_future())  # type: ignore[arg-type]
    finally:
        loop.close()


def test_a_generator_function(server: libmcp.Server) -> None:
    with _refused(r"^tool handler .*numbers .* is a generator function: return the value"):

        @server.tool()
        def numbers() -> Iterator[int]:
            yield 1

    with _refused("is a generator function"):

        @server.tool()
        async def stream() -> Any:
            yield 1


def test_a_lambda_needs_a_name(server: libmcp.Server) -> None:
    with _refused(r"^tool \(<lambda> .*\): it has no name of its own: give name=\.\.\."):
        server.add_tool(lambda: 1)
    server.add_tool(lambda: 1, name="one")


def test_a_bad_tool_name(server: libmcp.Server) -> None:
    with _refused(r"^tool 'has space' \(.*\): tool name `has space` contains ` `"):
        server.add_tool(lambda: 1, name="has space")


# --- URI templates ----------------------------------------------------------------------------


def test_a_resource_without_its_uri(server: libmcp.Server) -> None:
    with _refused(r"^server\.resource needs the URI before the function: "
                  r"@server\.resource\(\"scheme://\.\.\.\"\) above readme"):

        @server.resource  # type: ignore[arg-type]
        def readme() -> str:
            return ""


@pytest.mark.parametrize(
    "uri, problem",
    [
        ("file:///{path", "unclosed `{` in `file:///{path`"),
        ("file:///{}", "bad variable `` in `file:///{}`"),
        ("file:///{pa th}", "bad variable `pa th`"),
        ("file:///path}", "stray `}`"),
        ("file:///{other}", "parameter 'path' is not a variable of the template"),
        ("file:///{path}/{other}", "the template's variable 'other' is not a parameter of the function"),
        ("file:///fixed", "parameter 'path' is required, but the URI has no variables"),
    ],
)
def test_a_wrong_uri_template(server: libmcp.Server, uri: str, problem: str) -> None:
    with _refused("^resource " + re.escape(repr(uri)) + r" \(read_file \(test_handler_errors\.py:\d+\)\): "
                  + re.escape(problem)):

        @server.resource(uri)
        def read_file(path: str) -> str:
            return path


def test_a_required_parameter_that_is_not_a_variable(server: libmcp.Server) -> None:
    with _refused(r"parameter 'mode' is not a variable of the template"):

        @server.resource("file:///{path}")
        def read_file(path: str, mode: str) -> str:
            return path

    @server.resource("file:///{path}")  # optional parameters need no variable
    def read_text(path: str, encoding: str = "utf-8") -> str:
        return path


def test_a_completion_handler_with_too_many_parameters(server: libmcp.Server) -> None:
    with _refused(r"^completion 'review' .*called with at most 2 arguments \(value, other arguments\)"):

        @server.completion(prompt="review")
        def complete(value: str, others: Dict[str, str], extra: int) -> List[str]:
            return []

    with _refused(r"give either prompt= or resource=, not both"):
        server.completion(prompt="a", resource="b://c")


# --- at call time --------------------------------------------------------------------------------


def test_values_that_cannot_be_sent_name_their_handler(caplog: pytest.LogCaptureFixture) -> None:
    server = libmcp.Server("unsendable")

    @server.tool()
    def opaque(n: int) -> Any:
        return Opaque()

    @server.tool()
    def nested(n: int) -> Dict[str, Any]:
        return {"ok": 1, "bad": Opaque()}

    @server.resource("res://opaque")
    def resource() -> Any:
        return Opaque()

    @server.prompt()
    def prompt() -> Any:
        return [Opaque()]

    @server.tool()
    def missing(a: int, b: int) -> int:
        return a + b

    with server.start_http() as running, libmcp.SyncClient.http(running.url) as client:  # type: ignore[arg-type]
        with pytest.raises(libmcp.ToolError) as error:
            client.call_tool("opaque", {"n": 1})
        assert error.value.message == "tool 'opaque' returned Opaque, which cannot be sent: Opaque is not JSON-serializable"
        with pytest.raises(libmcp.ToolError, match="tool 'nested' returned dict, which cannot be sent: Opaque is not"):
            client.call_tool("nested", {"n": 1})
        with pytest.raises(libmcp.InternalError, match="resource 'res://opaque' returned Opaque, which cannot be sent"):
            client.read_resource("res://opaque")
        with pytest.raises(libmcp.InternalError, match="prompt 'prompt' returned list, which cannot be sent"):
            client.get_prompt("prompt")
        # A missing required argument: the schema says which, the function is not called.
        with pytest.raises(libmcp.ToolError, match=r"Invalid arguments for tool `missing`: .*\"b\" is a required property"):
            client.call_tool("missing", {"a": 1})
    # The server's log says where the handler is.
    assert any("opaque" in r.getMessage() and "test_handler_errors.py:" in r.getMessage() for r in caplog.records)


async def answer_sampling(params: libmcp.CreateMessageParams) -> str:
    return "no"


def test_client_callbacks_must_be_functions() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with _refused(r"^on_sampling= got a coroutine object, the result of calling answer_sampling\(\.\.\.\)"):
            libmcp.Client.http("http://127.0.0.1:9/mcp", on_sampling=answer_sampling(None))  # type: ignore[arg-type]
    with _refused(r"^on_log= needs a function, not str 'print'"):
        libmcp.SyncClient.stdio(["true"], on_log="print")  # type: ignore[arg-type]


# --- the native calling convention ----------------------------------------------------


def test_an_invoker_that_never_answers_gets_an_error_not_a_hang(server: libmcp.Server) -> None:
    """The native module's invokers must answer through the responder; one
    that returns without answering (a bug below the decorators) fails the
    request at once instead of leaving it waiting for ever."""

    def silent(args: Any, context: Any, responder: Any) -> None:
        return None

    server._core.add_tool("silent", {"type": "object"}, silent)
    with server.start_http(json_response=True) as running:
        assert running.url is not None
        with libmcp.SyncClient.http(running.url, protocol="2025-11-25") as client:
            with pytest.raises(libmcp.McpError, match="finished without answering"):
                client.call_tool("silent", {}, timeout=10)
            # The server goes on.
            assert "silent" in {t.name for t in client.list_tools()}
