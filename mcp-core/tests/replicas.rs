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
use mcp_core::schema::{LoggingLevel, ReadResourceResult};
use mcp_core::server::{ResourceDef, Server, ToolDef};
use mcp_core::store::{
    InMemoryBus, InMemorySessionStore, InMemoryTaskStore, SessionStore, StoreError, StoreResult,
};
use mcp_core::transport::http::{HttpServerConfig, StreamableHttpServer};
use serde_json::{Map, Value, json};

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
    let (store, bus) = (
        Arc::new(InMemorySessionStore::new()),
        Arc::new(InMemoryBus::new()),
    );
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
    let get = reqwest::Client::new()
        .get(&a)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
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
    let (store, bus) = (
        Arc::new(InMemorySessionStore::new()),
        Arc::new(InMemoryBus::new()),
    );
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
    let (store, bus) = (
        Arc::new(InMemorySessionStore::new()),
        Arc::new(InMemoryBus::new()),
    );
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

// ---- Tasks across replicas ----

/// A server with task tools: `wait` runs until cancelled (then says so on
/// `stopped`), `quick` answers at once, `ask` asks the client first.
fn task_server(stopped: Arc<tokio::sync::Notify>) -> Server {
    use mcp_core::schema::{CallToolResult, ToolExecutionTaskSupport::Optional};
    let no_params = || json!({"type": "object", "properties": {}});
    let wait = ToolDef::raw("wait", no_params(), move |_, cx| {
        let stopped = stopped.clone();
        async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_secs(60)) => {}
                () = cx.cancellation().cancelled() => stopped.notify_one(),
            }
            CallToolResult::text("waited")
        }
    })
    .unwrap()
    .task_support(Optional);
    let quick = ToolDef::raw("quick", no_params(), |_, _| async {
        CallToolResult::text("quick result")
    })
    .unwrap()
    .task_support(Optional);
    let ask = ToolDef::raw("ask", no_params(), |_, cx| async move {
        let params = serde_json::from_value(json!({
            "mode": "form", "message": "Go?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        }))
        .unwrap();
        match cx.elicit(params).await {
            Ok(answer) => CallToolResult::text(format!("answered {}", answer.action)),
            Err(e) => CallToolResult::error(e.to_string()),
        }
    })
    .unwrap()
    .task_support(Optional);
    Server::builder("tasks", "1")
        .tool(wait)
        .tool(quick)
        .tool(ask)
        .build()
}

/// A replica of [`task_server`]; abort the handle to stop serving.
async fn task_replica(
    config: HttpServerConfig,
    stopped: Arc<tokio::sync::Notify>,
) -> (String, tokio::task::JoinHandle<std::io::Result<()>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(task_server(stopped), config);
    (
        format!("http://{addr}/mcp"),
        tokio::spawn(http.serve(listener)),
    )
}

/// Three replicas sharing sessions, the bus and tasks; the notify of each
/// fires when a `wait` task's work on it is stopped.
async fn three_task_replicas() -> Vec<(
    String,
    tokio::task::JoinHandle<std::io::Result<()>>,
    Arc<tokio::sync::Notify>,
)> {
    let (store, bus) = (
        Arc::new(InMemorySessionStore::new()),
        Arc::new(InMemoryBus::new()),
    );
    let tasks = Arc::new(InMemoryTaskStore::default());
    let mut replicas = Vec::new();
    for _ in 0..3 {
        let stopped = Arc::new(tokio::sync::Notify::new());
        let config = shared(&store, &bus).task_store(tasks.clone());
        let (url, handle) = task_replica(config, stopped.clone()).await;
        replicas.push((url, handle, stopped));
    }
    replicas
}

fn result_of(reply: &Reply) -> Value {
    reply
        .messages
        .iter()
        .rfind(|m| m.get("id").is_some())
        .map_or(Value::Null, |m| m.clone())
}

#[tokio::test]
async fn a_task_is_polled_cancelled_and_read_through_other_replicas() {
    let replicas = three_task_replicas().await;
    let (a, b, c) = (&replicas[0].0, &replicas[1].0, &replicas[2].0);
    let session = open(a).await;

    // Created through A, polled through B, listed through C.
    let created = call(
        a,
        &session,
        1,
        "tools/call",
        json!({"name": "wait", "task": {"ttl": 60_000}}),
    )
    .await;
    let created = result_of(&created);
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_string();
    let got = result_of(&call(b, &session, 2, "tasks/get", json!({"taskId": id})).await);
    assert_eq!(got["result"]["status"], "working", "{got}");
    let listed = result_of(&call(c, &session, 3, "tasks/list", json!({})).await);
    assert_eq!(
        listed["result"]["tasks"][0]["taskId"],
        json!(id),
        "{listed}"
    );

    // Cancelled through C: the work on A stops, B sees it cancelled.
    let cancelled = result_of(&call(c, &session, 4, "tasks/cancel", json!({"taskId": id})).await);
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    tokio::time::timeout(Duration::from_secs(2), replicas[0].2.notified())
        .await
        .expect("the work on A stops within about a second");
    let got = result_of(&call(b, &session, 5, "tasks/get", json!({"taskId": id})).await);
    assert_eq!(got["result"]["status"], "cancelled", "{got}");

    // A finished task's result stays readable through B after A is gone.
    let created = result_of(
        &call(
            a,
            &session,
            6,
            "tools/call",
            json!({"name": "quick", "task": {}}),
        )
        .await,
    );
    let id = created["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_string();
    let waited = result_of(&call(b, &session, 7, "tasks/result", json!({"taskId": id})).await);
    assert_eq!(
        waited["result"]["content"][0]["text"], "quick result",
        "{waited}"
    );
    replicas[0].1.abort();
    let again = result_of(&call(c, &session, 8, "tasks/result", json!({"taskId": id})).await);
    assert_eq!(
        again["result"]["content"][0]["text"], "quick result",
        "{again}"
    );
    // Another session does not see the task.
    let other = open(b).await;
    let hidden = result_of(&call(c, &other, 9, "tasks/get", json!({"taskId": id})).await);
    assert!(hidden.get("error").is_some(), "{hidden}");
}

/// One stateless 2026-07-28 POST declaring the tasks extension; the
/// JSON-RPC answer.
async fn post_2026(url: &str, method: &str, mut params: Value, name: &str) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {},
            "extensions": {"io.modelcontextprotocol/tasks": {}},
        },
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .header("mcp-name", name)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let text = response.text().await.unwrap();
    let json = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .rfind(|d| !d.trim().is_empty())
        .map_or_else(|| text.clone(), str::to_string);
    serde_json::from_str(&json).unwrap_or(Value::Null)
}

/// `tasks/get` through `url` until `done` holds (bounded); the last task.
async fn poll_2026(url: &str, id: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut last = Value::Null;
    for _ in 0..200 {
        last = post_2026(url, "tasks/get", json!({"taskId": id}), id).await["result"].clone();
        if done(&last) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    last
}

#[tokio::test]
async fn extension_tasks_are_answered_and_cancelled_through_other_replicas() {
    let replicas = three_task_replicas().await;
    let (a, b, c) = (&replicas[0].0, &replicas[1].0, &replicas[2].0);

    // Asks through A's task; the question shows through B; answered
    // through C; the result shows through B.
    let created = post_2026(a, "tools/call", json!({"name": "ask"}), "ask").await;
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("{created}"))
        .to_string();
    let asking = poll_2026(b, &id, |t| t["inputRequests"].is_object()).await;
    let key = asking["inputRequests"]
        .as_object()
        .and_then(|r| r.keys().next().cloned())
        .unwrap_or_else(|| panic!("{asking}"));
    let answer = json!({"taskId": id, "inputResponses": {key: {"action": "accept"}}});
    let ack = post_2026(c, "tasks/update", answer, &id).await;
    assert!(ack.get("result").is_some(), "{ack}");
    let done = poll_2026(b, &id, |t| t["status"] == "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "answered accept",
        "{done}"
    );

    // Runs on A, cancelled through C: the work on A stops.
    let created = post_2026(a, "tools/call", json!({"name": "wait"}), "wait").await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    assert_eq!(poll_2026(b, &id, |_| true).await["status"], "working");
    let ack = post_2026(c, "tasks/cancel", json!({"taskId": id}), &id).await;
    assert!(ack.get("result").is_some(), "{ack}");
    tokio::time::timeout(Duration::from_secs(2), replicas[0].2.notified())
        .await
        .expect("the work on A stops within about a second");
    assert_eq!(poll_2026(b, &id, |_| true).await["status"], "cancelled");
}

#[tokio::test]
async fn a_task_status_reaches_the_get_stream_another_replica_holds() {
    let replicas = three_task_replicas().await;
    let (a, b) = (&replicas[0].0, &replicas[1].0);
    let session = open(a).await;
    let get = reqwest::Client::new()
        .get(b)
        .header("Accept", "text/event-stream")
        .header("Mcp-Session-Id", &session)
        .header("MCP-Protocol-Version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 200);
    let created = result_of(
        &call(
            a,
            &session,
            1,
            "tools/call",
            json!({"name": "quick", "task": {}}),
        )
        .await,
    );
    assert!(created["result"]["task"]["taskId"].is_string(), "{created}");
    let mut body = get.bytes_stream();
    let mut seen = String::new();
    let heard = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(Ok(chunk)) = body.next().await {
            seen.push_str(&String::from_utf8_lossy(&chunk));
            if seen.contains("notifications/tasks/status") && seen.contains("\"completed\"") {
                return;
            }
        }
    })
    .await;
    assert!(heard.is_ok(), "B's GET stream got: {seen}");
}
