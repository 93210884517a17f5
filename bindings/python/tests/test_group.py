"""libmcp.ClientGroup: several servers from an mcpServers file, used as one
(merged namespaced tools, routed calls, a failed server named, a server
that dies started again on the next call)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import libmcp
from conftest import LIBMCP_SERVER, PYTHON, run

ROOT = Path(__file__).resolve().parents[3]
#: The `mcp` command (bindings/python/run-tests.sh builds it).
MCP_BIN = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "mcp"


def _config(tmp_path: Path) -> Path:
    pid_file = tmp_path / "pids"
    config = {
        "mcpServers": {
            "one": {"command": PYTHON, "args": [str(LIBMCP_SERVER), "stdio"]},
            # Records its PID on each start, then becomes the server.
            "two": {
                "command": "/bin/sh",
                "args": ["-c", 'echo $$ >> "$0"; exec "$@"', str(pid_file), PYTHON, str(LIBMCP_SERVER), "stdio"],
            },
            "down": {"command": "/nonexistent/mcp-server"},
        }
    }
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps(config))
    return path


def _pids(tmp_path: Path) -> List[int]:
    text = (tmp_path / "pids").read_text() if (tmp_path / "pids").exists() else ""
    return [int(line) for line in text.split()]


def test_group_merges_routes_and_reconnects(tmp_path: Path) -> None:
    events: List[Dict[str, Any]] = []

    async def main() -> None:
        group = libmcp.ClientGroup.from_config(_config(tmp_path), retry_interval=600, on_event=events.append)
        async with group:
            status = {s.name: s for s in group.status()}
            assert list(status) == ["one", "two", "down"]
            assert status["one"].state == "connected" and status["one"].tools > 0
            assert status["down"].state == "failed"
            assert "/nonexistent/mcp-server" in (status["down"].error or "")

            names = [t.name for t in group.tools()]
            assert "one__add" in names and "two__add" in names, names
            assert group.route_tool("two__add") == ("two", "add")
            result = await group.call_tool("one__add", {"a": 2, "b": 40})
            assert result.text == "42"

            with pytest.raises(libmcp.McpError) as failed:
                await group.call_tool("down__anything")
            assert "down" in str(failed.value)
            with pytest.raises(libmcp.InvalidArgument):
                await group.call_tool("nobody__x")

            # The second server dies; it is reported, and back on next use.
            (pid,) = _pids(tmp_path)
            os.kill(pid, signal.SIGKILL)
            deadline = time.monotonic() + 30
            while group.status()[1].state != "disconnected":
                assert time.monotonic() < deadline, group.status()
                await __import__("asyncio").sleep(0.05)
            result = await group.call_tool("two__add", {"a": 1, "b": 2})
            assert result.text == "3"
            two = group.status()[1]
            assert (two.state, two.connections) == ("connected", 2)
            assert len(_pids(tmp_path)) == 2
        assert not group.connected
        with pytest.raises(libmcp.ConnectionClosed):
            group.status()

    run(main())
    kinds = {(e["kind"], e["server"]) for e in events}
    assert ("status", "two") in kinds, events


def test_invalid_configs_name_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"mcpServers": {"x": {"command": "srv", "args": "nope"}}}))

    async def main() -> None:
        with pytest.raises(ValueError, match=r"mcpServers\.x: `args` must be an array"):
            await libmcp.ClientGroup.from_config(path).connect()

    run(main())
    with pytest.raises(FileNotFoundError):
        libmcp.ClientGroup.from_config(tmp_path / "missing.json")


def test_status_json_is_the_cli_text(tmp_path: Path) -> None:
    """The same text, byte for byte, as ``mcp servers list --json`` prints
    (and C's ``mcp_group_status`` gives) for the same file: one server that
    cannot start, so that nothing in it varies between the two runs."""
    if not MCP_BIN.exists():
        pytest.fail(f"{MCP_BIN} is missing: cargo build -p mcp-cli --bin mcp")
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {"down": {"command": "/nonexistent/mcp-server", "args": ["--flag"]}}}))

    async def main() -> str:
        async with libmcp.ClientGroup.from_config(path) as group:
            (status,) = group.status()
            assert (status.state, status.target) == ("failed", "/nonexistent/mcp-server --flag")
            return group.status_json()

    ours = run(main())
    printed = subprocess.run(
        [str(MCP_BIN), "servers", "list", "--json", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert printed.returncode == 1, printed.stderr
    assert ours == printed.stdout.rstrip("\n")
    assert json.loads(ours)["servers"][0]["protocolVersion"] is None
