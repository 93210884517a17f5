#!/usr/bin/env python3
"""The official MCP Python SDK's client against `mcp-core/examples/axum_auth.rs`
(libmcp under `/mcp` of an axum application, behind its bearer-token layer).

Usage: python_axum_client.py URL TOKEN

Checks: without a token, and with a wrong one, the endpoint answers 401 with
`WWW-Authenticate: Bearer`; a CORS preflight from the allowed origin is
answered; with the token, the SDK's high-level client in a 2025-11-25 session
(`mode="legacy"`) and at 2026-07-28 calls the `whoami` tool, which answers with
the identity the auth layer put into the request's extensions. Prints one line
per check and `python axum interop: N passed, M failed` last; exits 1 if any
failed.
"""

from __future__ import annotations

import json
import sys
import traceback

import anyio
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

OVERALL_TIMEOUT_S = 60

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
POST_HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}


class Mismatch(Exception):
    pass


def expect_eq(actual, expected, what: str) -> None:
    if actual != expected:
        raise Mismatch(f"{what}: expected {expected!r}, got {actual!r}")


async def check_no_token(url: str, token: str) -> None:
    async with httpx2.AsyncClient(timeout=20) as http:
        response = await http.post(url, headers=POST_HEADERS, content=json.dumps(INITIALIZE))
    expect_eq(response.status_code, 401, "status without a token")
    expect_eq(response.headers.get("www-authenticate", "")[:6], "Bearer", "WWW-Authenticate")


async def check_wrong_token(url: str, token: str) -> None:
    headers = dict(POST_HEADERS, authorization=f"Bearer {token}-wrong")
    async with httpx2.AsyncClient(timeout=20) as http:
        response = await http.post(url, headers=headers, content=json.dumps(INITIALIZE))
    expect_eq(response.status_code, 401, "status with a wrong token")


async def check_sdk_without_token_fails(url: str, token: str) -> None:
    # The SDK's client without a token: its HTTP exchange gets 401, and the
    # client fails instead of connecting.
    statuses: list[int] = []

    async def on_response(response: httpx2.Response) -> None:
        statuses.append(response.status_code)

    http = httpx2.AsyncClient(event_hooks={"response": [on_response]}, timeout=20)
    try:
        async with http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, mode="legacy", read_timeout_seconds=20) as client:
                await client.call_tool("whoami", {})
    except Exception:  # noqa: BLE001 - any failure is the expected one
        expect_eq(statuses[:1], [401], "the SDK client's HTTP statuses")
        return
    raise Mismatch(f"the SDK's client got through without a token ({statuses})")


async def check_preflight(url: str, token: str) -> None:
    headers = {
        "origin": "http://localhost:5173",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
    }
    async with httpx2.AsyncClient(timeout=20) as http:
        response = await http.request("OPTIONS", url, headers=headers)
    expect_eq(response.status_code, 200, "preflight status")
    expect_eq(
        response.headers.get("access-control-allow-origin"),
        "http://localhost:5173",
        "allowed origin",
    )


async def whoami(url: str, token: str, mode: str) -> tuple[str, str]:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {token}"}, timeout=30)
    async with http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, mode=mode, read_timeout_seconds=20) as client:
            result = await client.call_tool("whoami", {})
            return result.content[0].text, client.protocol_version


async def check_session_2025(url: str, token: str) -> None:
    text, version = await whoami(url, token, "legacy")
    expect_eq(version, "2025-11-25", "negotiated revision")
    expect_eq(text, "alice via 2025-11-25", "whoami in a session")


async def check_stateless_2026(url: str, token: str) -> None:
    text, version = await whoami(url, token, "2026-07-28")
    expect_eq(version, "2026-07-28", "revision")
    expect_eq(text, "alice via 2026-07-28", "whoami standing alone")


CHECKS = [
    check_no_token,
    check_wrong_token,
    check_sdk_without_token_fails,
    check_preflight,
    check_session_2025,
    check_stateless_2026,
]


async def run(url: str, token: str) -> int:
    passed = failed = 0
    with anyio.fail_after(OVERALL_TIMEOUT_S):
        for check in CHECKS:
            try:
                await check(url, token)
                print(f"ok   {check.__name__}")
                passed += 1
            except Exception:  # noqa: BLE001 - every failure is reported
                print(f"FAIL {check.__name__}")
                traceback.print_exc()
                failed += 1
    print(f"python axum interop: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(run, sys.argv[1], sys.argv[2]))
