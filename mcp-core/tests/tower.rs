//! The Streamable HTTP endpoint as a plain `tower::Service`: created outside
//! a Tokio runtime without a panic, served through `oneshot` and behind a
//! tower layer of the host application that hands an identity to tools
//! through request extensions, in a 2025-11-25 session (each POST its own
//! request head) and in requests that stand alone (2026-07-28).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use serde_json::{Map, Value, json};
use tower::{Service, ServiceExt};

/// What the host application's layer hands to tools.
#[derive(Clone, Debug)]
struct Identity(String);

/// A server whose `whoami` tool answers with what the HTTP request carried:
/// the identity the layer inserted, a header, the peer address, the method.
fn server() -> Server {
    let whoami = ToolDef::new(
        "whoami",
        "Who is calling",
        |_: Map<String, Value>, cx| async move {
            let Some(parts) = cx.http_parts() else {
                return Ok::<_, String>("no http".to_string());
            };
            let identity = parts
                .extensions
                .get::<Identity>()
                .map_or("anonymous", |i| i.0.as_str());
            let header = parts
                .headers
                .get("x-request-tag")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("-");
            let peer = cx.peer_addr().map_or("-".into(), |a| a.ip().to_string());
            Ok(format!("{identity} {header} {peer} {}", parts.method))
        },
    )
    .unwrap();
    Server::builder("tower-test", "1.0.0").tool(whoami).build()
}

fn initialize() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}})
    .to_string()
}

fn post(body: String) -> http::Request<String> {
    http::Request::post("/anywhere")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body)
        .unwrap()
}

async fn body_text(response: http::Response<mcp_core::http::ResponseBody>) -> String {
    let body = axum::body::Body::new(response.into_body());
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap();
    String::from_utf8(bytes.to_vec()).unwrap()
}

#[test]
fn created_outside_a_runtime_it_starts_with_the_first_request() {
    // No runtime here: neither constructor may panic.
    let config = HttpServerConfig::default()
        .json_response(true)
        .idle_timeout(Duration::from_millis(200));
    let endpoint = StreamableHttpServer::new(server(), config.clone());
    let _other = StreamableHttpServer::with_handler(
        std::sync::Arc::new(server()),
        mcp_core::session::SessionConfig::default(),
        config,
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let response = endpoint.clone().oneshot(post(initialize())).await.unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.headers().contains_key("mcp-session-id"));
        let text = body_text(response).await;
        assert!(
            text.contains("\"protocolVersion\":\"2025-11-25\""),
            "{text}"
        );
        assert_eq!(endpoint.session_count(), 1);
        // The idle reaper started with that request: the session goes.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
        while endpoint.session_count() > 0 {
            assert!(tokio::time::Instant::now() < deadline, "never reaped");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
}

#[tokio::test]
async fn a_plain_service_answers_at_any_path() {
    let mut endpoint = StreamableHttpServer::new(server(), HttpServerConfig::default());
    std::future::poll_fn(|cx| Service::<http::Request<String>>::poll_ready(&mut endpoint, cx))
        .await
        .unwrap();
    let response = endpoint.call(post(initialize())).await.unwrap();
    assert_eq!(response.status(), 200);
    let session = response.headers()["mcp-session-id"].clone();
    // A session's tools/call through the service: the tool sees this POST.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "whoami", "arguments": {}}});
    let mut request = post(call.to_string());
    request.headers_mut().insert("mcp-session-id", session);
    request
        .headers_mut()
        .insert("mcp-protocol-version", "2025-11-25".parse().unwrap());
    request
        .headers_mut()
        .insert("x-request-tag", "t1".parse().unwrap());
    request
        .extensions_mut()
        .insert(Identity("from-extension".into()));
    let response = endpoint.call(request).await.unwrap();
    let text = body_text(response).await;
    assert!(text.contains("from-extension t1 - POST"), "{text}");
}

/// The host application: axum, the endpoint under `/mcp` behind a layer
/// that turns a bearer token into an [`Identity`].
async fn start_host() -> SocketAddr {
    let endpoint = StreamableHttpServer::new(server(), HttpServerConfig::default());
    let authenticated = tower::service_fn(move |mut request: axum::extract::Request| {
        let endpoint = endpoint.clone();
        async move {
            let token = request
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::to_string);
            if let Some(token) = token {
                request.extensions_mut().insert(Identity(token));
            }
            Ok::<_, Infallible>(endpoint.oneshot(request).await.unwrap())
        }
    });
    let app = axum::Router::new().nest_service("/mcp", authenticated);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = app.into_make_service_with_connect_info::<SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

async fn whoami(addr: SocketAddr, negotiation: Negotiation, user: &str, tag: &str) -> String {
    let transport = StreamableHttpClient::new(format!("http://{addr}/mcp"))
        .header("authorization", &format!("Bearer {user}"))
        .unwrap()
        .header("x-request-tag", tag)
        .unwrap();
    let client = Client::builder("tower-test-client", "1")
        .negotiation(negotiation)
        .connect(transport)
        .await
        .unwrap();
    let result = client.call_tool("whoami", None).await.unwrap();
    client.close().await;
    let content = serde_json::to_value(&result.content[0]).unwrap();
    content["text"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn tools_see_the_identity_a_layer_inserted_in_both_revisions() {
    let addr = start_host().await;
    // A 2025-11-25 session: every POST carries its own head.
    let legacy = whoami(addr, Negotiation::Legacy, "alice", "s1").await;
    assert_eq!(legacy, "alice s1 127.0.0.1 POST");
    // 2026-07-28: each request stands alone.
    let modern = whoami(addr, Negotiation::Auto, "bob", "m1").await;
    assert_eq!(modern, "bob m1 127.0.0.1 POST");
}

#[tokio::test]
async fn serve_records_the_peer_address_and_stdio_has_no_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(server(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    let text = whoami(addr, Negotiation::Legacy, "carol", "p").await;
    // `serve` has no auth layer: no identity, but the peer address.
    assert_eq!(text, "anonymous p 127.0.0.1 POST");
    // The same for a request that stands alone.
    let text = whoami(addr, Negotiation::Auto, "dave", "q").await;
    assert_eq!(text, "anonymous q 127.0.0.1 POST");
    // The endpoint is `/mcp` and nothing else (no metadata configured).
    let http = reqwest::Client::new();
    for path in [
        "/",
        "/mcp/",
        "/mcpx",
        "/other/mcp",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let response = http
            .post(format!("http://{addr}{path}"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 404, "{path}");
    }

    let (a, b) = mcp_core::transport::memory_pair();
    let _session = server().serve(b).unwrap();
    let client = Client::builder("c", "1").connect(a).await.unwrap();
    let result = client.call_tool("whoami", None).await.unwrap();
    let text = serde_json::to_value(&result.content[0]).unwrap();
    assert_eq!(text["text"], "no http");
}
