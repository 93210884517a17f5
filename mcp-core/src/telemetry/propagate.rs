//! Which trace context goes out with a message, and what an incoming one
//! becomes. Without the `otel` feature the engine carries a caller's
//! context through unchanged: a handler's outgoing requests and
//! notifications repeat the `traceparent` (and `tracestate`, `baggage`) of
//! the request it serves, and a caller may set one for a call with
//! [`with_trace_context`]. With `otel`, the context of the OpenTelemetry span
//! behind the message's `tracing` span goes out, and an incoming one becomes
//! the parent of the handler's span; `baggage` is carried through as
//! received either way.

use std::future::Future;
use std::sync::Arc;

use tracing::Span;

use super::TraceContext;

tokio::task_local! {
    /// The context the current task inherited (from the request it serves,
    /// or from [`with_trace_context`]).
    static INHERITED: Arc<TraceContext>;
}

/// Runs `future` with `context` as the trace context of the requests and
/// notifications it sends (unless an OpenTelemetry span, with the `otel`
/// feature, supersedes it). A handler already runs with the context of the
/// request it serves.
pub async fn with_trace_context<F: Future>(context: TraceContext, future: F) -> F::Output {
    INHERITED.scope(Arc::new(context), future).await
}

/// The trace context of the request the current task serves (or that
/// [`with_trace_context`] set), as received.
pub fn current_trace_context() -> Option<TraceContext> {
    inherited().map(|context| (*context).clone())
}

fn inherited() -> Option<Arc<TraceContext>> {
    INHERITED.try_with(Arc::clone).ok()
}

/// `future` run with `context` inherited (the handler of an incoming
/// request that carried it).
pub(crate) fn inherit<F: Future>(
    context: Arc<TraceContext>,
    future: F,
) -> impl Future<Output = F::Output> {
    INHERITED.scope(context, future)
}

/// The context to send with a message whose `tracing` span is `span`:
/// that span's OpenTelemetry context when there is one (`otel`), else what
/// the task inherited; `None` (nothing to write) without either.
pub(crate) fn outgoing(span: &Span) -> Option<TraceContext> {
    let inherited = inherited();
    #[cfg(feature = "otel")]
    if let Some(mut own) = super::otel::context_of(span) {
        if own.baggage.is_none() {
            own.baggage = inherited.as_ref().and_then(|c| c.baggage.clone());
        }
        return Some(own);
    }
    #[cfg(not(feature = "otel"))]
    let _ = span;
    inherited.map(|context| (*context).clone())
}

/// Makes `context` (received with a request) the parent of its handler's
/// `span`: recorded as the span's `traceparent` field, and with `otel` set
/// as the OpenTelemetry parent.
pub(crate) fn incoming(span: &Span, context: &TraceContext) {
    if span.is_disabled() {
        return;
    }
    span.record("traceparent", tracing::field::display(&context.parent));
    #[cfg(feature = "otel")]
    super::otel::set_parent(span, context);
}
