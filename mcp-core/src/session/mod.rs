//! The session engine, the same for both roles: it reads frames from a
//! transport, answers `ping`, routes responses, progress and cancellation,
//! runs inbound requests concurrently through a role's service, and
//! offers a [`Peer`] handle for sending requests and notifications.
//!
//! # Tracing
//!
//! The engine opens a `tracing` span per session (`mcp.session`) and per
//! request (`mcp.request`), on every transport and for both revisions, in
//! both roles: a SERVER span for each inbound request (but a plain `ping`),
//! in which its handler runs, and a CLIENT span for each request sent
//! (through [`Peer`], so the typed client methods and a server's requests to
//! its client alike). Names and attributes follow OpenTelemetry's semantic
//! conventions for MCP; `tracing-opentelemetry` reads `otel.name`,
//! `otel.kind` and `otel.status_code` as the span's own name, kind and
//! status.
//!
//! | span | field | what |
//! |---|---|---|
//! | `mcp.session` | `mcp.session.id` | the Streamable HTTP `Mcp-Session-Id` |
//! | | `mcp.protocol.version` | the negotiated revision (server side) |
//! | | `mcp.client.name` | the client's `clientInfo.name` (server side) |
//! | | `network.transport` | `pipe` (stdio, child process) or `tcp` (HTTP) |
//! | `mcp.request` | `otel.name` | `{mcp.method.name} {target}`: `tools/call get-weather`, `prompts/get greeting`, else the method |
//! | | `otel.kind` | `client` (sent) or `server` (received) |
//! | | `mcp.method.name` | the JSON-RPC method |
//! | | `jsonrpc.request.id` | the request id |
//! | | `gen_ai.tool.name`, `gen_ai.operation.name` | the tool of a `tools/call`, and `execute_tool` |
//! | | `gen_ai.prompt.name` | the prompt of a `prompts/get` |
//! | | `mcp.resource.uri` | the URI of `resources/read`, `subscribe`, `unsubscribe` |
//! | | `mcp.session.id`, `network.transport` | as on the session |
//! | | `mcp.protocol.version`, `mcp.client.name` | what the `_meta` of a request that stands alone (2026-07-28) names |
//! | | `error.type` | the JSON-RPC error code as text, `tool_error` for a `tools/call` result with `isError`, `cancelled`, or (client side) `timeout`, `connection_closed`, `transport`, `_OTHER` |
//! | | `rpc.response.status_code` | the JSON-RPC error code as text |
//! | | `otel.status_code`, `otel.status_description` | `ERROR` and the error's message, when `error.type` is set |
//! | | `traceparent` | the caller's `traceparent`, received in `_meta` (server side) |
//!
//! Both are at level INFO. A server span is a child of its session's span;
//! a request that stands alone has no session, and its span is a child of
//! the current span (the host application's HTTP request span, if any). A
//! client span is a child of the current span. When no subscriber is
//! interested the spans are disabled, and nothing is formatted, allocated
//! or timed for them.
//!
//! Trace context travels in `params._meta` (`traceparent`, `tracestate`,
//! `baggage`): see [`telemetry`](crate::telemetry).

mod config;
mod context;
mod engine;
mod outbound;
mod peer;
pub(crate) mod trace;

pub use config::SessionConfig;
pub use context::RequestContext;
#[cfg(feature = "server")]
pub(crate) use context::number;
#[cfg(feature = "server")]
pub(crate) use engine::AloneFuture;
pub use engine::Session;
#[cfg(feature = "http-server")]
pub(crate) use engine::{Acceptor, Attached, Reply};
pub(crate) use engine::{RequestFuture, Service};
#[cfg(feature = "http-server")]
pub(crate) use outbound::OutboundSink;
pub use peer::{Peer, ProgressCallback, RequestOptions};
