//! Trace context across MCP messages, by OpenTelemetry's semantic
//! conventions for MCP: `traceparent`, `tracestate` and `baggage` (W3C
//! formats) travel in `params._meta` of every request and notification, in
//! both directions, on every transport and revision.
//!
//! The session engine does it all, in one place each way: an outgoing
//! message gets the current context written into its `_meta` (nothing when
//! there is none), and an incoming request's context becomes the parent of
//! its handler's `mcp.request` span. A malformed value is ignored, never an
//! error. The core needs no OpenTelemetry crate: without the `otel`
//! feature a context received is recorded on the span (`traceparent`) and
//! passed on by the handler's own requests unchanged; with it, the spans
//! are OpenTelemetry spans and the context is theirs.

mod context;
mod meta;
#[cfg(feature = "otel")]
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
pub mod otel;
mod propagate;

pub use context::{TraceContext, TraceParent};
pub use propagate::{current_trace_context, with_trace_context};

pub(crate) use meta::{extract, inject, insert};
pub(crate) use propagate::{incoming, inherit, outgoing};

/// Whether operation durations are measured although no span is enabled
/// (an OpenTelemetry meter provider is installed; never without `otel`).
#[cfg(not(feature = "otel"))]
pub(crate) fn measuring() -> bool {
    false
}
#[cfg(feature = "otel")]
pub(crate) use otel::measuring;
