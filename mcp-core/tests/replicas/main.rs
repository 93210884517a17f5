//! Several Streamable HTTP servers sharing sessions and changes through a
//! store (the in-memory one here; `tests/deploy/run.sh` runs Redis), each a
//! "replica" on its own port, with raw HTTP requests going to one or the
//! other; and the failures of a store.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use mcp_core::auth::{AuthInfo, ProtectedResource, TokenError, TokenValidator};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::{LoggingLevel, ReadResourceResult};
use mcp_core::server::{ResourceDef, Server, ToolDef};
use mcp_core::store::{InMemoryBus, InMemorySessionStore, SessionStore, StoreError, StoreResult};
use serde_json::{Map, Value, json};

mod leases;
mod tasks;

const WATCHED: &str = "test://watched";

fn server() -> Server {
    Server::builder("replica", "1")
        .tool(
            ToolDef::new(
                "log",
                "Logs at info",
                |_: Map<String, Value>, cx| async move {
                    cx.log(LoggingLevel::Info, None, json!("info")).await.ok();
                    Ok::<_, String>("logged")
                },
            )
            .unwrap(),
        )
        .resource(ResourceDef::new(
            WATCHED,
            "watched",
            |uri, _cx| async move { Ok(ReadResourceResult::text(uri, None, "v1")) },
        ))
        .build()
}

async fn replica(config: HttpServerConfig) -> (String, Server) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let server = server();
    tokio::spawn(StreamableHttpServer::new(server.clone(), config).serve(listener));
    (format!("http://{addr}/mcp"), server)
}

/// A fresh in-memory session store and bus for replicas to share.
fn store_and_bus() -> (Arc<InMemorySessionStore>, Arc<InMemoryBus>) {
    (
        Arc::new(InMemorySessionStore::new()),
        Arc::new(InMemoryBus::new()),
    )
}

/// Opens the session's GET stream on `url` (checked: 200).
async fn open_stream(url: &str, session: &str) -> reqwest::Response {
    let get = reqwest::Client::new()
        .get(url)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    get
}

fn shared(store: &Arc<InMemorySessionStore>, bus: &Arc<InMemoryBus>) -> HttpServerConfig {
    HttpServerConfig::default()
        .session_store(store.clone())
        .bus(bus.clone())
}

struct Reply {
    status: u16,
    session: Option<String>,
    /// Every JSON-RPC message of the body (one for JSON, each event for SSE).
    messages: Vec<Value>,
}

async fn post(url: &str, session: Option<&str>, message: Value) -> Reply {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25");
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let messages = if text.trim_start().starts_with('{') {
        vec![serde_json::from_str(&text).unwrap()]
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter(|d| !d.trim().is_empty())
            .map(|d| serde_json::from_str(d.trim()).unwrap())
            .collect()
    };
    Reply {
        status,
        session,
        messages,
    }
}

async fn open(url: &str) -> String {
    let reply = post(
        url,
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(reply.status, 200, "{:?}", reply.messages);
    let session = reply.session.unwrap();
    let reply = post(
        url,
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(reply.status, 202);
    session
}

async fn call(url: &str, session: &str, id: i64, method: &str, params: Value) -> Reply {
    post(
        url,
        Some(session),
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
    .await
}

fn logs(reply: &Reply) -> usize {
    reply
        .messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .count()
}

#[tokio::test]
async fn a_session_moves_between_replicas_with_its_level_and_subscriptions() {
    let (store, bus) = store_and_bus();
    let (a, _) = replica(shared(&store, &bus)).await;
    let (b, server_b) = replica(shared(&store, &bus)).await;
    let session = open(&a).await;

    // Served by B, which never saw the handshake; logs pass by default.
    let reply = call(&b, &session, 1, "tools/call", json!({"name": "log"})).await;
    assert_eq!(reply.status, 200);
    assert_eq!(logs(&reply), 1);

    // The level set on A holds on B.
    let reply = call(
        &a,
        &session,
        2,
        "logging/setLevel",
        json!({"level": "error"}),
    )
    .await;
    assert_eq!(reply.status, 200);
    let reply = call(&b, &session, 3, "tools/call", json!({"name": "log"})).await;
    assert_eq!(logs(&reply), 0, "{:?}", reply.messages);

    // A GET stream held by A hears of an update B announces, for a
    // subscription made on B.
    let get = open_stream(&a, &session).await;
    let reply = call(
        &b,
        &session,
        4,
        "resources/subscribe",
        json!({"uri": WATCHED}),
    )
    .await;
    assert_eq!(reply.status, 200, "{:?}", reply.messages);
    let mut body = get.bytes_stream();
    let mut seen = String::new();
    let heard = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            // Repeated until heard: the change and A's refresh of the
            // session travel separately.
            server_b.notify_resource_updated(WATCHED).await;
            if let Ok(Some(Ok(chunk))) =
                tokio::time::timeout(Duration::from_millis(200), body.next()).await
            {
                seen.push_str(&String::from_utf8_lossy(&chunk));
                if seen.contains("notifications/resources/updated") {
                    return;
                }
            }
        }
    })
    .await;
    assert!(heard.is_ok(), "A's stream got: {seen}");
}

#[tokio::test]
async fn a_deleted_session_is_gone_on_every_replica() {
    let (store, bus) = store_and_bus();
    let (a, _) = replica(shared(&store, &bus)).await;
    let (b, _) = replica(shared(&store, &bus)).await;
    let session = open(&a).await;
    assert_eq!(
        call(&b, &session, 1, "tools/list", json!({})).await.status,
        200
    );
    let deleted = reqwest::Client::new()
        .delete(&b)
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    for url in [&a, &b] {
        assert_eq!(
            call(url, &session, 2, "tools/list", json!({})).await.status,
            404
        );
    }
}

#[tokio::test]
async fn without_a_store_a_session_lives_on_its_replica_only() {
    let (a, _) = replica(HttpServerConfig::default()).await;
    let (b, _) = replica(HttpServerConfig::default()).await;
    let session = open(&a).await;
    assert_eq!(
        call(&a, &session, 1, "tools/list", json!({})).await.status,
        200
    );
    assert_eq!(
        call(&b, &session, 1, "tools/list", json!({})).await.status,
        404
    );
}

/// A store that is down.
#[derive(Debug)]
struct Down;

fn down() -> StoreError {
    StoreError {
        store: "down://nowhere".into(),
        message: "connection refused".into(),
    }
}

#[async_trait]
impl SessionStore for Down {
    async fn create(&self, _: &str, _: &str, _: Duration) -> StoreResult<bool> {
        Err(down())
    }
    async fn update(&self, _: &str, _: &str, _: Duration) -> StoreResult<bool> {
        Err(down())
    }
    async fn load(&self, _: &str, _: Duration) -> StoreResult<Option<String>> {
        Err(down())
    }
    async fn delete(&self, _: &str) -> StoreResult<bool> {
        Err(down())
    }
    async fn shared_secret(&self, _: &str) -> StoreResult<[u8; 32]> {
        Err(down())
    }
}

#[tokio::test]
async fn a_store_that_is_down_is_503_with_a_json_rpc_error() {
    let (url, _) = replica(HttpServerConfig::default().session_store(Arc::new(Down))).await;
    let reply = post(
        &url,
        None,
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(reply.status, 503);
    let error = &reply.messages[0]["error"];
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("down://nowhere"),
        "{error}"
    );
    assert!(reply.session.is_none());
    // Nothing was left behind: the next request of that session is refused too.
    let reply = call(&url, "0123", 1, "tools/list", json!({})).await;
    assert_eq!(reply.status, 503);
}

/// Tokens `alice` and `bob`, each its own subject.
struct Named;

#[async_trait]
impl TokenValidator for Named {
    async fn validate(&self, token: &str) -> Result<AuthInfo, TokenError> {
        Ok(AuthInfo::new(token, RESOURCE, ["mcp"]))
    }
}

const RESOURCE: &str = "http://127.0.0.1/mcp";

async fn status_as(
    url: &str,
    session: Option<&str>,
    token: &str,
    message: Value,
) -> (u16, Option<String>) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("Content-Type", "application/json")
        .header("Authorization", format!("Bearer {token}"))
        .body(message.to_string());
    if let Some(session) = session {
        request = request
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25");
    }
    let response = request.send().await.unwrap();
    let session = response
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_string());
    (response.status().as_u16(), session)
}

#[tokio::test]
async fn a_session_belongs_to_its_subject_on_every_replica() {
    let (store, bus) = store_and_bus();
    let protected = || {
        ProtectedResource::builder(RESOURCE, ["http://127.0.0.1/issuer"], Named)
            .build()
            .unwrap()
    };
    let (a, _) = replica(shared(&store, &bus).protected_resource(protected())).await;
    let (b, _) = replica(shared(&store, &bus).protected_resource(protected())).await;
    let (status, session) = status_as(
        &a,
        None,
        "alice",
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await;
    assert_eq!(status, 200);
    let session = session.unwrap();
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let (status, _) = status_as(&b, Some(&session), "bob", list.clone()).await;
    assert_eq!(
        status, 403,
        "another subject on a replica that never saw the session"
    );
    let (status, _) = status_as(&b, Some(&session), "alice", list).await;
    assert_eq!(status, 200);
}
