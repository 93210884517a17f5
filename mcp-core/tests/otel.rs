//! With the `otel` feature, through `tracing-opentelemetry` and the
//! OpenTelemetry SDK (spans kept in memory by an exporter of this test): a
//! client call's CLIENT span is a child of the caller's span, the server's
//! SERVER span is a child of that client span (the context crossed in
//! `_meta`), in one trace; names, kinds, attributes and status follow the
//! conventions; a tool's `isError` result is an error span. Over the
//! in-memory pair, in a 2025-11-25 session and as 2026-07-28 requests.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::sync::{Arc, Mutex};

use mcp_core::client::{Client, Negotiation};
use mcp_core::server::{Server, ToolDef};
use opentelemetry::Value;
use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use serde_json::Map;
use tracing::Instrument;
use tracing_subscriber::layer::SubscriberExt;

/// Keeps every exported span.
#[derive(Clone, Debug, Default)]
struct Kept(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Kept {
    fn export(&self, batch: Vec<SpanData>) -> impl Future<Output = OTelSdkResult> + Send {
        self.0.lock().unwrap().extend(batch);
        std::future::ready(Ok(()))
    }
}

fn server() -> Server {
    let traced = ToolDef::new(
        "traced",
        "Answers",
        |_: Map<String, serde_json::Value>, _cx| async move { Ok::<_, String>("done") },
    )
    .unwrap();
    let fails = ToolDef::new(
        "fails",
        "Fails",
        |_: Map<String, serde_json::Value>, _cx| async move { Err::<String, _>("no".to_string()) },
    )
    .unwrap();
    Server::builder("otel-test", "1.0.0")
        .tool(traced)
        .tool(fails)
        .build()
}

fn attribute(span: &SpanData, key: &str) -> Option<String> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| match &kv.value {
            Value::String(s) => s.as_str().to_string(),
            other => other.to_string(),
        })
}

fn named<'a>(spans: &'a [SpanData], name: &str, kind: &SpanKind) -> &'a SpanData {
    spans
        .iter()
        .find(|s| s.name == name && &s.span_kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} span {name}: {spans:#?}"))
}

async fn parent_and_child(negotiation: Negotiation) {
    let kept = Kept::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(kept.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let subscriber = tracing_subscriber::registry().with(layer);
    let _guard = tracing::subscriber::set_default(subscriber);

    let (a, b) = mcp_core::transport::memory_pair();
    let session = server().serve(b).unwrap();
    let client = Client::builder("otel-client", "1")
        .negotiation(negotiation)
        .connect(a)
        .await
        .unwrap();
    let app = tracing::info_span!("app");
    async {
        let result = client.call_tool("traced", None).await.unwrap();
        assert_eq!(result.is_error, None);
        let failed = client.call_tool("fails", None).await.unwrap();
        assert_eq!(failed.is_error, Some(true));
    }
    .instrument(app.clone())
    .await;
    drop(app);
    client.close().await;
    session.close().await;
    let _ = provider.force_flush();
    let spans = kept.0.lock().unwrap().clone();

    let app = spans
        .iter()
        .find(|s| s.name == "app")
        .expect("the app span");
    let sent = named(&spans, "tools/call traced", &SpanKind::Client);
    let served = named(&spans, "tools/call traced", &SpanKind::Server);
    let trace = app.span_context.trace_id();
    // One trace: app → client span → (over `_meta`) server span.
    assert_eq!(sent.span_context.trace_id(), trace);
    assert_eq!(sent.parent_span_id, app.span_context.span_id());
    assert_eq!(served.span_context.trace_id(), trace, "{served:#?}");
    assert_eq!(served.parent_span_id, sent.span_context.span_id());
    assert!(served.parent_span_is_remote);
    assert_eq!(
        attribute(served, "traceparent"),
        Some(format!("00-{}-{}-01", trace, sent.span_context.span_id()))
    );
    for span in [sent, served] {
        assert_eq!(
            attribute(span, "mcp.method.name").as_deref(),
            Some("tools/call")
        );
        assert_eq!(
            attribute(span, "gen_ai.tool.name").as_deref(),
            Some("traced")
        );
        assert_eq!(
            attribute(span, "gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert!(attribute(span, "jsonrpc.request.id").is_some());
        assert!(attribute(span, "error.type").is_none());
        assert_eq!(span.status, Status::Unset);
        // tracing-opentelemetry turns these into the span's own.
        assert!(attribute(span, "otel.kind").is_none());
    }
    let failed = named(&spans, "tools/call fails", &SpanKind::Server);
    assert_eq!(
        attribute(failed, "error.type").as_deref(),
        Some("tool_error")
    );
    assert!(matches!(failed.status, Status::Error { .. }), "{failed:#?}");
    let failed = named(&spans, "tools/call fails", &SpanKind::Client);
    assert_eq!(
        attribute(failed, "error.type").as_deref(),
        Some("tool_error")
    );
}

#[tokio::test]
async fn a_server_span_is_the_child_of_its_client_span_2025() {
    parent_and_child(Negotiation::Legacy).await;
}

#[tokio::test]
async fn a_server_span_is_the_child_of_its_client_span_2026() {
    parent_and_child(Negotiation::Auto).await;
}
