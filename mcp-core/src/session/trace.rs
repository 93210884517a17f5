//! The `tracing` spans of sessions and requests, the same for both roles and
//! every transport (the engine opens them), named and attributed by
//! OpenTelemetry's semantic conventions for MCP; the `session` module
//! documents each field. Nothing is formatted, allocated or timed unless a
//! subscriber is interested in the span (or, with `otel`, a meter records
//! durations): a disabled span records nothing.

use std::time::Instant;

use serde_json::value::RawValue;
use tracing::Span;
use tracing::field::Empty;

use crate::jsonrpc::RpcError;
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
                network.transport = Empty,
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
pub(crate) fn record(span: &Span, field: &str, value: &str) {
    if !span.is_disabled() {
        span.record(field, value);
    }
}

/// Which side of a request a span is on (its `otel.kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// We sent it.
    Client,
    /// We answer it.
    Server,
}

impl Side {
    fn kind(self) -> &'static str {
        match self {
            Self::Client => "client",
            Self::Server => "server",
        }
    }
}

/// What a request names, for its span's name and attributes.
pub(crate) enum Target<'a> {
    /// `tools/call` of a tool.
    Tool(&'a str),
    /// `prompts/get` of a prompt.
    Prompt(&'a str),
    /// A resource request's URI (not in the span's name: too many values).
    Resource(&'a str),
}

/// A request's span and what its end needs (only kept when the span is
/// enabled or durations are measured).
pub(crate) struct RequestTrace {
    pub(crate) span: Span,
    live: Option<Box<Live>>,
}

struct Live {
    started: Instant,
    side: Side,
    method: String,
    network_transport: Option<&'static str>,
}

/// How a request ended, for its span.
pub(crate) enum Outcome<'a> {
    /// Answered with this result.
    Ok(&'a str),
    /// Answered with this error.
    Error(&'a RpcError),
    /// Ended without an answer, for this reason (`error.type`).
    Failed(&'static str),
}

/// The span of one request; the current span is its parent when `parent`
/// is none.
macro_rules! request_span {
    ($side:expr, $method:expr, $id:expr, $($parent:tt)*) => {
        tracing::info_span!(
            $($parent)*
            "mcp.request",
            otel.name = $method,
            otel.kind = $side.kind(),
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = $method,
            jsonrpc.request.id = %$id,
            mcp.protocol.version = Empty,
            mcp.session.id = Empty,
            network.transport = Empty,
            gen_ai.operation.name = Empty,
            gen_ai.tool.name = Empty,
            gen_ai.prompt.name = Empty,
            mcp.resource.uri = Empty,
            mcp.client.name = Empty,
            error.type = Empty,
            rpc.response.status_code = Empty,
            traceparent = Empty,
        )
    };
}

impl RequestTrace {
    /// Opens the span of request `id` of `method` on `side`, a child of
    /// `session` (of the current span when the session has none).
    pub(crate) fn open(
        side: Side,
        session: &Span,
        id: &RequestId,
        method: &str,
        network_transport: Option<&'static str>,
    ) -> Self {
        let span = if session.is_none() {
            request_span!(side, method, id,)
        } else {
            request_span!(side, method, id, parent: session,)
        };
        let enabled = !span.is_disabled();
        if enabled && let Some(transport) = network_transport {
            span.record("network.transport", transport);
        }
        let live = (enabled || crate::telemetry::measuring()).then(|| {
            Box::new(Live {
                started: Instant::now(),
                side,
                method: method.to_string(),
                network_transport,
            })
        });
        Self { span, live }
    }

    /// Records how the request ended, and its duration (`otel`).
    pub(crate) fn finish(&self, outcome: &Outcome<'_>) {
        let Some(live) = &self.live else { return };
        let span = &self.span;
        let mut code = itoa::Buffer::new();
        let error_type = match outcome {
            Outcome::Ok(result) => (live.method == crate::schema::methods::TOOLS_CALL
                && is_error(result))
            .then_some("tool_error"),
            Outcome::Error(error) => Some(code.format(error.code.0)),
            Outcome::Failed(reason) => Some(*reason),
        };
        if let Some(error_type) = error_type
            && !span.is_disabled()
        {
            span.record("error.type", error_type);
            span.record("otel.status_code", "ERROR");
            if let Outcome::Error(error) = outcome {
                span.record("rpc.response.status_code", error_type);
                span.record("otel.status_description", error.message.as_ref());
            }
        }
        #[cfg(feature = "otel")]
        crate::telemetry::otel::record_duration(
            live.side == Side::Server,
            live.started.elapsed(),
            &live.method,
            error_type,
            live.network_transport,
        );
        #[cfg(not(feature = "otel"))]
        let _ = (live.started, live.side, live.network_transport);
    }
}

/// Records `target` on a request's `span` (`otel.name`, the tool's,
/// prompt's or resource's attribute).
pub(crate) fn record_target(span: &Span, target: &Target<'_>) {
    if span.is_disabled() {
        return;
    }
    match target {
        Target::Tool(name) => {
            span.record("gen_ai.tool.name", *name);
            span.record("gen_ai.operation.name", "execute_tool");
            rename(span, format!("tools/call {name}"));
        }
        Target::Prompt(name) => {
            span.record("gen_ai.prompt.name", *name);
            rename(span, format!("prompts/get {name}"));
        }
        Target::Resource(uri) => {
            span.record("mcp.resource.uri", *uri);
        }
    };
}

/// Names `span` `name` (`otel.name`; with `otel`, the OpenTelemetry span
/// too, which may have started already).
fn rename(span: &Span, name: String) {
    span.record("otel.name", name.as_str());
    #[cfg(feature = "otel")]
    crate::telemetry::otel::rename(span, name);
}

/// Whether a `tools/call` result says `isError: true`.
fn is_error(result: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: Option<bool>,
    }
    memchr::memmem::find(result.as_bytes(), b"isError").is_some()
        && serde_json::from_str::<Flag>(result).is_ok_and(|f| f.is_error == Some(true))
}

/// Records on an outgoing request's `span` what its `params` name (only
/// read when the span is enabled).
pub(crate) fn record_outgoing_target(span: &Span, method: &str, params: &RawValue) {
    use crate::schema::methods;
    #[derive(serde::Deserialize)]
    struct Named<'a> {
        #[serde(default, borrow)]
        name: Option<std::borrow::Cow<'a, str>>,
        #[serde(default, borrow)]
        uri: Option<std::borrow::Cow<'a, str>>,
    }
    let resource = matches!(
        method,
        methods::RESOURCES_READ | methods::RESOURCES_SUBSCRIBE | methods::RESOURCES_UNSUBSCRIBE
    );
    if span.is_disabled()
        || !(resource || method == methods::TOOLS_CALL || method == methods::PROMPTS_GET)
    {
        return;
    }
    let Ok(named) = serde_json::from_str::<Named<'_>>(params.get()) else {
        return;
    };
    let target = match (method, &named.name, &named.uri) {
        (methods::TOOLS_CALL, Some(name), _) => Target::Tool(name),
        (methods::PROMPTS_GET, Some(name), _) => Target::Prompt(name),
        (_, _, Some(uri)) if resource => Target::Resource(uri),
        _ => return,
    };
    record_target(span, &target);
}
