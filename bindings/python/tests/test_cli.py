"""``python -m libmcp``: the ``mcp`` command run by the extension, against
the fixture server, over stdio (``-- COMMAND``) and HTTP (``--url``), for
people and as JSON, with the ``mcp`` command's exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, List

import pytest

from conftest import PYTHON, child_env, server_command

#: The `mcp` binary the test command builds.
MCP_BIN = Path(os.environ.get("CARGO_TARGET_DIR", Path(__file__).resolve().parents[3] / "target")) / "debug" / "mcp"

#: Longest one command may take.
COMMAND_TIMEOUT_S = 60


def mcp(*args: str, target: List[str]) -> "subprocess.CompletedProcess[str]":
    """Runs ``python -m libmcp ARGS… TARGET…``."""
    return subprocess.run(
        [PYTHON, "-m", "libmcp", *args, *target],
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT_S,
        env=child_env(),
    )


@pytest.fixture(params=["stdio", "http"])
def target(request: Any, fixture_http: str) -> List[str]:
    if request.param == "stdio":
        return ["--", *server_command()]
    return ["--url", fixture_http]


def test_tools(target: List[str]) -> None:
    listed = mcp("tools", "list", target=target)
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    at = lines.index("add — Adds two integers.")
    assert lines[at + 1 : at + 3] == [
        "    a: integer (required) — The first addend.",
        "    b: integer (required) — The second addend.",
    ]
    as_json = mcp("--json", "tools", "list", target=target)
    assert as_json.returncode == 0, as_json.stderr
    tools = {t["name"]: t for t in json.loads(as_json.stdout)["tools"]}
    assert tools["add"]["inputSchema"]["required"] == ["a", "b"]

    called = mcp("tools", "call", "add", "--args", '{"a": 20, "b": 22}', target=target)
    assert (called.returncode, called.stdout) == (0, "42\n"), called.stderr
    called = mcp("tools", "call", "add", "--json", "--args", '{"a": 1, "b": 2}', target=target)
    assert json.loads(called.stdout)["structuredContent"] == {"result": 3}


def test_progress_and_logs_go_to_stderr(target: List[str]) -> None:
    done = mcp("tools", "call", "progress", "--args", '{"steps": 2}', target=target)
    assert (done.returncode, done.stdout) == (0, "did 2 steps\n"), done.stderr
    assert "[progress] 1/2 step 1 of 2" in done.stderr.splitlines()
    assert "[progress] 2/2 step 2 of 2" in done.stderr.splitlines()
    quiet = mcp("-q", "tools", "call", "progress", "--args", '{"steps": 2}', target=target)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "did 2 steps\n", "")


def test_failures_exit_1(target: List[str]) -> None:
    failed = mcp("tools", "call", "fail", "--args", '{"message": "boom"}', target=target)
    assert (failed.returncode, failed.stdout) == (1, "boom\n")
    assert failed.stderr.splitlines()[-1] == "error: the tool `fail` reported an error"
    unknown = mcp("tools", "call", "nope", target=target)
    assert unknown.returncode == 1
    assert unknown.stderr.splitlines()[-1].startswith("error: the server answered with error -32602: ")
    broken = mcp("resources", "read", "fail://resource", target=target)
    assert broken.returncode == 1 and "the resource is broken" in broken.stderr


def test_resources_and_prompts(target: List[str]) -> None:
    listed = mcp("resources", "list", target=target)
    assert listed.returncode == 0, listed.stderr
    assert "text://static  static_text [text/plain] — A static text." in listed.stdout.splitlines()
    templates = mcp("resources", "templates", target=target)
    assert "greeting://{name}  greeting — A greeting for a name." in templates.stdout.splitlines()
    read = mcp("resources", "read", "greeting://ann", target=target)
    assert (read.returncode, read.stdout) == (0, "Hello, ann!\n")
    blob = mcp("resources", "read", "bin://pixel", "--json", target=target)
    assert json.loads(blob.stdout)["contents"][0]["mimeType"] == "image/png"

    prompts = mcp("prompts", "list", target=target)
    lines = prompts.stdout.splitlines()
    at = lines.index("review — Asks for a code review.")
    assert lines[at + 1 : at + 3] == ["    code (required) — The code to review.", "    language — Its language."]
    got = mcp("prompts", "get", "review", "--args", '{"code": "x = 1", "language": "rust"}', target=target)
    assert (got.returncode, got.stdout) == (0, "Asks for a code review.\n[user]\nReview this rust code:\nx = 1\n"), got.stderr
    numbers = mcp("prompts", "get", "conversation", "--args", '{"topic": "tea", "turns": 1}', target=target)
    assert numbers.stdout.splitlines()[-2:] == ["[assistant]", "tea is interesting."]

    pong = mcp("ping", target=target)
    assert pong.returncode == 0 and pong.stdout.startswith("pong (")
    assert "protocolVersion" in json.loads(mcp("ping", "--json", target=target).stdout)


def test_bad_command_lines_exit_2() -> None:
    never = ["--", PYTHON, "-c", "raise SystemExit('the server must not be started')"]
    for args in (
        ["tools", "call", "add", "--args", "[1]"],
        ["tools", "call", "add", "--args", "{a:"],
        ["prompts", "get", "review", "--args", '{"code": [1]}'],
        ["--timeout", "0", "ping"],
        ["ping", "--env", "NOEQUALS"],
        ["tools", "frobnicate"],
    ):
        done = mcp(*args, target=never)
        assert done.returncode == 2, (args, done.stderr)
        assert "must not be started" not in done.stderr
    assert "must be a JSON object" in mcp("tools", "call", "add", "--args", "[1]", target=never).stderr
    nothing = mcp("ping", target=[])
    assert nothing.returncode == 2 and "required arguments were not provided" in nothing.stderr
    both = mcp("ping", "--url", "http://127.0.0.1:9/mcp", target=never)
    assert both.returncode == 2 and "cannot be used with" in both.stderr
    assert mcp("--help", target=[]).returncode == 0
    version = mcp("--version", target=[])
    assert version.returncode == 0 and version.stdout.startswith("mcp ")


def test_no_session_exits_3() -> None:
    missing = mcp("ping", target=["--", "/nonexistent/mcp-server"])
    assert missing.returncode == 3
    assert missing.stderr.startswith("error: could not start a session with the server: ")
    silent = mcp("--timeout", "5", "ping", target=["--", PYTHON, "-c", "import sys; sys.stdin.read()"])
    assert silent.returncode == 3
    refused = mcp("ping", target=["--url", "http://127.0.0.1:9/mcp"])
    assert refused.returncode == 3


def test_the_server_gets_env_and_its_stderr_is_shown() -> None:
    script = (
        "import os, sys, libmcp\n"
        "print('starting', file=sys.stderr, flush=True)\n"
        "s = libmcp.Server('env')\n"
        "@s.tool()\n"
        "def get(name: str) -> str:\n"
        "    return os.environ.get(name, '-')\n"
        "s.run_stdio()\n"
    )
    done = mcp("tools", "call", "get", "--args", '{"name": "GREETING"}', "--env", "GREETING=hi",
               target=["--", PYTHON, "-c", script])
    assert (done.returncode, done.stdout) == (0, "hi\n"), done.stderr
    assert "[server] starting" in done.stderr.splitlines()


def test_same_output_and_status_as_the_mcp_command(target: List[str]) -> None:
    for args in (
        ["tools", "list"],
        ["--json", "resources", "templates"],
        ["tools", "call", "fail", "--args", '{"message": "boom"}'],
        ["prompts", "get", "review", "--args", '{"code": [1]}'],
    ):
        ours = mcp(*args, target=target)
        theirs = subprocess.run(
            [str(MCP_BIN), *args, *target], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, env=child_env()
        )
        # The server's own stderr lines may interleave differently; the
        # command's verdict is the last line.
        assert (ours.returncode, ours.stdout, ours.stderr.splitlines()[-1:]) == (
            theirs.returncode,
            theirs.stdout,
            theirs.stderr.splitlines()[-1:],
        ), args
