//! Tasks across replicas: created through one, polled, answered and
//! cancelled through the others.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::server::{Server, ToolDef};
use mcp_core::store::InMemoryTaskStore;
use serde_json::{Value, json};

use crate::{Reply, call, open, open_stream, shared, store_and_bus};

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
    let ask = mcp_test_support::asking_tool().task_support(Optional);
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
    let (store, bus) = store_and_bus();
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
    let json = mcp_test_support::answer_json(&text);
    serde_json::from_str(json).unwrap_or(Value::Null)
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
    let get = open_stream(b, &session).await;
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
