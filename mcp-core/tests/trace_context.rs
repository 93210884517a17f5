//! Trace context in `params._meta`, without OpenTelemetry: a client call made
//! under a context carries `traceparent`, `tracestate` and `baggage`; the
//! server's handler inherits them and its own messages to the client carry
//! them on; a call without a context carries none; a malformed one is
//! ignored and the request still answered. Both revisions, over the
//! in-memory pair, with each side's outgoing messages tapped.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::server::{Server, ToolDef};
use mcp_core::session::RequestOptions;
use mcp_core::telemetry::{TraceContext, current_trace_context, with_trace_context};
use mcp_core::transport::{OutboundMessage, Transport, TransportHandle, memory_pair};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
const WAIT: Duration = Duration::from_secs(30);

/// A transport whose outgoing messages are copied into `sent`.
struct Tap<T> {
    inner: T,
    sent: Arc<Mutex<Vec<Value>>>,
}

impl<T: Transport> Transport for Tap<T> {
    fn start(self) -> mcp_core::Result<TransportHandle> {
        let inner = self.inner.start()?;
        let (tx, mut rx) = mpsc::channel::<OutboundMessage>(64);
        let forward = inner.outbound.clone();
        let sent = self.sent;
        tokio::spawn(async move {
            while let Some(message) = rx.recv().await {
                if let Ok(value) = serde_json::from_str(&message.text) {
                    sent.lock().unwrap().push(value);
                }
                if forward.send(message).await.is_err() {
                    break;
                }
            }
        });
        Ok(TransportHandle {
            outbound: tx,
            ..inner
        })
    }
}

/// A tool that answers with the `traceparent` its handler inherited (or
/// `none`) after sending the client a progress notification.
fn server() -> Server {
    let tool = ToolDef::new(
        "context",
        "Names the trace context it runs in",
        |_: Map<String, Value>, cx| async move {
            let _ = cx
                .peer()
                .notify_raw(
                    "notifications/progress",
                    &json!({"progressToken": 7, "progress": 1}),
                )
                .await;
            Ok::<_, String>(match current_trace_context() {
                Some(context) => {
                    format!("{} {}", context.parent, context.baggage.unwrap_or_default())
                }
                None => "none".to_string(),
            })
        },
    )
    .unwrap();
    Server::builder("trace-test", "1.0.0").tool(tool).build()
}

struct Run {
    client: Client,
    client_sent: Arc<Mutex<Vec<Value>>>,
    server_sent: Arc<Mutex<Vec<Value>>>,
    _session: mcp_core::server::ServerSession,
}

async fn connect(negotiation: Negotiation) -> Run {
    let (a, b) = memory_pair();
    let client_sent = Arc::new(Mutex::new(Vec::new()));
    let server_sent = Arc::new(Mutex::new(Vec::new()));
    let session = server()
        .serve(Tap {
            inner: b,
            sent: server_sent.clone(),
        })
        .unwrap();
    let client = Client::builder("trace-client", "1")
        .negotiation(negotiation)
        .connect(Tap {
            inner: a,
            sent: client_sent.clone(),
        })
        .await
        .unwrap();
    Run {
        client,
        client_sent,
        server_sent,
        _session: session,
    }
}

fn text(result: &mcp_core::schema::CallToolResult) -> String {
    serde_json::to_value(&result.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The last message of `method` in `sent`.
fn last(sent: &Mutex<Vec<Value>>, method: &str) -> Value {
    sent.lock()
        .unwrap()
        .iter()
        .rev()
        .find(|m| m["method"] == method)
        .cloned()
        .unwrap_or_else(|| panic!("no {method} sent"))
}

async fn carried_through(negotiation: Negotiation) {
    let run = connect(negotiation).await;
    let context =
        TraceContext::from_values(PARENT, Some("rojo=00f067aa0ba902b7"), Some("user=alice"))
            .unwrap();

    // Under a context: the request carries it, the handler inherits it, and
    // the handler's notification carries it on.
    let result = tokio::time::timeout(
        WAIT,
        with_trace_context(context, run.client.call_tool("context", None)),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(text(&result), format!("{PARENT} user=alice"));
    let call = last(&run.client_sent, "tools/call");
    let meta = &call["params"]["_meta"];
    assert_eq!(meta["traceparent"], PARENT, "{call}");
    assert_eq!(meta["tracestate"], "rojo=00f067aa0ba902b7", "{call}");
    assert_eq!(meta["baggage"], "user=alice", "{call}");
    assert_eq!(call["params"]["name"], "context");
    let progress = last(&run.server_sent, "notifications/progress");
    assert_eq!(progress["params"]["_meta"]["traceparent"], PARENT);
    assert_eq!(progress["params"]["_meta"]["baggage"], "user=alice");

    // Without one: nothing is written.
    let result = run.client.call_tool("context", None).await.unwrap();
    assert_eq!(text(&result), "none");
    let call = last(&run.client_sent, "tools/call");
    assert!(
        call["params"]["_meta"].get("traceparent").is_none(),
        "{call}"
    );
    let progress = last(&run.server_sent, "notifications/progress");
    assert!(progress["params"].get("_meta").is_none(), "{progress}");

    // Malformed values are ignored: the request is answered as if they
    // were absent.
    for bad in [
        json!("ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        json!("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
        json!("garbage"),
        json!(42),
    ] {
        let mut params = json!({
            "name": "context",
            "_meta": {"traceparent": bad, "baggage": "not baggage"},
        });
        if matches!(negotiation, Negotiation::Auto) {
            // A 2026-07-28 request names its revision and client itself.
            let call = last(&run.client_sent, "tools/call");
            for (key, value) in call["params"]["_meta"].as_object().unwrap() {
                params["_meta"][key] = value.clone();
            }
            params["_meta"]["traceparent"] = bad.clone();
        }
        let raw = run
            .client
            .peer()
            .request_raw("tools/call", &params, RequestOptions::default())
            .await
            .unwrap();
        assert!(raw.get().contains("\"none\""), "{bad}: {}", raw.get());
    }
    run.client.close().await;
}

#[tokio::test]
async fn carried_through_a_2025_session() {
    carried_through(Negotiation::Legacy).await;
}

#[tokio::test]
async fn carried_through_2026_requests() {
    carried_through(Negotiation::Auto).await;
}
