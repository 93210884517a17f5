"""``store=``: two servers sharing a redis-server serve one session, as
replicas behind a load balancer do (tests/deploy/run.sh checks a real
deployment). Skipped, saying why, when redis-server is not installed
(tests/run.sh installs it)."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import time
from typing import Any, Dict, Iterator, Optional, Tuple

import pytest

import libmcp
from conftest import free_port, stop_process, wait_for_port


@pytest.fixture
def redis_url() -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed (tests/run.sh installs it through tests/deploy)")
    port = free_port()
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, 10)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        stop_process(proc)


def _server(name: str) -> libmcp.Server:
    server = libmcp.Server(name)

    @server.tool()
    def whoami() -> str:
        """Names the replica that answers."""
        return name

    return server


def _post(url: str, message: Dict[str, Any], session: Optional[str] = None) -> Tuple[int, Optional[str], Any]:
    """One POST; the status, the session id header, the JSON-RPC answer."""
    address = url.split("//", 1)[1].split("/", 1)[0]
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if session:
        headers["Mcp-Session-Id"] = session
        headers["MCP-Protocol-Version"] = "2025-11-25"
    try:
        conn.request("POST", "/mcp", body=json.dumps(message), headers=headers)
        response = conn.getresponse()
        text = response.read().decode()
        answer = None
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                answer = json.loads(line[5:])
        if answer is None and text.strip().startswith("{"):
            answer = json.loads(text)
        return response.status, response.getheader("Mcp-Session-Id"), answer
    finally:
        conn.close()


def test_a_session_opened_on_one_server_is_served_by_another(redis_url: str) -> None:
    with _server("a").start_http(store=redis_url) as a, _server("b").start_http(store=redis_url) as b:
        status, session, answer = _post(a.url, {
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "pytest", "version": "1"}}})
        assert status == 200 and session, answer
        status, _, _ = _post(b.url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        assert status == 202
        status, _, answer = _post(b.url, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                          "params": {"name": "whoami", "arguments": {}}}, session)
        assert status == 200, answer
        assert answer["result"]["content"][0]["text"] == "b"
        # Deleted through B: gone on A too.
        address = b.url.split("//", 1)[1].split("/", 1)[0]
        conn = http.client.HTTPConnection(*address.rsplit(":", 1), timeout=10)
        conn.request("DELETE", "/mcp", headers={"Mcp-Session-Id": session,
                                                 "MCP-Protocol-Version": "2025-11-25"})
        assert conn.getresponse().status == 200
        conn.close()
        status, _, _ = _post(a.url, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
        assert status == 404


def test_without_a_store_a_session_stays_on_its_server() -> None:
    with _server("a").start_http() as a, _server("b").start_http() as b:
        status, session, _ = _post(a.url, {
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "pytest", "version": "1"}}})
        assert status == 200 and session
        status, _, _ = _post(b.url, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, session)
        assert status == 404


def test_a_bad_or_unreachable_store_is_refused() -> None:
    with pytest.raises(ValueError, match="is not a store URL"):
        _server("a").start_http(store="http://127.0.0.1:1/")
    unreachable = f"redis://127.0.0.1:{free_port()}/0"
    started = time.monotonic()
    with pytest.raises(ConnectionError, match=unreachable):
        _server("a").start_http(store=unreachable)
    assert time.monotonic() - started < 15
