"""``python -m libmcp``: the client verbs of the ``mcp`` command (see
``bindings/cli``), on the Python client: ``tools list|call``,
``resources list|read|templates``, ``prompts list|get`` and ``ping``,
against ``--url URL`` (Streamable HTTP) or ``-- COMMAND ARGS…`` (stdio),
printed for people or, with ``--json``, as the result's JSON.

Exit status: 0 success; 1 the request failed (an error answer, or a tool
result with ``isError``, printed first); 2 a bad command line; 3 no session
(the server could not be started, reached or initialized).
"""

from __future__ import annotations

import argparse
import base64
import binascii
import json
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from . import _methods
from ._libmcp import __version__
from .client import SyncClient
from .errors import McpError

__all__ = ["main"]

EPILOG = """\
The server to talk to is given after `--` as a command to start (stdio), e.g.
  python -m libmcp tools list -- mcp serve everything
  python -m libmcp tools call add_numbers --args '{"a": 2, "b": 3}' -- mcp serve everything
or as --url URL (Streamable HTTP).

Exit status:
  0  success
  1  the request failed: the server answered with an error, or the tool
     result has isError (it is printed first)
  2  bad command line (including --args that is not a JSON object)
  3  no session: the server could not be started or did not initialize"""

#: Exit statuses.
OK, FAILED, USAGE, NO_SESSION = 0, 1, 2, 3


class _Usage(Exception):
    """A bad command line found after parsing (exit status 2)."""


# --- the command line ---------------------------------------------------------------


def _seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not a number of seconds") from None
    if not 0 < seconds <= 86_400:
        raise argparse.ArgumentTypeError(f"{text} is not between 0 and 86400 seconds (exclusive of 0)")
    return seconds


def _env(text: str) -> Tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"`{text}` is not KEY=VALUE")
    return key, value


def _common() -> argparse.ArgumentParser:
    """The options every command takes, anywhere on the line (as the
    ``mcp`` command's global options)."""
    common = argparse.ArgumentParser(add_help=False)
    S = argparse.SUPPRESS
    common.add_argument("--json", action="store_true", default=S, help="print results as raw JSON (for scripts)")
    common.add_argument("--timeout", type=_seconds, metavar="SECONDS", default=S,
                        help="seconds to wait for each answer from the server (default 60)")
    common.add_argument("-q", "--quiet", action="store_true", default=S,
                        help="do not show the server's stderr, log messages or progress")
    common.add_argument("--url", metavar="URL", default=S, help="the server's Streamable HTTP endpoint")
    common.add_argument("--env", type=_env, action="append", metavar="KEY=VALUE", default=S,
                        help="an environment variable for the server process (repeatable); only PATH, "
                             "HOME, LANG and a few more are passed otherwise")
    common.add_argument("--inherit-env", action="store_true", default=S,
                        help="pass this process's whole environment to the server process")
    return common


def _parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="python -m libmcp",
        description="Talk to any MCP server.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"libmcp {__version__}")
    verbs = parser.add_subparsers(dest="group", metavar="COMMAND", required=True)

    def group(name: str, help: str) -> Any:
        sub = verbs.add_parser(name, help=help, description=help)
        return sub.add_subparsers(dest="verb", metavar="VERB", required=True)

    def verb(group: Any, name: str, help: str) -> argparse.ArgumentParser:
        return group.add_parser(name, help=help, description=help, parents=[common])  # type: ignore[no-any-return]

    tools = group("tools", "list or call the server's tools")
    verb(tools, "list", "list the tools")
    call = verb(tools, "call", "call a tool")
    call.add_argument("name", help="the tool's name")
    call.add_argument("--args", metavar="JSON", help="the arguments, as a JSON object")

    resources = group("resources", "list or read the server's resources")
    verb(resources, "list", "list the resources")
    read = verb(resources, "read", "read a resource")
    read.add_argument("uri", help="the resource's URI")
    verb(resources, "templates", "list the resource templates")

    prompts = group("prompts", "list or get the server's prompts")
    verb(prompts, "list", "list the prompts")
    get = verb(prompts, "get", "get a prompt")
    get.add_argument("name", help="the prompt's name")
    get.add_argument("--args", metavar="JSON", help="the arguments, as a JSON object of strings")

    # The command is named after the one method it sends.
    ping = verbs.add_parser(_methods.PING, help="check that the server answers", parents=[common])
    ping.set_defaults(verb=_methods.PING)
    return parser


def _tool_arguments(text: str) -> Dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError as e:
        raise _Usage(f"--args is not valid JSON: {e}") from None
    if not isinstance(value, dict):
        raise _Usage(f"--args must be a JSON object such as '{{\"a\": 1}}', got {json.dumps(value)}")
    return value


def _prompt_arguments(text: str) -> Dict[str, str]:
    arguments: Dict[str, str] = {}
    for key, value in _tool_arguments(text).items():
        if isinstance(value, str):
            arguments[key] = value
        elif isinstance(value, (bool, int, float)) and value is not None:
            arguments[key] = json.dumps(value)
        else:
            raise _Usage(f"--args: prompt arguments are strings, but `{key}` is {json.dumps(value)}")
    return arguments


# --- printing -----------------------------------------------------------------------------


def _stdout(text: str) -> None:
    try:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
    except BrokenPipeError:  # `| head`: not worth reporting
        pass


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _number(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _first_line(text: str) -> str:
    lines = text.splitlines()
    return lines[0].strip() if lines else ""


def _heading(name: str, title: Optional[str], description: Optional[str]) -> str:
    line = name
    if title and title != name:
        line += f" ({title})"
    if description:
        line += f" — {_first_line(description)}"
    return line


def _tools(tools: List[Dict[str, Any]]) -> str:
    if not tools:
        return "(no tools)"
    out: List[str] = []
    for tool in tools:
        out.append(_heading(tool["name"], tool.get("title"), tool.get("description")))
        schema = tool.get("inputSchema") or {}
        required = [r for r in schema.get("required") or [] if isinstance(r, str)]
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            continue
        for name, prop in properties.items():
            kind = prop.get("type", "any") if isinstance(prop, dict) else "any"
            line = f"    {name}: {kind if isinstance(kind, str) else json.dumps(kind)}"
            if name in required:
                line += " (required)"
            description = prop.get("description") if isinstance(prop, dict) else None
            if isinstance(description, str):
                line += f" — {_first_line(description)}"
            out.append(line)
    return "\n".join(out) + "\n"


def _size(data: str) -> str:
    try:
        return f"{len(base64.b64decode(data, validate=True))} bytes"
    except (binascii.Error, ValueError):
        return f"{len(data)} characters, not valid base64"


def _resource_contents(r: Dict[str, Any]) -> List[str]:
    mime = r.get("mimeType") or "no MIME type"
    if "blob" in r:
        return [f"[resource {r.get('uri')} ({mime}), {_size(r['blob'])}]"]
    return [f"[resource {r.get('uri')} ({mime})]", str(r.get("text", "")).rstrip("\n")]


def _content(block: Dict[str, Any]) -> List[str]:
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", "")).rstrip("\n")]
    if kind in ("image", "audio"):
        return [f"[{kind} ({block.get('mimeType')}), {_size(str(block.get('data', '')))}]"]
    if kind == "resource_link":
        return [f"[resource link {block.get('uri')} ({block.get('name')})]"]
    if kind == "resource":
        return _resource_contents(block.get("resource") or {})
    return [_json(block)]


def _tool_result(result: Dict[str, Any]) -> str:
    out = [line for block in result.get("content") or [] for line in _content(block)]
    if not out:
        structured = result.get("structuredContent")
        return _json(structured) if structured is not None else "(no content)"
    return "\n".join(out) + "\n"


def _listing(items: List[Dict[str, Any]], key: str, empty: str) -> str:
    if not items:
        return empty
    out: List[str] = []
    for item in items:
        line = f"{item.get(key)}  {item.get('name')}"
        if item.get("mimeType"):
            line += f" [{item['mimeType']}]"
        if item.get("description"):
            line += f" — {_first_line(item['description'])}"
        out.append(line)
    return "\n".join(out) + "\n"


def _read_result(result: Dict[str, Any]) -> str:
    contents = result.get("contents") or []
    if len(contents) == 1 and "text" in contents[0]:
        return str(contents[0]["text"])
    if not contents:
        return "(no contents)"
    return "\n".join(line for item in contents for line in _resource_contents(item)) + "\n"


def _prompts(prompts: List[Dict[str, Any]]) -> str:
    if not prompts:
        return "(no prompts)"
    out: List[str] = []
    for p in prompts:
        out.append(_heading(p["name"], p.get("title"), p.get("description")))
        for arg in p.get("arguments") or []:
            line = f"    {arg.get('name')}"
            if arg.get("required") is True:
                line += " (required)"
            if arg.get("description"):
                line += f" — {_first_line(arg['description'])}"
            out.append(line)
    return "\n".join(out) + "\n"


def _prompt(result: Dict[str, Any]) -> str:
    out: List[str] = []
    if result.get("description"):
        out.append(result["description"])
    for message in result.get("messages") or []:
        out.append(f"[{message.get('role')}]")
        out.extend(_content(message.get("content") or {}))
    return "\n".join(out) + "\n"


def _progress(p: Any) -> None:
    line = f"[progress] {_number(p.progress)}"
    if p.total is not None:
        line += f"/{_number(p.total)}"
    if p.message:
        line += f" {p.message}"
    _stderr(line)


def _log(m: Any) -> None:
    data = m.data if isinstance(m.data, str) else json.dumps(m.data, ensure_ascii=False)
    _stderr(f"[log {m.level} {m.logger}] {data}" if m.logger else f"[log {m.level}] {data}")


def _describe(error: BaseException) -> str:
    """An error in words; an error answer shows its code and data."""
    if isinstance(error, McpError) and error.code is not None:
        text = f"the server answered with error {error.code}: {error.message}"
        if error.data is not None:
            text += f" (data: {json.dumps(error.data, separators=(',', ':'))})"
        return text
    if isinstance(error, McpError):
        return error.message or type(error).__name__
    return str(error) or type(error).__name__


# --- running -----------------------------------------------------------------------------------


def _client(options: argparse.Namespace, command: List[str]) -> SyncClient:
    quiet = getattr(options, "quiet", False)
    settings: Dict[str, Any] = {"name": "libmcp-cli", "timeout": getattr(options, "timeout", 60.0)}
    if not quiet:
        settings["on_log"] = _log
    url = getattr(options, "url", None)
    if url is not None:
        if command:
            raise _Usage("give either --url or `-- COMMAND`, not both")
        return SyncClient.http(url, **settings)
    if not command:
        raise _Usage("no server given: add `-- COMMAND ARGS…` (stdio) or `--url URL`")
    return SyncClient.stdio(
        command,
        env=dict(getattr(options, "env", None) or []),
        inherit_env=getattr(options, "inherit_env", False),
        on_stderr=(lambda _line: None) if quiet else (lambda line: _stderr(f"[server] {line}")),
        **settings,
    )


def _request(client: SyncClient, options: argparse.Namespace) -> int:
    """Sends the request and prints its result; the exit status."""
    as_json = getattr(options, "json", False)

    def show(value: Any, human: Callable[[], str]) -> None:
        _stdout(_json(value) if as_json else human())

    what = (options.group, options.verb)
    if what == ("tools", "list"):
        tools = [t.to_dict() for t in client.list_tools()]
        show({"tools": tools}, lambda: _tools(tools))
    elif what == ("tools", "call"):
        arguments = _tool_arguments(options.args) if options.args is not None else None
        on_progress = None if getattr(options, "quiet", False) else _progress
        result = client.call_tool(options.name, arguments, on_progress=on_progress, raise_on_error=False).to_dict()
        show(result, lambda: _tool_result(result))
        if result.get("isError"):
            _stderr(f"error: the tool `{options.name}` reported an error")
            return FAILED
    elif what == ("resources", "list"):
        resources = [r.to_dict() for r in client.list_resources()]
        show({"resources": resources}, lambda: _listing(resources, "uri", "(no resources)"))
    elif what == ("resources", "read"):
        contents = client.read_resource(options.uri).to_dict()
        show(contents, lambda: _read_result(contents))
    elif what == ("resources", "templates"):
        templates = [t.to_dict() for t in client.list_resource_templates()]
        show({"resourceTemplates": templates}, lambda: _listing(templates, "uriTemplate", "(no resource templates)"))
    elif what == ("prompts", "list"):
        prompts = [p.to_dict() for p in client.list_prompts()]
        show({"prompts": prompts}, lambda: _prompts(prompts))
    elif what == ("prompts", "get"):
        arguments = _prompt_arguments(options.args) if options.args is not None else None
        prompt = client.get_prompt(options.name, arguments).to_dict()
        show(prompt, lambda: _prompt(prompt))
    else:
        started = time.monotonic()
        client.ping()
        elapsed = (time.monotonic() - started) * 1000
        show({}, lambda: f"pong ({elapsed:.1f} ms)")
    return OK


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs the command with ``argv`` (default: this process's arguments);
    returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    # Everything after the first `--` is the server's command line.
    command: List[str] = []
    if "--" in args:
        at = args.index("--")
        args, command = args[:at], args[at + 1:]
    try:
        options = _parser().parse_args(args)
    except SystemExit as e:  # --help, --version (0) or a bad command line (2)
        return int(e.code) if isinstance(e.code, int) else USAGE
    try:
        # Checked before connecting: a bad --args must not start a server.
        if getattr(options, "args", None) is not None:
            (_prompt_arguments if options.group == "prompts" else _tool_arguments)(options.args)
        client = _client(options, command)
    except _Usage as e:
        _stderr(f"python -m libmcp: error: {e}")
        return USAGE
    try:
        try:
            client.connect()
        except McpError as e:
            _stderr(f"error: could not start a session with the server: {_describe(e)}")
            return NO_SESSION
        try:
            return _request(client, options)
        except McpError as e:
            _stderr(f"error: {_describe(e)}")
            return FAILED
    except KeyboardInterrupt:
        _stderr("error: interrupted")
        return FAILED
    finally:
        try:
            client.close()
        except (McpError, KeyboardInterrupt):
            pass
