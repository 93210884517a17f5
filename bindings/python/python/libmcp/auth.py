"""OAuth 2.1 for MCP over HTTP (the MCP authorization spec, 2025-11-25).

**Clients** pass :class:`OAuth` to :meth:`Client.http <libmcp.Client.http>`
(or :meth:`SyncClient.http <libmcp.SyncClient.http>`)::

    auth = libmcp.auth.OAuth(client_name="my-tool", storage=FileTokenStorage("~/.my-tool/tokens.json"))
    async with libmcp.Client.http("https://mcp.example.com/mcp", auth=auth) as client:
        ...

Nothing happens until the server answers 401: then the client discovers the
authorization server (RFC 9728 Protected Resource Metadata, RFC 8414 / OpenID
Connect metadata), registers (pre-registered ``client_id`` → Client ID
Metadata Document → Dynamic Client Registration), runs the authorization
code flow with PKCE S256 and RFC 8707 ``resource``, keeps the tokens in the
storage, refreshes them, steps up on ``insufficient_scope``, and sends the
request again. The user takes part through the redirect handler (default:
the URL is printed on stderr and the browser's redirect is received on a
loopback port).

**Servers** pass :class:`ProtectedResource` to :meth:`Server.run_http
<libmcp.Server.run_http>` (and ``start_http``, ``run_http_async``): every
request must carry a bearer token the verifier accepts, else HTTP 401 with
a ``WWW-Authenticate`` challenge pointing at the Protected Resource
Metadata, which is served at ``/.well-known/oauth-protected-resource/mcp``.
Handlers read the caller's :class:`AccessToken` from :attr:`Context.auth
<libmcp.Context.auth>`.

Both sides are the Rust engine's (``mcp_core::auth``); this module only
adapts Python objects to it. The names follow the official Python SDK's
where they mean the same thing (``OAuthToken``, ``TokenStorage``'s
``get_tokens``/``set_tokens``/``get_client_info``/``set_client_info``,
``redirect_handler``/``callback_handler``, ``AccessToken``,
``TokenVerifier.verify_token``).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    Union,
    runtime_checkable,
)

from . import _libmcp
from ._invoke import Failure, Invoker
from .errors import AuthError, INTERNAL_ERROR

__all__ = [
    "OAuth",
    "OAuthToken",
    "OAuthClientInfo",
    "TokenStorage",
    "InMemoryTokenStorage",
    "FileTokenStorage",
    "ProtectedResource",
    "AccessToken",
    "TokenVerifier",
    "InvalidToken",
    "VerifierUnavailable",
]

logger = logging.getLogger("libmcp")

LoopGetter = Callable[[], Optional[asyncio.AbstractEventLoop]]


# ---------------------------------------------------------------- client


@dataclass
class OAuthToken:
    """Tokens the authorization server granted for one MCP endpoint.

    ``expires_at`` is a Unix time (``time.time()`` seconds) or ``None``;
    ``scope`` is space-separated.
    """

    access_token: str
    refresh_token: Optional[str] = None
    expires_at: Optional[float] = None
    scope: Optional[str] = None
    token_type: str = "Bearer"

    @property
    def expires_in(self) -> Optional[float]:
        """Seconds until the access token expires (negative once expired)."""
        return None if self.expires_at is None else self.expires_at - time.time()

    def to_dict(self) -> Dict[str, Any]:
        return {
            "access_token": self.access_token,
            "refresh_token": self.refresh_token,
            "expires_at": self.expires_at,
            "scope": self.scope,
            "token_type": self.token_type,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "OAuthToken":
        expires_at = data.get("expires_at")
        if expires_at is None and data.get("expires_in") is not None:
            expires_at = time.time() + float(data["expires_in"])
        return cls(
            access_token=str(data["access_token"]),
            refresh_token=data.get("refresh_token"),
            expires_at=None if expires_at is None else float(expires_at),
            scope=data.get("scope"),
            token_type=str(data.get("token_type") or "Bearer"),
        )

    def __repr__(self) -> str:  # never shows a token
        return f"OAuthToken(access_token=<redacted>, refresh_token={'<redacted>' if self.refresh_token else None}, expires_at={self.expires_at!r}, scope={self.scope!r})"


@dataclass
class OAuthClientInfo:
    """A client registered with an authorization server (dynamically, or
    given as ``OAuth(client_id=...)``)."""

    client_id: str
    client_secret: Optional[str] = None
    token_endpoint_auth_method: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {
            "client_id": self.client_id,
            "client_secret": self.client_secret,
            "token_endpoint_auth_method": self.token_endpoint_auth_method,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "OAuthClientInfo":
        return cls(
            client_id=str(data["client_id"]),
            client_secret=data.get("client_secret"),
            token_endpoint_auth_method=data.get("token_endpoint_auth_method"),
        )

    def __repr__(self) -> str:
        secret = "<redacted>" if self.client_secret else None
        return f"OAuthClientInfo(client_id={self.client_id!r}, client_secret={secret}, token_endpoint_auth_method={self.token_endpoint_auth_method!r})"


@runtime_checkable
class TokenStorage(Protocol):
    """Where :class:`OAuth` keeps tokens (per MCP endpoint URL) and client
    registrations (per authorization server issuer). Methods may be plain
    or ``async def``. Unlike the official SDK's storage, each call names
    its key, so one storage can serve several servers.

    libmcp reads each key once and keeps what it read or wrote in memory,
    so the storage is not asked on every request.
    """

    def get_tokens(self, resource: str) -> Union[Optional[OAuthToken], Awaitable[Optional[OAuthToken]]]: ...

    def set_tokens(self, resource: str, tokens: OAuthToken) -> Any: ...

    def remove_tokens(self, resource: str) -> Any: ...

    def get_client_info(self, issuer: str) -> Union[Optional[OAuthClientInfo], Awaitable[Optional[OAuthClientInfo]]]: ...

    def set_client_info(self, issuer: str, info: OAuthClientInfo) -> Any: ...


class InMemoryTokenStorage:
    """A :class:`TokenStorage` in memory (the default): forgotten when the
    process ends. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.tokens: Dict[str, OAuthToken] = {}
        self.clients: Dict[str, OAuthClientInfo] = {}

    def get_tokens(self, resource: str) -> Optional[OAuthToken]:
        with self._lock:
            return self.tokens.get(resource)

    def set_tokens(self, resource: str, tokens: OAuthToken) -> None:
        with self._lock:
            self.tokens[resource] = tokens

    def remove_tokens(self, resource: str) -> None:
        with self._lock:
            self.tokens.pop(resource, None)

    def get_client_info(self, issuer: str) -> Optional[OAuthClientInfo]:
        with self._lock:
            return self.clients.get(issuer)

    def set_client_info(self, issuer: str, info: OAuthClientInfo) -> None:
        with self._lock:
            self.clients[issuer] = info

    def __repr__(self) -> str:
        return f"<InMemoryTokenStorage tokens={len(self.tokens)} clients={len(self.clients)}>"


class FileTokenStorage(InMemoryTokenStorage):
    """A :class:`TokenStorage` in a JSON file, readable by its owner only
    (mode 0600), rewritten atomically on every change. The file holds
    refresh tokens: keep it out of backups and shared folders."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        super().__init__()
        self.path = Path(path).expanduser()
        if self.path.exists():
            data = json.loads(self.path.read_text(encoding="utf-8"))
            self.tokens = {k: OAuthToken.from_dict(v) for k, v in data.get("tokens", {}).items()}
            self.clients = {k: OAuthClientInfo.from_dict(v) for k, v in data.get("clients", {}).items()}

    def _save(self) -> None:
        data = {
            "tokens": {k: v.to_dict() for k, v in self.tokens.items()},
            "clients": {k: v.to_dict() for k, v in self.clients.items()},
        }
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=str(self.path.parent), prefix=".tokens-")
        try:
            os.fchmod(fd, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f)
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def set_tokens(self, resource: str, tokens: OAuthToken) -> None:
        with self._lock:
            self.tokens[resource] = tokens
            self._save()

    def remove_tokens(self, resource: str) -> None:
        with self._lock:
            self.tokens.pop(resource, None)
            self._save()

    def set_client_info(self, issuer: str, info: OAuthClientInfo) -> None:
        with self._lock:
            self.clients[issuer] = info
            self._save()

    def __repr__(self) -> str:
        return f"<FileTokenStorage {str(self.path)!r}>"


#: What a redirect or callback handler may return: ``(code, state)``, the
#: URL the authorization server redirected to (``...?code=...&state=...``),
#: or ``None`` (the redirect handler only showed the URL).
AuthorizationResult = Union[Tuple[str, Optional[str]], str, None]
RedirectHandler = Callable[[str], Union[AuthorizationResult, Awaitable[AuthorizationResult]]]
CallbackHandler = Callable[[], Union[Tuple[str, Optional[str]], str, Awaitable[Any]]]


def _fail(error: BaseException) -> Failure:
    logger.debug("an OAuth callback failed", exc_info=error)
    return ("reject", INTERNAL_ERROR, f"{type(error).__name__}: {error}", None)


def _authorization_answer(_args: Any, value: Any) -> Any:
    if value is None or isinstance(value, bool):  # webbrowser.open returns a bool
        return None
    if isinstance(value, str):
        return {"url": value}
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        code, state = value
        return {"code": None if code is None else str(code), "state": None if state is None else str(state)}
    raise TypeError(
        f"an OAuth redirect or callback handler returns (code, state), the redirect URL or None, not {type(value).__name__}"
    )


def _storage_answer(args: Any, value: Any) -> Any:
    op = args[0]
    if value is None or op in ("set_tokens", "remove_tokens", "set_client_info"):
        return None
    if isinstance(value, (OAuthToken, OAuthClientInfo)):
        return value.to_dict()
    if isinstance(value, Mapping):
        # Accept official-SDK style objects given as dicts (expires_in).
        if op == "get_tokens":
            return OAuthToken.from_dict(value).to_dict()
        return OAuthClientInfo.from_dict(value).to_dict()
    if hasattr(value, "model_dump"):  # a pydantic model, e.g. the official SDK's OAuthToken
        return _storage_answer(args, value.model_dump())
    raise TypeError(f"TokenStorage.{op} returned {type(value).__name__}; return an {'OAuthToken' if op == 'get_tokens' else 'OAuthClientInfo'}, a dict or None")


class OAuth:
    """OAuth 2.1 for :meth:`Client.http <libmcp.Client.http>` (the
    authorization code flow with PKCE, like the official SDK's
    ``OAuthClientProvider``).

    Args:
        client_name: The ``client_name`` sent in Dynamic Client
            Registration.
        scope: Request exactly these scopes (space-separated) instead of
            those the server's challenge or metadata name.
        client_id, client_secret, token_endpoint_auth_method: A client
            registered beforehand (then registration is skipped).
        client_metadata_url: The HTTPS URL of this client's Client ID
            Metadata Document, used as its ``client_id`` with authorization
            servers that support it (else Dynamic Client Registration).
        storage: A :class:`TokenStorage` (default: a new
            :class:`InMemoryTokenStorage`, kept as :attr:`storage`).
        redirect_handler: Called with the authorization URL: shows it or
            opens a browser (``webbrowser.open``); may itself return the
            outcome: ``(code, state)`` or the URL the authorization server
            redirected to.
        callback_handler: Called (with no argument) after
            ``redirect_handler`` returned nothing; returns ``(code,
            state)`` or the redirect URL. Give it when your application
            receives the redirect itself (then ``redirect_uri`` names where).
        redirect_uri: The redirect URI registered with the authorization
            server. Without ``callback_handler`` it must be a loopback
            ``http`` URI: libmcp listens there for the browser's redirect
            (port 0 picks a free port). Default
            ``http://127.0.0.1:0/callback``.
        timeout: Seconds the user may take to authorize (default 300).
        http_timeout: Seconds each request to the authorization server may
            take (default 30).
        allow_insecure_http: Allow plain-HTTP authorization servers off
            loopback (the spec requires HTTPS; loopback is always allowed).
        client_credentials: Use the client credentials grant (machine to
            machine) instead; needs ``client_id`` and ``client_secret``.

    Handlers may be plain or ``async def`` functions; with
    :class:`~libmcp.Client`, coroutines run on the event loop that
    connected. One :class:`OAuth` may serve several clients: they share its
    storage.
    """

    def __init__(
        self,
        *,
        client_name: str = "libmcp",
        scope: Optional[str] = None,
        client_id: Optional[str] = None,
        client_secret: Optional[str] = None,
        token_endpoint_auth_method: Optional[str] = None,
        client_metadata_url: Optional[str] = None,
        storage: Optional[TokenStorage] = None,
        redirect_handler: Optional[RedirectHandler] = None,
        callback_handler: Optional[CallbackHandler] = None,
        redirect_uri: Optional[str] = None,
        timeout: Optional[float] = None,
        http_timeout: Optional[float] = None,
        allow_insecure_http: bool = False,
        client_credentials: bool = False,
    ) -> None:
        for option, handler in (("redirect_handler", redirect_handler), ("callback_handler", callback_handler)):
            if handler is not None and not callable(handler):
                raise TypeError(f"{option}= takes a function, not {type(handler).__name__}")
        if client_secret is not None and client_id is None:
            raise ValueError("client_secret= needs client_id=")
        if client_credentials and (client_id is None or client_secret is None):
            raise ValueError("client_credentials=True needs client_id= and client_secret=")
        self.storage: TokenStorage = storage if storage is not None else InMemoryTokenStorage()
        for method in ("get_tokens", "set_tokens", "remove_tokens", "get_client_info", "set_client_info"):
            if not callable(getattr(self.storage, method, None)):
                raise TypeError(f"storage= needs a {method}() method (see libmcp.auth.TokenStorage)")
        self.redirect_handler = redirect_handler
        self.callback_handler = callback_handler
        self._settings: Dict[str, Any] = {
            "client_name": client_name,
            "scope": scope,
            "client_id": client_id,
            "client_secret": client_secret,
            "token_endpoint_auth_method": token_endpoint_auth_method,
            "client_metadata_url": client_metadata_url,
            "grant": "client_credentials" if client_credentials else "authorization_code",
            "redirect_uri": redirect_uri,
            "timeout": timeout,
            "http_timeout": http_timeout,
            "allow_insecure_http": allow_insecure_http,
        }
        self._native_storage: Optional[_libmcp.TokenStorage] = None
        self._lock = threading.Lock()
        #: The loop of the client connected last: async storage methods run
        #: there (the storage is shared by every client of this object).
        self._latest_loop: LoopGetter = lambda: None

    def _storage(self, loop: LoopGetter) -> _libmcp.TokenStorage:
        # One native store per OAuth object, so that every client of it
        # shares what it read and wrote.
        with self._lock:
            self._latest_loop = loop
            if self._native_storage is None:
                storage = self.storage

                def run(args: Any, _ctx: Any) -> Any:
                    op, key, value = args
                    method = getattr(storage, op)
                    if op == "set_tokens":
                        return method(key, OAuthToken.from_dict(value))
                    if op == "set_client_info":
                        return method(key, OAuthClientInfo.from_dict(value))
                    return method(key)

                self._native_storage = _libmcp.TokenStorage(
                    Invoker(run, False, lambda: self._latest_loop(), _storage_answer, _fail)
                )
            return self._native_storage

    def _provider(self, url: str, loop: LoopGetter) -> _libmcp.OAuthProvider:
        """The native OAuth client for the endpoint ``url``."""
        redirect = callback = None
        if self.redirect_handler is not None:
            handler = self.redirect_handler
            redirect = Invoker(
                lambda auth_url, _ctx: handler(auth_url),
                inspect.iscoroutinefunction(handler),
                loop,
                _authorization_answer,
                _fail,
            )
        if self.callback_handler is not None:
            receive = self.callback_handler
            callback = Invoker(
                lambda _none, _ctx: receive(),
                inspect.iscoroutinefunction(receive),
                loop,
                _authorization_answer,
                _fail,
            )
        return _libmcp.oauth_provider(url, self._settings, self._storage(loop), redirect=redirect, callback=callback)

    def __repr__(self) -> str:
        return f"<OAuth client_name={self._settings['client_name']!r} storage={self.storage!r}>"


# ---------------------------------------------------------------- server


@dataclass
class AccessToken:
    """Who a bearer token speaks for, as the verifier says (and what
    :attr:`Context.auth <libmcp.Context.auth>` gives a handler).

    Attributes:
        subject: The user or client the token was issued to (``sub``).
        scopes: The granted scopes.
        client_id: The OAuth client that obtained the token, if known.
        expires_at: Unix time the token expires, if known; libmcp refuses
            expired tokens.
        audience: The resource identifiers the token was issued for
            (``aud``). If the verifier leaves it ``None``, libmcp takes the
            verifier's word that the token is for this server; if set,
            libmcp refuses a token not issued for this server (RFC 8707).
        claims: Anything else the verifier wants handlers to see.
    """

    subject: str = ""
    scopes: List[str] = field(default_factory=list)
    client_id: Optional[str] = None
    expires_at: Optional[float] = None
    audience: Optional[List[str]] = None
    claims: Dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, Any]:
        return {
            "subject": self.subject,
            "scopes": list(self.scopes),
            "client_id": self.client_id,
            "expires_at": self.expires_at,
            "audience": None if self.audience is None else list(self.audience),
            "claims": dict(self.claims),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "AccessToken":
        audience = data.get("audience")
        if audience is None and data.get("resource") is not None:  # the official SDK's field
            audience = data["resource"]
        if isinstance(audience, str):
            audience = [audience]
        scopes = data.get("scopes") or []
        if isinstance(scopes, str):
            scopes = scopes.split()
        expires_at = data.get("expires_at")
        return cls(
            subject=str(data.get("subject") or data.get("sub") or data.get("client_id") or ""),
            scopes=[str(s) for s in scopes],
            client_id=data.get("client_id"),
            expires_at=None if expires_at is None else float(expires_at),
            audience=None if audience is None else [str(a) for a in audience],
            claims=dict(data.get("claims") or {}),
        )


class TokenVerifier(Protocol):
    """A verifier object (the official SDK's protocol): ``verify_token``
    returns an :class:`AccessToken` or ``None``, plainly or as a coroutine."""

    def verify_token(self, token: str) -> Union[Optional[AccessToken], Awaitable[Optional[AccessToken]]]: ...


class InvalidToken(AuthError):
    """Raised by a token verifier: the token is not accepted (the client
    gets 401 ``invalid_token`` with this message as the description)."""


class VerifierUnavailable(AuthError):
    """Raised by a token verifier that cannot decide now (its
    introspection endpoint is down): the client gets 503."""


#: The native reject codes the verifier's invoker uses (see
#: mcp-ffi/src/python/auth/resource.rs).
_INVALID = 401
_UNAVAILABLE = 503


def _verifier_answer(_token: Any, value: Any) -> Any:
    if value is None or value is False:
        return None
    if isinstance(value, AccessToken):
        return value.to_dict()
    if isinstance(value, Mapping):
        return AccessToken.from_dict(value).to_dict()
    if hasattr(value, "model_dump"):  # a pydantic model, e.g. the official SDK's AccessToken
        return AccessToken.from_dict(value.model_dump()).to_dict()
    if hasattr(value, "scopes"):
        return AccessToken.from_dict(vars(value)).to_dict()
    raise TypeError(f"a token verifier returns an AccessToken, a dict or None, not {type(value).__name__}")


def _verifier_failure(error: BaseException) -> Failure:
    if isinstance(error, VerifierUnavailable):
        logger.warning("token verification unavailable: %s", error)
        return ("reject", _UNAVAILABLE, str(error) or "the token could not be verified", None)
    if isinstance(error, InvalidToken):
        return ("reject", _INVALID, str(error) or "the token was not accepted", None)
    # Not the client's business: the reason stays in the server's log.
    logger.warning("the token verifier raised %s", type(error).__name__, exc_info=error)
    return ("reject", _INVALID, "the token was not accepted", None)


class ProtectedResource:
    """Makes :meth:`Server.run_http <libmcp.Server.run_http>` a protected
    resource: every request needs a bearer token that ``verifier``
    accepts.

    Args:
        authorization_servers: Issuer URLs of the authorization servers
            whose tokens are accepted (published in the metadata).
        verifier: ``verifier(token)`` (plain or ``async def``), or an
            object with ``verify_token(token)`` (the official SDK's
            ``TokenVerifier``): returns an :class:`AccessToken` (or a dict
            of its fields) for a good token; ``None`` or raising
            :class:`InvalidToken` refuses it (401 ``invalid_token``);
            :class:`VerifierUnavailable` answers 503. Any other exception
            refuses the token and is logged.
        resource: The canonical URL of the MCP endpoint (the RFC 8707
            resource identifier). Default: ``http://HOST:PORT/mcp`` as
            served; give the public URL behind a proxy.
        scopes_supported: Scopes published in the metadata (and asked for
            in challenges when nothing more specific applies).
        required_scopes: Scopes every request needs (else 403
            ``insufficient_scope``).
        method_scopes: Extra scopes per JSON-RPC method, e.g.
            ``{"tools/list": ["mcp:read"]}``.
        tool_scopes: Extra scopes per tool name for ``tools/call``.
        resource_name: A name for people, published in the metadata.
    """

    def __init__(
        self,
        authorization_servers: Union[str, Sequence[str]],
        verifier: Union[Callable[[str], Any], TokenVerifier],
        *,
        resource: Optional[str] = None,
        scopes_supported: Optional[Sequence[str]] = None,
        required_scopes: Sequence[str] = (),
        method_scopes: Optional[Mapping[str, Sequence[str]]] = None,
        tool_scopes: Optional[Mapping[str, Sequence[str]]] = None,
        resource_name: Optional[str] = None,
    ) -> None:
        if isinstance(authorization_servers, str):
            authorization_servers = [authorization_servers]
        if not authorization_servers:
            raise ValueError("a protected resource needs at least one authorization server")
        verify = getattr(verifier, "verify_token", verifier)
        if not callable(verify):
            raise TypeError(f"verifier= takes a function or an object with verify_token(), not {type(verifier).__name__}")
        self.authorization_servers = [str(s) for s in authorization_servers]
        self.verify: Callable[[str], Any] = verify
        self.resource = resource
        self.scopes_supported = None if scopes_supported is None else [str(s) for s in scopes_supported]
        self.required_scopes = [str(s) for s in required_scopes]
        self.method_scopes = {str(k): [str(s) for s in v] for k, v in (method_scopes or {}).items()}
        self.tool_scopes = {str(k): [str(s) for s in v] for k, v in (tool_scopes or {}).items()}
        self.resource_name = resource_name

    def _native(self, loop: LoopGetter) -> _libmcp.ResourceSettings:
        verify = self.verify
        invoker = Invoker(
            lambda token, _ctx: verify(token),
            inspect.iscoroutinefunction(verify),
            loop,
            _verifier_answer,
            _verifier_failure,
        )
        return _libmcp.ResourceSettings(
            self.authorization_servers,
            invoker,
            resource=self.resource,
            scopes_supported=self.scopes_supported,
            required_scopes=self.required_scopes,
            method_scopes=self.method_scopes,
            tool_scopes=self.tool_scopes,
            resource_name=self.resource_name,
        )

    def __repr__(self) -> str:
        return f"<ProtectedResource resource={self.resource!r} authorization_servers={self.authorization_servers!r}>"
