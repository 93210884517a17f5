//! The `tracing` spans of sessions and requests, the same for both roles and
//! every transport (the engine opens them).
//!
//! **`mcp.session`** (level INFO), one per session (stdio, a child process,
//! the in-memory pair, a Streamable HTTP session; a request that stands
//! alone has none). Its fields are recorded when known:
//! - `mcp.session.id`: the `Mcp-Session-Id` of a Streamable HTTP session;
//! - `mcp.protocol.version`: the negotiated revision (at `initialize`);
//! - `mcp.client.name`: the client's `clientInfo.name` (server side).
//!
//! **`mcp.request`** (level INFO), one per inbound request other than a
//! plain `ping`, a child of its session's span (or, for a request that
//! stands alone, of whatever span is current, e.g. the host application's
//! HTTP request span). The handler runs inside it, so its own events and
//! spans nest under it:
//! - `mcp.method.name`: the JSON-RPC method;
//! - `jsonrpc.request.id`: the request id;
//! - `gen_ai.tool.name` (`tools/call`), `gen_ai.prompt.name`
//!   (`prompts/get`), `mcp.resource.uri` (`resources/read`, `subscribe`,
//!   `unsubscribe`): what the request names (server side);
//! - `mcp.protocol.version`, `mcp.client.name`: for a request that stands
//!   alone (2026-07-28), what its `_meta` names;
//! - `outcome`: `ok`, `error` or `cancelled` (no answer sent);
//! - `rpc.jsonrpc.error_code`: the JSON-RPC error code when `outcome` is
//!   `error`;
//! - `duration_us`: microseconds from the request's arrival to its answer.
//!
//! The attribute names follow OpenTelemetry's semantic conventions for MCP
//! where they have one. Nothing is formatted, allocated or timed unless a
//! subscriber is interested in the span: a disabled span records nothing.

use std::time::Instant;

use tracing::Span;
use tracing::field::Empty;

use crate::schema::RequestId;

/// The span of a session; `root`: not a child of the current span (a
/// Streamable HTTP session outlives the POST that opened it).
pub(crate) fn session(root: bool) -> Span {
    macro_rules! session_span {
        ($($parent:tt)*) => {
            tracing::info_span!(
                $($parent)*
                "mcp.session",
                mcp.session.id = Empty,
                mcp.protocol.version = Empty,
                mcp.client.name = Empty,
            )
        };
    }
    if root {
        session_span!(parent: None,)
    } else {
        session_span!()
    }
}

/// Records `value` as `field` of `span`, if anyone listens (a disabled span
/// would still look the field up by name).
#[cfg(feature = "http-server")]
pub(crate) fn record(span: &Span, field: &str, value: &str) {
    if !span.is_disabled() {
        span.record(field, value);
    }
}

/// A request's span and when it started (only timed when the span is
/// enabled).
pub(crate) struct RequestTrace {
    pub(crate) span: Span,
    started: Option<Instant>,
}

/// How a request ended, for its span.
pub(crate) enum Outcome {
    Ok,
    Error(i64),
    Cancelled,
}

impl RequestTrace {
    /// Opens the span of request `id` of `method` under `session` (the
    /// current span when the session has none).
    pub(crate) fn open(session: &Span, id: &RequestId, method: &str) -> Self {
        macro_rules! request_span {
            ($($parent:tt)*) => {
                tracing::info_span!(
                    $($parent)*
                    "mcp.request",
                    mcp.method.name = method,
                    jsonrpc.request.id = %id,
                    gen_ai.tool.name = Empty,
                    gen_ai.prompt.name = Empty,
                    mcp.resource.uri = Empty,
                    mcp.protocol.version = Empty,
                    mcp.client.name = Empty,
                    outcome = Empty,
                    rpc.jsonrpc.error_code = Empty,
                    duration_us = Empty,
                )
            };
        }
        let span = if session.is_none() {
            request_span!()
        } else {
            request_span!(parent: session,)
        };
        let started = (!span.is_disabled()).then(Instant::now);
        Self { span, started }
    }

    /// Records how the request ended and how long it took.
    pub(crate) fn finish(&self, outcome: &Outcome) {
        let Some(started) = self.started else { return };
        let span = &self.span;
        match outcome {
            Outcome::Ok => span.record("outcome", "ok"),
            Outcome::Error(code) => span
                .record("outcome", "error")
                .record("rpc.jsonrpc.error_code", *code),
            Outcome::Cancelled => span.record("outcome", "cancelled"),
        };
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        span.record("duration_us", micros);
    }
}
