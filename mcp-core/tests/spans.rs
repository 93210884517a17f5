//! The `tracing` spans of sessions and requests, captured by a small
//! subscriber of this test: their fields by OpenTelemetry's conventions for
//! MCP (name, kind, method, id, tool, revision, client, session id,
//! transport, error type and status) on both sides, and their nesting
//! (request under session, the handler's events under the request), for a `tools/call`
//! over the in-memory pair and over Streamable HTTP, in a 2025-11-25 session
//! and as a 2026-07-28 request that stands alone; the prompt a `prompts/get`
//! names, and the outcome of a request the client cancels.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::{CallToolRequestParams, GetPromptResult};
use mcp_core::server::{PromptDef, ResourceDef, Server, ToolDef};
use mcp_core::session::RequestOptions;
use mcp_core::telemetry::{TraceContext, with_trace_context};
use mcp_core::transport::Transport;
use mcp_core::transport::http::StreamableHttpClient;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// A span as the subscriber saw it.
#[derive(Clone, Debug)]
struct Captured {
    name: &'static str,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

/// Every span and event, in memory. Current spans are kept per thread (the
/// tests run on a current-thread runtime).
#[derive(Default)]
struct Capture {
    next: AtomicU64,
    spans: Mutex<BTreeMap<u64, Captured>>,
    /// Each event's message and the span it happened in.
    events: Mutex<Vec<(String, Option<u64>)>>,
    stack: Mutex<Vec<u64>>,
}

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_string(), value.to_string());
    }
}

impl Capture {
    fn current(&self) -> Option<u64> {
        self.stack.lock().unwrap().last().copied()
    }
}

/// The subscriber: a handle on the shared capture.
struct Capturing(Arc<Capture>);

impl Subscriber for Capturing {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let id = self.0.next.fetch_add(1, Ordering::Relaxed) + 1;
        let parent = if attrs.is_root() {
            None
        } else if attrs.is_contextual() {
            self.0.current()
        } else {
            attrs.parent().map(Id::into_u64)
        };
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let span = Captured {
            name: attrs.metadata().name(),
            parent,
            fields,
        };
        self.0.spans.lock().unwrap().insert(id, span);
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(span) = self.0.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let mut fields = BTreeMap::new();
        event.record(&mut Fields(&mut fields));
        let message = fields.remove("message").unwrap_or_default();
        self.0
            .events
            .lock()
            .unwrap()
            .push((message, self.0.current()));
    }

    fn enter(&self, span: &Id) {
        self.0.stack.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut stack = self.0.stack.lock().unwrap();
        if let Some(at) = stack.iter().rposition(|s| *s == span.into_u64()) {
            stack.remove(at);
        }
    }
}

fn server() -> Server {
    let tool = ToolDef::new(
        "traced",
        "Logs an event, then answers",
        |_: Map<String, Value>, _cx| async move {
            tracing::info!("inside the tool");
            Ok::<_, String>("done")
        },
    )
    .unwrap();
    let resource = ResourceDef::new("mem://known", "known", |_uri, _cx| async move {
        Ok(mcp_core::schema::ReadResourceResult::new(vec![]))
    });
    let fails = ToolDef::new("fails", "Fails", |_: Map<String, Value>, _cx| async move {
        Err::<String, _>("it failed".to_string())
    })
    .unwrap();
    Server::builder("span-test", "1.0.0")
        .tool(tool)
        .tool(fails)
        .resource(resource)
        .build()
}

/// Runs a `tools/call` of `traced` and a `resources/read` of an unknown
/// URI through a client connected over `transport` with `negotiation`,
/// captured; returns what was captured.
async fn run(
    capture: &Arc<Capture>,
    transport: impl Transport,
    negotiation: Negotiation,
) -> Vec<Captured> {
    let client = Client::builder("span-client", "7")
        .negotiation(negotiation)
        .connect(transport)
        .await
        .unwrap();
    let failed = client.call_tool("fails", None).await.unwrap();
    assert_eq!(failed.is_error, Some(true));
    let context = TraceContext::from_values(PARENT, None, None).unwrap();
    let result = with_trace_context(context, client.call_tool("traced", None))
        .await
        .unwrap();
    assert_eq!(result.is_error, None);
    assert!(client.read_resource("mem://unknown").await.is_err());
    client.close().await;
    capture.spans.lock().unwrap().values().cloned().collect()
}

fn field<'a>(span: &'a Captured, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

/// The server's request span of `method` (the last one).
fn request<'a>(spans: &'a BTreeMap<u64, Captured>, method: &str) -> (u64, &'a Captured) {
    span_of(spans, method, "server")
}

/// The request span of `method` on side `kind` (the last one).
fn span_of<'a>(
    spans: &'a BTreeMap<u64, Captured>,
    method: &str,
    kind: &str,
) -> (u64, &'a Captured) {
    spans
        .iter()
        .rev()
        .find(|(_, s)| {
            s.name == "mcp.request"
                && field(s, "mcp.method.name") == Some(method)
                && field(s, "otel.kind") == Some(kind)
        })
        .map(|(id, s)| (*id, s))
        .unwrap_or_else(|| panic!("no {kind} request span of {method}: {spans:#?}"))
}

/// Checks the request spans of one run; `session`: whether they must be
/// children of an `mcp.session` span (with the given revision recorded on
/// it), else they carry the revision themselves.
fn check(
    capture: &Capture,
    revision: &str,
    in_session: bool,
    session_id: bool,
    transport: Option<&str>,
) {
    let spans = capture.spans.lock().unwrap().clone();
    let (call_id, call) = request(&spans, "tools/call");
    assert_eq!(field(call, "gen_ai.tool.name"), Some("traced"), "{call:?}");
    assert_eq!(
        field(call, "otel.name"),
        Some("tools/call traced"),
        "{call:?}"
    );
    assert_eq!(
        field(call, "gen_ai.operation.name"),
        Some("execute_tool"),
        "{call:?}"
    );
    assert!(field(call, "jsonrpc.request.id").is_some(), "{call:?}");
    assert!(field(call, "error.type").is_none(), "{call:?}");
    assert!(field(call, "otel.status_code").is_none(), "{call:?}");
    assert_eq!(field(call, "otel.kind"), Some("server"), "{call:?}");
    // The caller's context, received in `_meta`.
    assert_eq!(field(call, "traceparent"), Some(PARENT), "{call:?}");
    let failed = spans
        .values()
        .filter(|s| field(s, "gen_ai.tool.name") == Some("fails"))
        .collect::<Vec<_>>();
    assert_eq!(failed.len(), 2, "{failed:?}");
    for span in failed {
        assert_eq!(field(span, "error.type"), Some("tool_error"), "{span:?}");
        assert_eq!(field(span, "otel.status_code"), Some("ERROR"), "{span:?}");
        assert!(field(span, "rpc.response.status_code").is_none());
    }
    assert_eq!(field(call, "network.transport"), transport, "{call:?}");
    // The client's span of the same call.
    let (_, sent) = span_of(&spans, "tools/call", "client");
    assert_eq!(
        field(sent, "otel.name"),
        Some("tools/call traced"),
        "{sent:?}"
    );
    assert_eq!(field(sent, "gen_ai.tool.name"), Some("traced"), "{sent:?}");
    assert_eq!(
        field(sent, "jsonrpc.request.id"),
        field(call, "jsonrpc.request.id")
    );
    assert!(field(sent, "error.type").is_none(), "{sent:?}");
    assert_eq!(
        field(sent, "mcp.protocol.version"),
        Some(revision),
        "{sent:?}"
    );
    assert_eq!(
        field(call, "mcp.protocol.version"),
        Some(revision),
        "{call:?}"
    );
    // The handler ran inside the request's span.
    let events = capture.events.lock().unwrap().clone();
    let inside = events
        .iter()
        .find(|(m, _)| m == "inside the tool")
        .expect("the tool's event");
    assert_eq!(inside.1, Some(call_id), "{events:?}");

    let (_, read) = request(&spans, "resources/read");
    assert_eq!(field(read, "mcp.resource.uri"), Some("mem://unknown"));
    assert_eq!(field(read, "otel.name"), Some("resources/read"), "{read:?}");
    assert_eq!(field(read, "otel.status_code"), Some("ERROR"), "{read:?}");
    let code: i64 = field(read, "error.type").unwrap().parse().unwrap();
    assert!(code < 0, "{read:?}");
    assert_eq!(
        field(read, "rpc.response.status_code"),
        field(read, "error.type")
    );
    let (_, asked) = span_of(&spans, "resources/read", "client");
    assert_eq!(field(asked, "mcp.resource.uri"), Some("mem://unknown"));
    assert_eq!(field(asked, "error.type"), field(read, "error.type"));
    assert_eq!(field(asked, "otel.status_code"), Some("ERROR"));

    if in_session {
        let parent = spans[&call.parent.expect("a parent")].clone();
        assert_eq!(parent.name, "mcp.session", "{spans:#?}");
        assert_eq!(field(&parent, "mcp.protocol.version"), Some(revision));
        assert_eq!(field(&parent, "mcp.client.name"), Some("span-client"));
        assert_eq!(field(&parent, "mcp.session.id").is_some(), session_id);
        assert_eq!(read.parent, call.parent);
    } else {
        assert_eq!(field(call, "mcp.protocol.version"), Some(revision));
        assert_eq!(field(call, "mcp.client.name"), Some("span-client"));
        if let Some(parent) = call.parent {
            assert_ne!(spans[&parent].name, "mcp.request", "{spans:#?}");
        }
    }
}

async fn captured<F, Fut>(body: F) -> Arc<Capture>
where
    F: FnOnce(Arc<Capture>) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let capture = Arc::new(Capture::default());
    let _guard = tracing::subscriber::set_default(Capturing(capture.clone()));
    body(capture.clone()).await;
    capture
}

#[tokio::test]
async fn in_memory_session_2025() {
    let capture = captured(|capture| async move {
        let (a, b) = mcp_core::transport::memory_pair();
        let _session = server().serve(b).unwrap();
        run(&capture, a, Negotiation::Legacy).await;
    })
    .await;
    check(&capture, "2025-11-25", true, false, None);
}

#[tokio::test]
async fn in_memory_requests_that_stand_alone_2026() {
    let capture = captured(|capture| async move {
        let (a, b) = mcp_core::transport::memory_pair();
        let _session = server().serve(b).unwrap();
        run(&capture, a, Negotiation::Auto).await;
    })
    .await;
    // Over a stream transport the requests still belong to its session
    // (which never initialized), and name their revision themselves.
    check(&capture, "2026-07-28", false, false, None);
    let spans = capture.spans.lock().unwrap().clone();
    let (_, call) = request(&spans, "tools/call");
    assert_eq!(spans[&call.parent.unwrap()].name, "mcp.session");
}

async fn start_http() -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(server(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    addr
}

#[tokio::test]
async fn http_session_2025() {
    let capture = captured(|capture| async move {
        let addr = start_http().await;
        let transport = StreamableHttpClient::new(format!("http://{addr}/mcp"));
        run(&capture, transport, Negotiation::Legacy).await;
    })
    .await;
    check(&capture, "2025-11-25", true, true, Some("tcp"));
}

#[tokio::test]
async fn http_requests_that_stand_alone_2026() {
    let capture = captured(|capture| async move {
        let addr = start_http().await;
        let transport = StreamableHttpClient::new(format!("http://{addr}/mcp"));
        run(&capture, transport, Negotiation::Auto).await;
    })
    .await;
    check(&capture, "2026-07-28", false, false, Some("tcp"));
}

/// A server with a prompt and a tool that runs until it is cancelled
/// (`started` is notified when it has begun).
fn prompt_and_hang_server(started: Arc<tokio::sync::Notify>) -> Server {
    let prompt = PromptDef::new("greeting", |_args, _cx| async move {
        Ok(GetPromptResult::new(vec![]))
    });
    let hang = ToolDef::new(
        "hang",
        "Waits until it is cancelled",
        move |_: Map<String, Value>, cx| {
            let started = started.clone();
            async move {
                started.notify_one();
                cx.cancellation().cancelled().await;
                Ok::<_, String>("cancelled")
            }
        },
    )
    .unwrap();
    Server::builder("span-test", "1.0.0")
        .prompt(prompt)
        .tool(hang)
        .build()
}

#[tokio::test]
async fn a_prompt_names_itself_and_a_cancelled_request_says_so() {
    let capture = captured(|capture| async move {
        let started = Arc::new(tokio::sync::Notify::new());
        let (a, b) = mcp_core::transport::memory_pair();
        let _session = prompt_and_hang_server(started.clone()).serve(b).unwrap();
        let client = Client::builder("span-client", "7")
            .negotiation(Negotiation::Legacy)
            .connect(a)
            .await
            .unwrap();
        client.get_prompt("greeting", None).await.unwrap();

        // The client cancels the call once the tool has begun.
        let stop = CancellationToken::new();
        let options = RequestOptions::default().cancel_with(stop.clone());
        let call = client.call_tool_with(CallToolRequestParams::new("hang"), options);
        let cancel = async {
            started.notified().await;
            stop.cancel();
        };
        let (result, ()) = tokio::time::timeout(Duration::from_secs(30), async {
            tokio::join!(call, cancel)
        })
        .await
        .expect("the call ends in time");
        assert!(result.is_err(), "{result:?}");

        // The server records the outcome when its handler has stopped.
        let ended = tokio::time::timeout(Duration::from_secs(30), async {
            loop {
                let spans = capture.spans.lock().unwrap().clone();
                let (_, call) = request(&spans, "tools/call");
                if field(call, "error.type").is_some() {
                    return;
                }
                drop(spans);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(ended.is_ok(), "the cancelled request's span has no outcome");
        client.close().await;
    })
    .await;
    let spans = capture.spans.lock().unwrap().clone();
    let (_, prompt) = request(&spans, "prompts/get");
    assert_eq!(
        field(prompt, "gen_ai.prompt.name"),
        Some("greeting"),
        "{prompt:?}"
    );
    assert_eq!(field(prompt, "otel.name"), Some("prompts/get greeting"));
    assert!(field(prompt, "error.type").is_none(), "{prompt:?}");
    assert!(field(prompt, "gen_ai.tool.name").is_none(), "{prompt:?}");
    let (_, call) = request(&spans, "tools/call");
    assert_eq!(field(call, "gen_ai.tool.name"), Some("hang"), "{call:?}");
    assert_eq!(field(call, "error.type"), Some("cancelled"), "{call:?}");
    assert!(
        field(call, "rpc.response.status_code").is_none(),
        "{call:?}"
    );
    let (_, sent) = span_of(&spans, "tools/call", "client");
    assert_eq!(field(sent, "error.type"), Some("cancelled"), "{sent:?}");
}
