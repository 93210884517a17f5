//! The client's task API over both revisions: under 2026-07-28 the tasks
//! extension (`io.modelcontextprotocol/tasks`: a `tools/call` answered with
//! a task, `tasks/get|update|cancel`, the task's input requests answered
//! with the user's handlers), in-memory and over Streamable HTTP; the same
//! calls in a 2025-11-25 session. The server side is `tasks_extension.rs`'s.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::client::{Client, ClientBuilder, Negotiation, ToolTaskStart};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolResult, ElicitResult, ElicitResultAction, TaskStatus, ToolExecutionTaskSupport,
};
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::{InboundFrame, OutboundKind, OutboundMessage, Transport, memory_pair};
use mcp_core::{Error, ProtocolVersion};
use serde_json::{Value, json};

fn server() -> Server {
    use ToolExecutionTaskSupport::Optional;
    let no_params = || json!({"type": "object", "properties": {}});
    let slow = ToolDef::raw(
        "slow",
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
        |args, cx| async move {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = cx.cancellation().cancelled() => return CallToolResult::error("stopped"),
            }
            CallToolResult::text(format!("slept {ms} ms"))
        },
    )
    .unwrap()
    .task_support(Optional);
    let ask = ToolDef::raw("ask", no_params(), |_, cx| async move {
        // Waits first, so that the question comes while the call is a task.
        tokio::time::sleep(Duration::from_millis(20)).await;
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
    let boom = ToolDef::fallible("boom", no_params(), |_, _| async {
        tokio::time::sleep(Duration::from_millis(5)).await;
        Err(RpcError::internal("boom"))
    })
    .unwrap()
    .task_support(Optional);
    let sync = ToolDef::raw("sync", no_params(), |_, _| async {
        CallToolResult::text("sync")
    })
    .unwrap();
    Server::builder("client-tasks", "1")
        .tool(slow)
        .tool(ask)
        .tool(boom)
        .tool(sync)
        .build()
}

/// A client whose elicitation handler accepts, counting the questions.
fn client(asked: Arc<AtomicUsize>) -> ClientBuilder {
    Client::builder("c", "1").on_elicitation(false, move |_, _| {
        asked.fetch_add(1, Ordering::SeqCst);
        async {
            Ok(ElicitResult {
                content: None,
                ..ElicitResult::new(ElicitResultAction::Accept)
            })
        }
    })
}

fn text(result: &CallToolResult) -> String {
    common::text(result, 0).to_string()
}

fn args(value: Value) -> Option<serde_json::Map<String, Value>> {
    Some(common::obj(value))
}

async fn in_memory(builder: ClientBuilder) -> (Client, mcp_core::server::ServerSession) {
    let (a, b) = memory_pair();
    let session = server().serve(b).unwrap();
    (builder.connect(a).await.unwrap(), session)
}

fn task_of(start: ToolTaskStart) -> mcp_core::schema::Task {
    match start {
        ToolTaskStart::Task(task) => task,
        other => panic!("not a task: {other:?}"),
    }
}

/// Runs every check of the task API against a connected client.
async fn the_task_api(client: &Client, asked: &AtomicUsize) {
    // A task, polled to its end.
    let task = task_of(
        client
            .start_tool_task("slow", args(json!({"ms": 50})), None)
            .await
            .unwrap(),
    );
    let polled = client.get_task(&task.task_id).await.unwrap();
    assert_eq!(polled.task_id, task.task_id);
    let result = client.await_tool_task(&task.task_id).await.unwrap();
    assert_eq!(text(&result), "slept 50 ms");
    assert_eq!(
        client.get_task(&task.task_id).await.unwrap().status,
        TaskStatus::Completed
    );

    // A task that asks: answered through the elicitation handler.
    let before = asked.load(Ordering::SeqCst);
    let task = task_of(client.start_tool_task("ask", None, None).await.unwrap());
    let result = client.await_tool_task(&task.task_id).await.unwrap();
    assert_eq!(text(&result), "answered accept");
    assert_eq!(asked.load(Ordering::SeqCst), before + 1);

    // A long task cancelled.
    let long = task_of(
        client
            .start_tool_task("slow", args(json!({"ms": 60_000})), None)
            .await
            .unwrap(),
    );
    let cancelled = client.cancel_task(&long.task_id).await.unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    assert_eq!(
        client.get_task(&long.task_id).await.unwrap().status,
        TaskStatus::Cancelled
    );

    // Unknown tasks: a clear error.
    assert!(matches!(
        client.get_task("nope").await.unwrap_err(),
        Error::Rpc(_)
    ));
}

#[tokio::test]
async fn extension_tasks_in_memory() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (client, _session) = in_memory(client(asked.clone())).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert!(client.offers_tasks_extension());
    the_task_api(&client, &asked).await;

    // A failing task's error is the call's.
    let task = task_of(client.start_tool_task("boom", None, None).await.unwrap());
    match client.await_tool_task(&task.task_id).await.unwrap_err() {
        Error::Rpc(e) => assert!(e.message.contains("boom"), "{e}"),
        other => panic!("not the task's error: {other:?}"),
    }
    // A cancelled task ends its wait with Cancelled.
    let long = task_of(
        client
            .start_tool_task("slow", args(json!({"ms": 60_000})), None)
            .await
            .unwrap(),
    );
    let waiting = {
        let id = long.task_id.clone();
        let client = &client;
        async move { client.await_tool_task(&id).await }
    };
    let (waited, cancelled) = tokio::join!(waiting, async {
        tokio::time::sleep(Duration::from_millis(30)).await;
        client.cancel_task(&long.task_id).await
    });
    cancelled.unwrap();
    assert!(matches!(waited, Err(Error::Cancelled(_))), "{waited:?}");
    // A tool that does not run as a task answers at once.
    match client.start_tool_task("sync", None, None).await.unwrap() {
        ToolTaskStart::Done(result) => assert_eq!(text(&result), "sync"),
        other => panic!("not a final result: {other:?}"),
    }
    assert!(client.call_tool_as_task("sync", None, None).await.is_err());
    // The extension has no listing.
    assert!(client.list_tasks(None).await.is_err());
    // Without the opt-in, a plain call never becomes a task.
    let plain = client
        .call_tool("slow", args(json!({"ms": 1})))
        .await
        .unwrap();
    assert_eq!(text(&plain), "slept 1 ms");
    client.close().await;
}

#[tokio::test]
async fn opted_in_calls_wait_for_their_tasks() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (client, _session) = in_memory(client(asked.clone()).tasks_extension(true)).await;
    let result = client.call_tool("ask", None).await.unwrap();
    assert_eq!(text(&result), "answered accept");
    assert_eq!(asked.load(Ordering::SeqCst), 1);
    let result = client
        .call_tool("slow", args(json!({"ms": 20})))
        .await
        .unwrap();
    assert_eq!(text(&result), "slept 20 ms");
    let err = client.call_tool("boom", None).await.unwrap_err();
    assert!(matches!(err, Error::Rpc(_)), "{err:?}");
    client.close().await;
}

#[tokio::test]
async fn task_waits_are_bounded() {
    let (client, _session) = in_memory(
        client(Arc::new(AtomicUsize::new(0))).task_wait_limit(Duration::from_millis(100)),
    )
    .await;
    let long = task_of(
        client
            .start_tool_task("slow", args(json!({"ms": 60_000})), None)
            .await
            .unwrap(),
    );
    let err = client.await_tool_task(&long.task_id).await.unwrap_err();
    assert!(err.to_string().contains("task_wait_limit"), "{err}");
    client.cancel_task(&long.task_id).await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn extension_tasks_over_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(StreamableHttpServer::new(server(), HttpServerConfig::default()).serve(listener));
    let asked = Arc::new(AtomicUsize::new(0));
    let client = client(asked.clone())
        .connect(StreamableHttpClient::new(format!("http://{addr}/mcp")))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    the_task_api(&client, &asked).await;
    client.close().await;
}

#[tokio::test]
async fn the_same_calls_in_a_2025_session() {
    let asked = Arc::new(AtomicUsize::new(0));
    let (client, _session) =
        in_memory(client(asked.clone()).negotiation(Negotiation::Legacy)).await;
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert!(!client.offers_tasks_extension());
    the_task_api(&client, &asked).await;
    assert!(client.list_tasks(None).await.is_ok());
    client.close().await;
}

/// A scripted 2026-07-28 server on the far end of an in-memory pair that
/// offers the tasks extension: `answer` gets each request (method, params)
/// and returns its `result` (or `error`, with a `code`).
fn scripted(answer: impl Fn(&str, &Value) -> Value + Send + 'static) -> impl Transport {
    let (a, b) = memory_pair();
    let mut handle = b.start().unwrap();
    tokio::spawn(async move {
        while let Some(InboundFrame::Message(text)) = handle.inbound.recv().await {
            let message: Value = serde_json::from_str(&text).unwrap();
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let reply = if method == "server/discover" {
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
                       "capabilities": {"tools": {}, "extensions": {TASKS: {}}},
                       "ttlMs": 0, "cacheScope": "private",
                       "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
            } else {
                answer(method, &message["params"])
            };
            let key = if reply.get("code").is_some() {
                "error"
            } else {
                "result"
            };
            let response = json!({"jsonrpc": "2.0", "id": id, key: reply});
            let out = OutboundMessage {
                text: response.to_string(),
                kind: OutboundKind::Response,
                related: None,
            };
            if handle.outbound.send(out).await.is_err() {
                break;
            }
        }
    });
    a
}

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn wire_task(id: &str, status: &str) -> Value {
    json!({"taskId": id, "status": status, "createdAt": "2026-01-01T00:00:00Z",
           "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": null, "pollIntervalMs": 10})
}

#[tokio::test]
async fn malformed_task_answers_are_clear_errors() {
    let transport = scripted(|method, params| {
        let declared = params["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
            .get(TASKS)
            .is_some();
        let id = params["taskId"].as_str().unwrap_or_default();
        match method {
            "tools/call" => match params["name"].as_str() {
                Some("noid") => json!({"resultType": "task", "status": "working"}),
                // A task whatever the client declared.
                Some(name) => {
                    let mut task = wire_task(name, "working");
                    task["resultType"] = json!("task");
                    task
                }
                None => json!({"code": -32602, "message": "no name"}),
            },
            _ if !declared => json!({"code": -32021, "message": "declare the extension"}),
            "tasks/get" => match id {
                "silent" => wire_task(id, "input_required"),
                "swapped" => wire_task("other", "working"),
                "done_empty" => wire_task(id, "completed"),
                _ => {
                    let mut task = wire_task(id, "input_required");
                    task["inputRequests"] = json!({"q": {"method": "elicitation/create",
                        "params": {"mode": "form", "message": "Again?",
                                   "requestedSchema": {"type": "object", "properties": {}}}}});
                    task
                }
            },
            "tasks/update" => json!({}),
            _ => json!({"code": -32601, "message": "no"}),
        }
    });
    let asked = Arc::new(AtomicUsize::new(0));
    let client = client(asked.clone())
        .max_input_rounds(2)
        .connect(transport)
        .await
        .unwrap();
    assert!(client.offers_tasks_extension());
    // A task to a call that did not allow one.
    let error = client
        .call_tool("plain", None)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("did not allow"), "{error}");
    // A task without an id.
    let error = client
        .start_tool_task("noid", None, None)
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("malformed `tools/call` answer"),
        "{error}"
    );
    for (task, expected) in [
        ("silent", "lists no inputRequests"),
        ("swapped", "answered with task `other`"),
        ("done_empty", "completed but has no result"),
        ("forever", "still needs input after 2 rounds"),
    ] {
        let started = task_of(client.start_tool_task(task, None, None).await.unwrap());
        let error = client.await_tool_task(&started.task_id).await.unwrap_err();
        assert!(error.to_string().contains(expected), "{task}: {error}");
    }
    assert_eq!(asked.load(Ordering::SeqCst), 2, "two rounds answered");
    client.close().await;
}
