"""The Python face serves MCP 2026-07-28 with no change to user code: the
fixture server (written for 2025-11-25 sessions) answers per-request
metadata, `server/discover`, and turns a handler's `ctx.sample` into an
input-required round that the retry completes."""

from __future__ import annotations

import json
import subprocess
from typing import Any, Dict

from conftest import LIBMCP_SERVER, PYTHON, child_env

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
}


class Stdio:
    """The fixture server as a child, spoken to one line at a time."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [PYTHON, str(LIBMCP_SERVER), "stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=child_env(),
        )

    def call(self, id: int, method: str, params: Dict[str, Any]) -> Dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        message = {"jsonrpc": "2.0", "id": id, "method": method, "params": {**params, "_meta": META}}
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()
        for _ in range(100):
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == id:
                return reply
        raise AssertionError("no answer")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)


def test_discover_and_a_plain_call() -> None:
    server = Stdio()
    try:
        discover = server.call(1, "server/discover", {})["result"]
        assert "2026-07-28" in discover["supportedVersions"]
        assert discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "libmcp-fixture"
        added = server.call(2, "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})["result"]
        assert added["resultType"] == "complete"
        assert added["structuredContent"] == {"result": 3}
        gone = server.call(3, "ping", {})
        assert gone["error"]["code"] == -32601
    finally:
        server.close()


def test_a_python_handler_that_samples_gets_an_input_required_round() -> None:
    server = Stdio()
    try:
        first = server.call(1, "tools/call", {"name": "sample", "arguments": {"prompt": "hi"}})["result"]
        assert first["resultType"] == "input_required"
        (key, request), = first["inputRequests"].items()
        assert request["method"] == "sampling/createMessage"
        answer = {
            "role": "assistant",
            "content": {"type": "text", "text": "an answer from the retry"},
            "model": "m",
            "stopReason": "endTurn",
        }
        done = server.call(
            2,
            "tools/call",
            {
                "name": "sample",
                "arguments": {"prompt": "hi"},
                "inputResponses": {key: answer},
                "requestState": first["requestState"],
            },
        )["result"]
        assert done["resultType"] == "complete"
        assert "an answer from the retry" in json.dumps(done)
    finally:
        server.close()
