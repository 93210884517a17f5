//! OAuth 2.1: our client against our protected server, with a test token
//! validator and a small authorization server, all on 127.0.0.1.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use mcp_core::auth::{
    AssertionSource, AuthInfo, AuthProvider, BearerChallenge, ClientCredentials, GrantKind,
    IdJagExchange, LoopbackUserAgent, OAuthClient, ProtectedResource, Secret, TokenError,
    TokenValidator,
};
use mcp_core::client::Client;
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use reqwest::Url;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

// ---------------------------------------------------------------- test AS

/// What the test authorization server does differently.
#[derive(Clone, Copy, Default)]
struct Quirks {
    no_pkce: bool,
    wrong_audience: bool,
    /// `expires_in` of issued tokens (default one hour).
    expires_in: Option<u64>,
    /// The identity provider's token exchange issues an access token
    /// instead of an ID-JAG.
    idp_wrong_type: bool,
    /// The metadata offers DPoP (ES256), but Bearer tokens are issued.
    dpop_offered_bearer_issued: bool,
}

struct Grant {
    challenge: String,
    redirect_uri: String,
    scope: String,
    resource: String,
}

struct AsState {
    issuer: String,
    quirks: Quirks,
    next: AtomicUsize,
    codes: Mutex<HashMap<String, Grant>>,
    refresh: Mutex<HashMap<String, (String, String)>>,
    /// `authorize <scope>`, `register`, `token <grant type>`.
    log: Mutex<Vec<String>>,
    tokens: Tokens,
}

/// The tokens issued, shared with the validator.
type Tokens = Arc<Mutex<HashMap<String, AuthInfo>>>;

fn params(raw: &str) -> HashMap<String, String> {
    let url = Url::parse(&format!("http://x/?{raw}")).unwrap();
    url.query_pairs().into_owned().collect()
}

fn json_response(status: StatusCode, value: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

async fn as_metadata(State(s): State<Arc<AsState>>) -> Response {
    let mut meta = json!({
        "issuer": s.issuer,
        "authorization_endpoint": format!("{}/authorize", s.issuer),
        "token_endpoint": format!("{}/token", s.issuer),
        "registration_endpoint": format!("{}/register", s.issuer),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
        "authorization_response_iss_parameter_supported": true,
    });
    if !s.quirks.no_pkce {
        meta["code_challenge_methods_supported"] = json!(["S256"]);
    }
    if s.quirks.dpop_offered_bearer_issued {
        meta["dpop_signing_alg_values_supported"] = json!(["ES256"]);
    }
    json_response(StatusCode::OK, meta)
}

async fn register(State(s): State<Arc<AsState>>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    assert!(request["redirect_uris"][0].is_string());
    s.log.lock().unwrap().push("register".into());
    let n = s.next.fetch_add(1, Ordering::Relaxed);
    json_response(
        StatusCode::CREATED,
        json!({"client_id": format!("client-{n}"), "token_endpoint_auth_method": "none"}),
    )
}

async fn authorize(State(s): State<Arc<AsState>>, RawQuery(query): RawQuery) -> Response {
    let q = params(&query.unwrap_or_default());
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
    assert!(q["client_id"].starts_with("client-"));
    let scope = q.get("scope").cloned().unwrap_or_default();
    s.log.lock().unwrap().push(format!("authorize {scope}"));
    let code = format!("code-{}", s.next.fetch_add(1, Ordering::Relaxed));
    let grant = Grant {
        challenge: q["code_challenge"].clone(),
        redirect_uri: q["redirect_uri"].clone(),
        scope,
        resource: q["resource"].clone(),
    };
    let mut back = Url::parse(&grant.redirect_uri).unwrap();
    back.query_pairs_mut()
        .append_pair("code", &code)
        .append_pair("state", &q["state"])
        .append_pair("iss", &s.issuer);
    s.codes.lock().unwrap().insert(code, grant);
    (StatusCode::FOUND, [(header::LOCATION, back.to_string())]).into_response()
}

fn issue(s: &AsState, scope: &str, resource: &str) -> Response {
    let n = s.next.fetch_add(1, Ordering::Relaxed);
    let (access, refresh) = (format!("tok-{n}"), format!("ref-{n}"));
    let audience = if s.quirks.wrong_audience {
        "http://127.0.0.1:1/elsewhere".to_string()
    } else {
        resource.to_string()
    };
    let info = AuthInfo::new("user-1", audience, scope.split_whitespace());
    s.tokens.lock().unwrap().insert(access.clone(), info);
    s.refresh
        .lock()
        .unwrap()
        .insert(refresh.clone(), (scope.to_string(), resource.to_string()));
    json_response(
        StatusCode::OK,
        json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": s.quirks.expires_in.unwrap_or(3600),
            "refresh_token": refresh,
            "scope": scope,
        }),
    )
}

async fn token(State(s): State<Arc<AsState>>, headers: HeaderMap, body: Bytes) -> Response {
    let f = params(std::str::from_utf8(&body).unwrap());
    let grant_type = f["grant_type"].clone();
    let proof = if headers.contains_key("dpop") {
        " with a DPoP proof"
    } else {
        ""
    };
    s.log
        .lock()
        .unwrap()
        .push(format!("token {grant_type}{proof}"));
    let refused = |e: &str| json_response(StatusCode::BAD_REQUEST, json!({"error": e}));
    match grant_type.as_str() {
        "authorization_code" => {
            let Some(grant) = s.codes.lock().unwrap().remove(&f["code"]) else {
                return refused("invalid_grant");
            };
            let verifier = &f["code_verifier"];
            let challenge = base64_url(&Sha256::digest(verifier.as_bytes()));
            if challenge != grant.challenge
                || f["redirect_uri"] != grant.redirect_uri
                || f["resource"] != grant.resource
            {
                return refused("invalid_grant");
            }
            issue(&s, &grant.scope, &grant.resource)
        }
        "refresh_token" => {
            let known = s.refresh.lock().unwrap().get(&f["refresh_token"]).cloned();
            match known {
                Some((scope, resource)) if f["resource"] == resource => {
                    issue(&s, &scope, &resource)
                }
                _ => refused("invalid_grant"),
            }
        }
        "urn:ietf:params:oauth:grant-type:jwt-bearer" => {
            // The ID-JAG the identity provider below issued for this server.
            let expected = format!("jag:{}:{}", s.issuer, f["resource"]);
            if f.get("assertion") != Some(&expected) || f["client_id"] != "mcp-client" {
                return refused("invalid_grant");
            }
            issue(&s, "mcp:read", &f["resource"])
        }
        _ => refused("unsupported_grant_type"),
    }
}

/// The identity provider's token endpoint: RFC 8693 token exchange of the
/// ID token `id-token-1` for an ID-JAG naming its audience and resource.
async fn idp_token(State(s): State<Arc<AsState>>, body: Bytes) -> Response {
    let f = params(std::str::from_utf8(&body).unwrap());
    s.log
        .lock()
        .unwrap()
        .push(format!("idp {}", f["grant_type"]));
    let valid = f["grant_type"] == "urn:ietf:params:oauth:grant-type:token-exchange"
        && f["subject_token"] == "id-token-1"
        && f["subject_token_type"] == "urn:ietf:params:oauth:token-type:id_token"
        && f["requested_token_type"] == "urn:ietf:params:oauth:token-type:id-jag"
        && f["client_id"] == "idp-client";
    if !valid {
        return json_response(StatusCode::BAD_REQUEST, json!({"error": "invalid_request"}));
    }
    let issued = if s.quirks.idp_wrong_type {
        "urn:ietf:params:oauth:token-type:access_token"
    } else {
        "urn:ietf:params:oauth:token-type:id-jag"
    };
    json_response(
        StatusCode::OK,
        json!({
            "access_token": format!("jag:{}:{}", f["audience"], f["resource"]),
            "issued_token_type": issued,
            "token_type": "N_A",
        }),
    )
}

fn base64_url(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

async fn bind() -> (tokio::net::TcpListener, SocketAddr) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

async fn start_as(quirks: Quirks, tokens: Tokens) -> Arc<AsState> {
    let (listener, addr) = bind().await;
    let state = Arc::new(AsState {
        issuer: format!("http://127.0.0.1:{}", addr.port()),
        quirks,
        next: AtomicUsize::new(1),
        codes: Mutex::default(),
        refresh: Mutex::default(),
        log: Mutex::default(),
        tokens,
    });
    let app = Router::new()
        .route("/.well-known/oauth-authorization-server", get(as_metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/idp/token", post(idp_token))
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    state
}

// ------------------------------------------------------- protected server

struct TestValidator(Tokens);

#[async_trait]
impl TokenValidator for TestValidator {
    async fn validate(&self, token: &str) -> Result<AuthInfo, TokenError> {
        self.0
            .lock()
            .unwrap()
            .get(token)
            .cloned()
            .ok_or_else(|| TokenError::Invalid("unknown token".into()))
    }
}

fn mcp_server() -> Server {
    Server::builder("protected", "1.0.0")
        .tool(
            ToolDef::new(
                "whoami",
                "Names the caller",
                |_: Map<String, Value>, cx| async move {
                    Ok::<_, String>(cx.auth().map(|a| a.subject.clone()).unwrap_or_default())
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "admin",
                "Needs mcp:admin",
                |_: Map<String, Value>, _cx| async move { Ok::<_, String>("admin done") },
            )
            .unwrap(),
        )
        .build()
}

struct Setup {
    authorization_server: Arc<AsState>,
    tokens: Tokens,
    endpoint: String,
    resource: ProtectedResource,
}

async fn setup(quirks: Quirks) -> Setup {
    let tokens: Tokens = Arc::default();
    let authorization_server = start_as(quirks, tokens.clone()).await;
    let (listener, addr) = bind().await;
    let endpoint = format!("http://127.0.0.1:{}/mcp", addr.port());
    let resource = ProtectedResource::builder(
        endpoint.clone(),
        [authorization_server.issuer.clone()],
        TestValidator(tokens.clone()),
    )
    .scopes_supported(["mcp:read", "mcp:admin"])
    .required_scopes(["mcp:read"])
    .tool_scopes("admin", ["mcp:admin"])
    .build()
    .unwrap();
    let config = HttpServerConfig::default().protected_resource(resource.clone());
    let server = StreamableHttpServer::new(mcp_server(), config);
    tokio::spawn(server.serve(listener));
    Setup {
        authorization_server,
        tokens,
        endpoint,
        resource,
    }
}

impl Setup {
    fn log(&self) -> Vec<String> {
        self.authorization_server.log.lock().unwrap().clone()
    }

    fn count(&self, prefix: &str) -> usize {
        self.log().iter().filter(|l| l.starts_with(prefix)).count()
    }

    async fn connect(&self, oauth: Arc<OAuthClient>) -> mcp_core::Result<Client> {
        Client::builder("auth-test", "1.0.0")
            .connect(StreamableHttpClient::new(&self.endpoint).auth(oauth))
            .await
    }

    fn oauth(&self) -> Arc<OAuthClient> {
        OAuthClient::builder(&self.endpoint).build().unwrap()
    }
}

async fn call_text(client: &Client, tool: &str) -> mcp_core::Result<String> {
    let result = client.call_tool(tool, Some(Map::new())).await?;
    Ok(serde_json::to_string(&result.content).unwrap())
}

// ------------------------------------------------------------------ tests

#[tokio::test]
async fn unauthorized_then_discovery_then_token_then_success() {
    let s = setup(Quirks::default()).await;
    let oauth = s.oauth();
    let client = s.connect(oauth.clone()).await.unwrap();
    // Auto negotiation reaches the newest revision; the identity still
    // reaches the handler on its path without sessions.
    assert_eq!(
        client.protocol_version(),
        mcp_core::ProtocolVersion::V2026_07_28
    );
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 2);
    // The handler sees who called.
    assert!(
        call_text(&client, "whoami")
            .await
            .unwrap()
            .contains("user-1")
    );
    // One registration and one authorization, with the challenge's scope.
    assert_eq!(s.count("register"), 1);
    assert_eq!(
        s.log()
            .iter()
            .filter(|l| *l == "authorize mcp:read")
            .count(),
        1
    );
    let tokens = oauth.tokens().await.unwrap().unwrap();
    assert_eq!(tokens.scope.as_deref(), Some("mcp:read"));
    // Nothing shows a token.
    let shown = format!("{oauth:?} {tokens:?} {client:?}");
    assert!(!shown.contains(tokens.access_token.expose()), "{shown}");
    client.close().await;
}

#[tokio::test]
async fn the_server_publishes_metadata_and_challenges() {
    let s = setup(Quirks::default()).await;
    let http = reqwest::Client::new();
    let meta: Value = http
        .get(s.resource.metadata_url())
        .send()
        .await
        .unwrap()
        .json_value()
        .await;
    assert_eq!(meta["resource"], s.endpoint.as_str());
    assert_eq!(
        meta["authorization_servers"][0],
        s.authorization_server.issuer.as_str()
    );
    assert!(
        s.resource
            .metadata_url()
            .ends_with("/.well-known/oauth-protected-resource/mcp")
    );

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    let send = |token: Option<&str>| {
        let mut request = http
            .post(&s.endpoint)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(init.to_string());
        if let Some(t) = token {
            request = request.bearer_auth(t);
        }
        request.send()
    };
    let challenge = |r: &reqwest::Response| BearerChallenge::from_headers(r.headers()).unwrap();

    let r = send(None).await.unwrap();
    assert_eq!(r.status(), 401);
    let c = challenge(&r);
    assert_eq!(
        c.resource_metadata.as_deref(),
        Some(s.resource.metadata_url())
    );
    assert_eq!(c.scope.as_deref(), Some("mcp:read"));
    assert_eq!(c.error, None);

    {
        let mut tokens = s.tokens.lock().unwrap();
        tokens.insert(
            "elsewhere".into(),
            AuthInfo::new("u", "http://127.0.0.1:1/mcp", ["mcp:read"]),
        );
        tokens.insert(
            "no-scope".into(),
            AuthInfo::new("u", s.endpoint.clone(), ["other"]),
        );
        let mut expired = AuthInfo::new("u", s.endpoint.clone(), ["mcp:read"]);
        expired.expires_at = Some(std::time::SystemTime::now() - Duration::from_secs(1));
        tokens.insert("expired".into(), expired);
        tokens.insert(
            "good".into(),
            AuthInfo::new("u", format!("{}/", s.endpoint), ["mcp:read"]),
        );
        tokens.insert(
            "other-user".into(),
            AuthInfo::new("v", s.endpoint.clone(), ["mcp:read"]),
        );
    }

    for bad in ["elsewhere", "expired", "unknown"] {
        let r = send(Some(bad)).await.unwrap();
        assert_eq!(r.status(), 401, "{bad}");
        assert_eq!(
            challenge(&r).error.as_deref(),
            Some("invalid_token"),
            "{bad}"
        );
    }
    let r = send(Some("no-scope")).await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(challenge(&r).is_insufficient_scope());

    // A session keeps the subject that opened it.
    let r = send(Some("good")).await.unwrap();
    assert_eq!(r.status(), 200);
    let session = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
    let r = http
        .post(&s.endpoint)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .bearer_auth("other-user")
        .body(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn a_token_for_another_audience_is_refused() {
    let s = setup(Quirks {
        wrong_audience: true,
        ..Quirks::default()
    })
    .await;
    let e = s.connect(s.oauth()).await.unwrap_err().to_string();
    assert!(e.contains("authorization failed"), "{e}");
    assert!(
        e.contains("after 3 attempts") && e.contains("invalid_token"),
        "{e}"
    );
    // Bounded: the first grant, then at most three more tries.
    assert!(s.count("authorize") <= 3, "{:?}", s.log());
}

#[tokio::test]
async fn a_missing_scope_steps_up() {
    let s = setup(Quirks::default()).await;
    let client = s.connect(s.oauth()).await.unwrap();
    assert!(
        call_text(&client, "admin")
            .await
            .unwrap()
            .contains("admin done")
    );
    let authorizations: Vec<String> = s
        .log()
        .into_iter()
        .filter(|l| l.starts_with("authorize"))
        .collect();
    assert_eq!(
        authorizations,
        ["authorize mcp:read", "authorize mcp:read mcp:admin"]
    );
    // The new token still serves the rest.
    assert!(
        call_text(&client, "whoami")
            .await
            .unwrap()
            .contains("user-1")
    );
    assert_eq!(s.count("authorize"), 2);
    client.close().await;
}

#[tokio::test]
async fn refresh_tokens_are_used_before_reauthorizing() {
    // Expired at once (within the client's margin): every request refreshes.
    let s = setup(Quirks {
        expires_in: Some(1),
        ..Quirks::default()
    })
    .await;
    let client = s.connect(s.oauth()).await.unwrap();
    client.list_all_tools().await.unwrap();
    assert_eq!(s.count("authorize"), 1);
    assert!(s.count("token refresh_token") >= 1, "{:?}", s.log());
    client.close().await;

    // A revoked token (401) is refreshed too.
    let s = setup(Quirks::default()).await;
    let client = s.connect(s.oauth()).await.unwrap();
    s.tokens.lock().unwrap().clear();
    client.list_all_tools().await.unwrap();
    assert_eq!(s.count("authorize"), 1);
    assert_eq!(s.count("token refresh_token"), 1);
    client.close().await;
}

#[tokio::test]
async fn an_authorization_server_without_pkce_s256_is_refused() {
    let s = setup(Quirks {
        no_pkce: true,
        ..Quirks::default()
    })
    .await;
    let e = s.connect(s.oauth()).await.unwrap_err().to_string();
    assert!(e.contains("PKCE") && e.contains("refusing"), "{e}");
    assert_eq!(s.count("authorize"), 0);
}

#[tokio::test]
async fn malformed_resource_metadata_is_a_clear_error() {
    let (listener, addr) = bind().await;
    let base = format!("http://127.0.0.1:{}", addr.port());
    let header = format!(r#"Bearer resource_metadata="{base}/prm""#);
    let app = Router::new()
        .route(
            "/mcp",
            any(move || {
                let header = header.clone();
                async move {
                    (
                        StatusCode::UNAUTHORIZED,
                        [(header::WWW_AUTHENTICATE, header)],
                    )
                }
            }),
        )
        .route("/prm", get(|| async { "this is not json" }));
    tokio::spawn(async move { axum::serve(listener, app).await });
    let endpoint = format!("{base}/mcp");
    let oauth = OAuthClient::builder(&endpoint).build().unwrap();
    let e = Client::builder("t", "1")
        .connect(StreamableHttpClient::new(&endpoint).auth(oauth))
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("protected resource metadata") && e.contains("malformed JSON"),
        "{e}"
    );
}

#[tokio::test]
async fn metadata_for_another_resource_is_refused() {
    let s = setup(Quirks::default()).await;
    // The client thinks the server is at another path of the same host.
    let endpoint = s.endpoint.replace("/mcp", "/other");
    let oauth = OAuthClient::builder(&endpoint).build().unwrap();
    let challenge = mcp_core::auth::AuthChallenge::from_response(401, &{
        let mut h = HeaderMap::new();
        let value = format!(
            r#"Bearer resource_metadata="{}""#,
            s.resource.metadata_url()
        );
        h.insert(header::WWW_AUTHENTICATE, value.parse().unwrap());
        h
    })
    .unwrap();
    let e = oauth
        .handle_challenge(&challenge, None)
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("not the MCP server"), "{e}");
}

#[tokio::test]
async fn the_loopback_user_agent_receives_the_redirect() {
    // A non-loopback redirect URI is refused up front.
    for bad in [
        "http://example.com/callback",
        "https://127.0.0.1/callback",
        "nonsense",
    ] {
        let e = LoopbackUserAgent::new(bad).unwrap_err().to_string();
        assert!(
            e.contains("loopback") || e.contains("redirect URI"),
            "{bad}: {e}"
        );
    }
    let s = setup(Quirks::default()).await;
    // The "browser": follows the authorization server's redirect to us.
    let agent = LoopbackUserAgent::new("http://127.0.0.1:0/callback")
        .unwrap()
        .timeout(Duration::from_secs(20))
        .on_url(|url| {
            let url = url.clone();
            tokio::spawn(async move {
                let page = reqwest::get(url).await.unwrap().text().await.unwrap();
                assert!(page.contains("Authorization complete"), "{page}");
            });
        });
    let oauth = OAuthClient::builder(&s.endpoint)
        .user_agent(Arc::new(agent))
        .build()
        .unwrap();
    let client = s.connect(oauth).await.unwrap();
    assert!(
        call_text(&client, "whoami")
            .await
            .unwrap()
            .contains("user-1")
    );
    client.close().await;
}

/// `reqwest` here has no `json` feature.
trait JsonValue {
    async fn json_value(self) -> Value;
}

impl JsonValue for reqwest::Response {
    async fn json_value(self) -> Value {
        serde_json::from_str(&self.text().await.unwrap()).unwrap()
    }
}

#[tokio::test]
async fn authorizing_before_connecting_uses_the_well_known_metadata() {
    let s = setup(Quirks::default()).await;
    let oauth = s.oauth();
    oauth.authorize().await.unwrap();
    // Without a challenge, the scopes come from scopes_supported.
    assert_eq!(
        s.log(),
        [
            "register",
            "authorize mcp:read mcp:admin",
            "token authorization_code"
        ]
    );
    let client = s.connect(oauth.clone()).await.unwrap();
    assert!(
        call_text(&client, "admin")
            .await
            .unwrap()
            .contains("admin done")
    );
    assert_eq!(s.count("authorize"), 1);
    client.close().await;
    oauth.sign_out().await.unwrap();
    assert!(oauth.tokens().await.unwrap().is_none());
}

/// Enterprise-managed authorization: the ID token is exchanged at the
/// identity provider for an ID-JAG, which the JWT bearer grant presents.
fn enterprise_oauth(s: &Setup) -> Arc<OAuthClient> {
    let exchange = IdJagExchange::new(
        format!("{}/idp/token", s.authorization_server.issuer),
        ClientCredentials::new("idp-client"),
        AssertionSource::Token(Secret::new("id-token-1")),
    );
    OAuthClient::builder(&s.endpoint)
        .pre_registered(ClientCredentials::new("mcp-client"))
        .grant(GrantKind::JwtBearer)
        .assertion(AssertionSource::IdJag(exchange))
        .build()
        .unwrap()
}

#[tokio::test]
async fn enterprise_managed_authorization_exchanges_then_presents_an_id_jag() {
    let s = setup(Quirks::default()).await;
    let client = s.connect(enterprise_oauth(&s)).await.unwrap();
    assert!(
        call_text(&client, "whoami")
            .await
            .unwrap()
            .contains("user-1")
    );
    assert_eq!(
        s.log(),
        [
            "idp urn:ietf:params:oauth:grant-type:token-exchange",
            "token urn:ietf:params:oauth:grant-type:jwt-bearer"
        ]
    );
    client.close().await;
}

#[tokio::test]
async fn an_identity_provider_that_issues_no_id_jag_is_a_clear_error() {
    let s = setup(Quirks {
        idp_wrong_type: true,
        ..Quirks::default()
    })
    .await;
    let e = s.connect(enterprise_oauth(&s)).await.unwrap_err();
    assert!(
        matches!(&e, mcp_core::Error::Auth(m) if m.contains("instead of an ID-JAG")),
        "{e}"
    );
    // Nothing reached the MCP server's authorization server.
    assert_eq!(s.count("token"), 0, "{:?}", s.log());
}

#[tokio::test]
async fn a_bearer_token_where_dpop_was_asked_for_is_a_clear_error() {
    let s = setup(Quirks {
        dpop_offered_bearer_issued: true,
        ..Quirks::default()
    })
    .await;
    let e = s.connect(s.oauth()).await.unwrap_err();
    assert!(
        matches!(&e, mcp_core::Error::Auth(m)
            if m.contains("issued a `Bearer` token where a DPoP token was asked for")),
        "{e}"
    );
    assert!(
        s.log()
            .contains(&"token authorization_code with a DPoP proof".to_string()),
        "{:?}",
        s.log()
    );
}
