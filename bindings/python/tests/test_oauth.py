"""OAuth 2.1: libmcp's Python client (async and sync) against a protected
server run by the Rust engine (`run_http(auth=ProtectedResource(...))`,
whose challenges, metadata and checks are mcp-core's), with a small
authorization server written here (http.server on 127.0.0.1); and the
protected server checked with plain HTTP."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

import libmcp
from libmcp.auth import (
    AccessToken,
    FileTokenStorage,
    InMemoryTokenStorage,
    InvalidToken,
    OAuth,
    OAuthToken,
    ProtectedResource,
    VerifierUnavailable,
)

from conftest import run

# ------------------------------------------------------------ test AS


class AuthorizationServer:
    """Dynamic registration, an authorization endpoint that approves at
    once (302 back with code, state and iss), and a token endpoint that
    checks PKCE S256, the redirect URI and the resource (RFC 8707)."""

    def __init__(self, *, expires_in: int = 3600, audience: Optional[str] = None) -> None:
        self.expires_in = expires_in
        self.audience = audience  # None: the resource asked for
        self.log: List[str] = []
        self.codes: Dict[str, Dict[str, str]] = {}
        self.refresh: Dict[str, Tuple[str, str]] = {}
        #: Issued access tokens → (subject, scopes, audience, expires_at).
        self.tokens: Dict[str, Tuple[str, List[str], str, float]] = {}
        self._next = itertools.count(1)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _json(self, status: int, body: Dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("content-length", "0")))

            def do_GET(self) -> None:
                url = urllib.parse.urlsplit(self.path)
                if url.path == "/.well-known/oauth-authorization-server":
                    self._json(200, server.metadata())
                elif url.path == "/authorize":
                    location = server.authorize(dict(urllib.parse.parse_qsl(url.query)))
                    self.send_response(302)
                    self.send_header("location", location)
                    self.send_header("content-length", "0")
                    self.end_headers()
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                if self.path == "/register":
                    self._json(201, server.register(json.loads(self._body())))
                elif self.path == "/token":
                    status, body = server.token(dict(urllib.parse.parse_qsl(self._body().decode())))
                    self._json(status, body)
                else:
                    self._json(404, {"error": "not_found"})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)

    def count(self, prefix: str) -> int:
        return sum(1 for line in self.log if line.startswith(prefix))

    def metadata(self) -> Dict[str, Any]:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "registration_endpoint": f"{self.issuer}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
        }

    def register(self, request: Dict[str, Any]) -> Dict[str, Any]:
        assert request["redirect_uris"], request
        with self._lock:
            self.log.append("register")
            return {"client_id": f"client-{next(self._next)}", "token_endpoint_auth_method": "none"}

    def authorize(self, q: Dict[str, str]) -> str:
        assert q["response_type"] == "code" and q["code_challenge_method"] == "S256", q
        assert q["client_id"].startswith("client-"), q
        with self._lock:
            self.log.append(f"authorize {q.get('scope', '')}")
            code = f"code-{next(self._next)}"
            self.codes[code] = q
        back = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": q["state"], "iss": self.issuer})
        return back

    def _issue(self, scope: str, resource: str) -> Tuple[int, Dict[str, Any]]:
        n = next(self._next)
        access, refresh = f"tok-{n}", f"ref-{n}"
        audience = self.audience if self.audience is not None else resource
        self.tokens[access] = ("user-1", scope.split(), audience, time.time() + self.expires_in)
        self.refresh[refresh] = (scope, resource)
        return 200, {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
            "scope": scope,
        }

    def token(self, f: Dict[str, str]) -> Tuple[int, Dict[str, Any]]:
        with self._lock:
            self.log.append(f"token {f.get('grant_type')}")
            if f.get("grant_type") == "authorization_code":
                grant = self.codes.pop(f.get("code", ""), None)
                if grant is None:
                    return 400, {"error": "invalid_grant"}
                digest = hashlib.sha256(f["code_verifier"].encode()).digest()
                challenge = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
                if (
                    challenge != grant["code_challenge"]
                    or f.get("redirect_uri") != grant["redirect_uri"]
                    or f.get("resource") != grant["resource"]
                ):
                    return 400, {"error": "invalid_grant"}
                return self._issue(grant.get("scope", ""), grant["resource"])
            if f.get("grant_type") == "refresh_token":
                known = self.refresh.get(f.get("refresh_token", ""))
                if known is None or f.get("resource") != known[1]:
                    return 400, {"error": "invalid_grant"}
                return self._issue(*known)
            return 400, {"error": "unsupported_grant_type"}

    # -- what the protected server's verifier asks (as introspection would)

    def verify(self, token: str) -> Optional[AccessToken]:
        with self._lock:
            known = self.tokens.get(token)
        if known is None:
            return None
        subject, scopes, audience, expires_at = known
        return AccessToken(
            subject=subject, scopes=scopes, audience=[audience], expires_at=expires_at, claims={"iss": self.issuer}
        )


def follow(url: str) -> str:
    """What a browser does at an authorization server that approves at
    once: the URL it is redirected to (not followed)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(url, timeout=10)
    except urllib.error.HTTPError as e:
        if e.code == 302:
            return e.headers["location"]
        raise
    raise AssertionError("the authorization server did not redirect")


# ------------------------------------------------------- protected server


def protected_server() -> libmcp.Server:
    server = libmcp.Server("protected", "1.0.0")

    @server.tool()
    def whoami(ctx: libmcp.Context) -> str:
        """Names the caller."""
        auth = ctx.auth
        assert auth is not None
        return f"{auth.subject} {' '.join(auth.scopes)} {auth.claims.get('iss')}"

    @server.tool()
    def admin() -> str:
        """Needs mcp:admin."""
        return "admin done"

    return server


class Setup:
    def __init__(self, authorization_server: AuthorizationServer, verifier: Any = None) -> None:
        self.authorization_server = authorization_server
        resource = ProtectedResource(
            authorization_server.issuer,
            verifier if verifier is not None else authorization_server.verify,
            scopes_supported=["mcp:read", "mcp:admin"],
            required_scopes=["mcp:read"],
            tool_scopes={"admin": ["mcp:admin"]},
            resource_name="pytest protected server",
        )
        self.running = protected_server().start_http("127.0.0.1", 0, auth=resource)
        assert self.running.url is not None
        self.url: str = self.running.url
        origin = self.url.rsplit("/mcp", 1)[0]
        self.metadata_url = f"{origin}/.well-known/oauth-protected-resource/mcp"

    def close(self) -> None:
        self.running.stop()


@pytest.fixture
def authz() -> Iterator[AuthorizationServer]:
    server = AuthorizationServer()
    yield server
    server.close()


@pytest.fixture
def setup(authz: AuthorizationServer) -> Iterator[Setup]:
    s = Setup(authz)
    yield s
    s.close()


def headless() -> OAuth:
    """An OAuth whose redirect handler plays the browser."""
    return OAuth(client_name="pytest", redirect_handler=follow)


# ------------------------------------------------------------------ tests


def test_async_client_authorizes_and_the_handler_sees_the_caller(setup: Setup) -> None:
    authz = setup.authorization_server
    shown: List[str] = []

    async def redirect_handler(url: str) -> str:
        shown.append(url)
        return await asyncio.get_running_loop().run_in_executor(None, follow, url)

    storage = InMemoryTokenStorage()
    auth = OAuth(client_name="pytest", storage=storage, redirect_handler=redirect_handler)

    async def main() -> None:
        async with libmcp.Client.http(setup.url, auth=auth) as client:
            names = sorted(t.name for t in await client.list_tools())
            assert names == ["admin", "whoami"]
            result = await client.call_tool("whoami")
            assert result.text == f"user-1 mcp:read {authz.issuer}"

    run(main())
    assert len(shown) == 1
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(shown[0]).query))
    assert query["resource"] == setup.url and query["code_challenge_method"] == "S256"
    assert authz.log == ["register", "authorize mcp:read", "token authorization_code"]
    tokens = storage.tokens[setup.url]
    assert isinstance(tokens, OAuthToken) and tokens.scope == "mcp:read" and tokens.refresh_token
    assert tokens.expires_in is not None and 3000 < tokens.expires_in <= 3600
    assert tokens.access_token not in repr(tokens)
    assert list(storage.clients.values())[0].client_id.startswith("client-")


def test_sync_client_with_the_loopback_listener(setup: Setup) -> None:
    authz = setup.authorization_server
    redirected: List[str] = []
    browsers: List[threading.Thread] = []

    def browser(url: str) -> bool:
        # Like webbrowser.open: returns at once (True); the "browser"
        # follows the redirect to libmcp's loopback listener.
        def go() -> None:
            with urllib.request.urlopen(url, timeout=10) as page:
                redirected.append(page.read().decode())

        browsers.append(threading.Thread(target=go, daemon=True))
        browsers[-1].start()
        return True

    auth = OAuth(redirect_handler=browser, timeout=20)
    with libmcp.SyncClient.http(setup.url, auth=auth) as client:
        assert client.call_tool("whoami").text.startswith("user-1 ")
    for thread in browsers:
        thread.join(10)
    assert redirected == ["Authorization complete. You can close this window."]
    assert authz.count("authorize") == 1


def test_callback_handler_as_in_the_official_sdk(setup: Setup) -> None:
    seen: List[str] = []

    async def redirect_handler(url: str) -> None:
        seen.append(url)

    async def callback_handler() -> Tuple[str, Optional[str]]:
        back = await asyncio.get_running_loop().run_in_executor(None, follow, seen[-1])
        q = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(back).query))
        return q["code"], q["state"]

    auth = OAuth(
        redirect_uri="https://app.example.com/oauth/callback",
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
    )

    async def main() -> None:
        async with libmcp.Client.http(setup.url, auth=auth) as client:
            assert (await client.call_tool("whoami")).text.startswith("user-1 ")

    run(main())
    assert dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(seen[0]).query))["redirect_uri"] == (
        "https://app.example.com/oauth/callback"
    )


def test_a_missing_scope_steps_up_and_tokens_are_refreshed(setup: Setup) -> None:
    authz = setup.authorization_server
    with libmcp.SyncClient.http(setup.url, auth=headless()) as client:
        assert client.call_tool("admin").text == "admin done"
        assert [line for line in authz.log if line.startswith("authorize")] == [
            "authorize mcp:read",
            "authorize mcp:read mcp:admin",
        ]
        # A revoked token is refreshed, not authorized again.
        authz.tokens.clear()
        assert client.call_tool("whoami").text.startswith("user-1 mcp:read mcp:admin")
    assert authz.count("authorize") == 2 and authz.count("token refresh_token") == 1


def test_stored_tokens_are_used_without_authorizing(setup: Setup, tmp_path: Path) -> None:
    authz = setup.authorization_server
    path = tmp_path / "tokens.json"
    with libmcp.SyncClient.http(setup.url, auth=OAuth(storage=FileTokenStorage(path), redirect_handler=follow)) as c:
        c.ping()
    assert path.stat().st_mode & 0o777 == 0o600
    saved = json.loads(path.read_text())
    assert saved["tokens"][setup.url]["scope"] == "mcp:read" and saved["clients"]

    def no_person(url: str) -> None:
        raise AssertionError("asked to authorize again")

    with libmcp.SyncClient.http(setup.url, auth=OAuth(storage=FileTokenStorage(path), redirect_handler=no_person)) as c:
        assert c.call_tool("whoami").text.startswith("user-1 ")
    assert authz.count("authorize") == 1 and authz.count("register") == 1


def test_an_async_storage_object_is_awaited(setup: Setup) -> None:
    calls: List[str] = []

    class AsyncStorage:
        def __init__(self) -> None:
            self.inner = InMemoryTokenStorage()

        async def get_tokens(self, resource: str) -> Optional[OAuthToken]:
            calls.append("get_tokens")
            return self.inner.get_tokens(resource)

        async def set_tokens(self, resource: str, tokens: OAuthToken) -> None:
            calls.append("set_tokens")
            self.inner.set_tokens(resource, tokens)

        async def remove_tokens(self, resource: str) -> None:
            self.inner.remove_tokens(resource)

        async def get_client_info(self, issuer: str) -> Any:
            calls.append("get_client_info")
            info = self.inner.get_client_info(issuer)
            return None if info is None else info.to_dict()  # dicts are fine too

        async def set_client_info(self, issuer: str, info: Any) -> None:
            calls.append("set_client_info")
            self.inner.set_client_info(issuer, info)

    auth = OAuth(storage=AsyncStorage(), redirect_handler=follow)

    async def main() -> None:
        async with libmcp.Client.http(setup.url, auth=auth) as client:
            for _ in range(3):
                await client.call_tool("whoami")

    run(main())
    # Read once, written once each: the hot path does not call Python.
    assert calls.count("get_tokens") == 1 and calls.count("set_tokens") == 1, calls
    assert calls.count("get_client_info") == 1 and calls.count("set_client_info") == 1, calls


def test_a_token_for_another_audience_is_a_clear_error() -> None:
    authz = AuthorizationServer(audience="http://127.0.0.1:1/elsewhere")
    s = Setup(authz)
    try:
        with pytest.raises(libmcp.AuthError) as caught:
            with libmcp.SyncClient.http(s.url, auth=headless(), timeout=30):
                pass
        message = str(caught.value)
        assert "invalid_token" in message and "after 3 attempts" in message, message
        assert authz.count("authorize") <= 3
    finally:
        s.close()
        authz.close()


def test_an_expired_token_is_a_clear_error() -> None:
    # Every token the verifier sees has expired (whatever the AS said).
    authz = AuthorizationServer()

    def verifier(token: str) -> Optional[AccessToken]:
        found = authz.verify(token)
        if found is not None:
            found.expires_at = time.time() - 10
        return found

    s = Setup(authz, verifier)
    try:
        with pytest.raises(libmcp.AuthError, match="expired"):
            with libmcp.SyncClient.http(s.url, auth=headless(), timeout=30):
                pass
    finally:
        s.close()
        authz.close()


def test_handler_failures_are_clear_errors(setup: Setup) -> None:
    def broken(url: str) -> None:
        raise RuntimeError("no browser here")

    with pytest.raises(libmcp.AuthError, match="redirect handler failed: RuntimeError: no browser here"):
        with libmcp.SyncClient.http(setup.url, auth=OAuth(redirect_handler=broken, callback_handler=lambda: None)):
            pass
    with pytest.raises(libmcp.AuthError, match="returned no authorization code"):
        with libmcp.SyncClient.http(
            setup.url, auth=OAuth(redirect_handler=lambda url: None, callback_handler=lambda: None)
        ):
            pass

    def denied(url: str) -> str:
        return "http://127.0.0.1:9/callback?error=access_denied&error_description=nope"

    with pytest.raises(libmcp.AuthError, match="access_denied"):
        with libmcp.SyncClient.http(setup.url, auth=OAuth(redirect_handler=denied, callback_handler=lambda: None)):
            pass
    # Without auth= the 401 is an error too, not a hang.
    with pytest.raises(libmcp.McpError, match="401"):
        with libmcp.SyncClient.http(setup.url, timeout=10):
            pass


def test_bad_options_fail_when_made() -> None:
    with pytest.raises(ValueError, match="loopback"):
        libmcp.SyncClient.http("http://127.0.0.1:1/mcp", auth=OAuth(redirect_uri="https://example.com/cb")).connect()
    with pytest.raises(ValueError, match="client metadata URL"):
        libmcp.SyncClient.http("http://127.0.0.1:1/mcp", auth=OAuth(client_metadata_url="http://x/")).connect()
    with pytest.raises(TypeError, match="auth="):
        libmcp.SyncClient.http("http://127.0.0.1:1/mcp", auth="token")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="get_tokens"):
        OAuth(storage=object())  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="client_credentials"):
        OAuth(client_credentials=True)
    with pytest.raises(ValueError, match="authorization server"):
        ProtectedResource([], lambda t: None)


# ------------------------------------------------- the server over plain HTTP


def post(url: str, token: Optional[str]) -> Tuple[int, Dict[str, str], bytes]:
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        }
    ).encode()
    request = urllib.request.Request(url, data=body, method="POST")
    request.add_header("content-type", "application/json")
    request.add_header("accept", "application/json, text/event-stream")
    if token is not None:
        request.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class Verifier:
    """An official-SDK style verifier object with an async verify_token."""

    def __init__(self, resource: str) -> None:
        self.resource = resource

    async def verify_token(self, token: str) -> Optional[AccessToken]:
        await asyncio.sleep(0)
        if token == "good":
            return AccessToken(subject="ann", scopes=["mcp:read"], client_id="c1")
        if token == "elsewhere":
            return AccessToken(subject="ann", scopes=["mcp:read"], audience=["http://127.0.0.1:1/mcp"])
        if token == "no-scope":
            return AccessToken(subject="ann", scopes=["other"])
        if token == "revoked":
            raise InvalidToken("the token was revoked")
        if token == "down":
            raise VerifierUnavailable("introspection is down")
        if token == "bug":
            raise KeyError("oops")
        return None


def test_the_protected_server_over_plain_http() -> None:
    issuer = "https://auth.example.com"
    resource = ProtectedResource(
        issuer, Verifier("unused"), scopes_supported=["mcp:read"], required_scopes=["mcp:read"], resource_name="demo"
    )
    with protected_server().start_http("127.0.0.1", 0, auth=resource) as running:
        url = running.url
        assert url is not None
        origin = url.rsplit("/mcp", 1)[0]
        metadata_url = f"{origin}/.well-known/oauth-protected-resource/mcp"
        with urllib.request.urlopen(metadata_url, timeout=10) as response:
            metadata = json.loads(response.read())
        assert metadata["resource"] == url
        assert metadata["authorization_servers"] == [issuer]
        assert metadata["scopes_supported"] == ["mcp:read"] and metadata["resource_name"] == "demo"

        status, headers, _ = post(url, None)
        challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
        assert status == 401 and challenge.startswith("Bearer "), (status, headers)
        assert f'resource_metadata="{metadata_url}"' in challenge and 'scope="mcp:read"' in challenge
        assert "error=" not in challenge

        for bad, why in [
            ("unknown", "the token was not accepted"),
            ("revoked", "the token was revoked"),
            ("elsewhere", "not issued for this resource"),
            ("bug", "the token was not accepted"),
        ]:
            status, headers, body = post(url, bad)
            challenge = {k.lower(): v for k, v in headers.items()}["www-authenticate"]
            assert status == 401 and 'error="invalid_token"' in challenge, (bad, status, headers)
            assert why in challenge, (bad, challenge)
            assert "oops" not in challenge and b"oops" not in body
        status, headers, _ = post(url, "no-scope")
        assert status == 403 and "insufficient_scope" in {k.lower(): v for k, v in headers.items()}["www-authenticate"]
        status, _, _ = post(url, "down")
        assert status == 503
        status, headers, body = post(url, "good")
        assert status == 200, body

    # The Rust-backed client with a fixed token (no OAuth flow) sees the
    # identity the verifier gave.
    with protected_server().start_http("127.0.0.1", 0, auth=resource) as running:
        assert running.url is not None
        with libmcp.SyncClient.http(running.url, headers={"Authorization": "Bearer good"}) as client:
            assert client.call_tool("whoami").text == "ann mcp:read None"
        with pytest.raises(libmcp.McpError, match="401"):
            with libmcp.SyncClient.http(running.url, headers={"Authorization": "Bearer revoked"}, timeout=10):
                pass


def test_context_auth_is_none_without_protection() -> None:
    server = libmcp.Server("open")

    @server.tool()
    def who(ctx: libmcp.Context) -> str:
        return repr(ctx.auth)

    with server.start_http("127.0.0.1", 0) as running:
        assert running.url is not None
        with libmcp.SyncClient.http(running.url) as client:
            assert client.call_tool("who").text == "None"
