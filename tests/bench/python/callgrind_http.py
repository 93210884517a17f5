#!/usr/bin/env python3
"""Instructions per HTTP tools/call in `bench-server http --json`, under callgrind
(BENCHMARKS.md, "Reproducing a profile"; the git history of that file has the runs).

Usage: callgrind_http.py BENCH_SERVER [SMALL LARGE]

For each row (a 2025-11-25 session's tools/call; a 2026-07-28 tools/call that
stands alone), runs the server under `valgrind --tool=callgrind` twice, with
SMALL and LARGE calls (default 200 and 1,200) on one keep-alive connection,
and prints (instructions(LARGE) - instructions(SMALL)) / (LARGE - SMALL).
"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def session_calls(conn, n):
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "cg", "version": "1"}}}
    conn.request("POST", "/mcp", json.dumps(init), HEADERS)
    r = conn.getresponse()
    sid = r.getheader("mcp-session-id")
    r.read()
    h = dict(HEADERS, **{"mcp-session-id": sid, "mcp-protocol-version": "2025-11-25"})
    conn.request("POST", "/mcp", json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), h)
    conn.getresponse().read()
    for i in range(n):
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}}}
        conn.request("POST", "/mcp", json.dumps(body), h)
        r = conn.getresponse()
        text = r.read()
        assert r.status == 200 and b"hello" in text, text


def stateless_calls(conn, n):
    h = dict(HEADERS, **{"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
                         "mcp-name": "echo"})
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "cg", "version": "1"}}
    for i in range(n):
        body = {"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hello"}, "_meta": meta}}
        conn.request("POST", "/mcp", json.dumps(body), h)
        r = conn.getresponse()
        text = r.read()
        assert r.status == 200 and b"hello" in text, text


def measure(server, row, n):
    out = tempfile.mktemp(prefix="cg-", suffix=".out")
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", server, "http", "--json"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = proc.stdout.readline()
        addr = re.search(r"listening on (\S+)", line).group(1)
        host, port = addr.rsplit(":", 1)
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        row(conn, n)
        conn.close()
    finally:
        proc.stdin.close()
        proc.wait(timeout=300)
    with open(out) as f:
        total = next(int(l.split()[1]) for l in f if l.startswith(("summary:", "totals:")))
    os.unlink(out)
    return total


def main():
    server = sys.argv[1]
    small, large = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (200, 1200)
    for name, row in (("session tools/call (2025-11-25, JSON)", session_calls),
                      ("stateless tools/call (2026-07-28)", stateless_calls)):
        a = measure(server, row, small)
        b = measure(server, row, large)
        print(f"{name}: {(b - a) / (large - small):,.0f} instructions per call")


if __name__ == "__main__":
    main()
