//! The `otel` feature's side of the engine's telemetry: the trace context
//! of a `tracing` span's OpenTelemetry span (through
//! `tracing-opentelemetry`), parents set from an incoming context with
//! OpenTelemetry's W3C propagators, the operation-duration histograms, and
//! [`install_from_env`]: the SDK with the OTLP/HTTP (protobuf) exporter.

mod install;
mod metrics;

use std::collections::HashMap;

use opentelemetry::propagation::TextMapPropagator;
use opentelemetry::trace::TraceContextExt;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use tracing::Span;
use tracing_opentelemetry::OpenTelemetrySpanExt;

use super::TraceContext;

pub use install::{OtelGuard, install_from_env};
pub use metrics::record_durations;
pub(crate) use metrics::{measuring, record_duration};

/// The context of `span`'s OpenTelemetry span, written by the W3C
/// propagators; `None` when the span has none (disabled, or no
/// OpenTelemetry layer in the subscriber).
pub(crate) fn context_of(span: &Span) -> Option<TraceContext> {
    if span.is_disabled() {
        return None;
    }
    let context = span.context();
    if !context.span().span_context().is_valid() {
        return None;
    }
    let mut carrier = HashMap::new();
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    BaggagePropagator::new().inject_context(&context, &mut carrier);
    TraceContext::from_values(
        carrier.get("traceparent")?,
        carrier.get("tracestate").map(String::as_str),
        carrier.get("baggage").map(String::as_str),
    )
}

/// Makes the caller's `context` the OpenTelemetry parent of `span` (which
/// must not have started yet), with its baggage.
pub(crate) fn set_parent(span: &Span, context: &TraceContext) {
    let mut carrier = HashMap::with_capacity(3);
    carrier.insert("traceparent".to_string(), context.parent.to_string());
    if let Some(state) = &context.tracestate {
        carrier.insert("tracestate".to_string(), state.clone());
    }
    if let Some(baggage) = &context.baggage {
        carrier.insert("baggage".to_string(), baggage.clone());
    }
    let parent = TraceContextPropagator::new().extract(&carrier);
    let parent = BaggagePropagator::new().extract_with_context(&parent, &carrier);
    // Without an OpenTelemetry layer there is nothing to set.
    let _ = span.set_parent(parent);
}

/// Renames `span`'s OpenTelemetry span (`tracing-opentelemetry` reads
/// `otel.name` only until the span starts; a server span has started by the
/// time its target is known).
pub(crate) fn rename(span: &Span, name: String) {
    let context = span.context();
    let otel = context.span();
    if otel.span_context().is_valid() {
        otel.update_name(name);
    }
}
