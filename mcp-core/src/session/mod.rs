//! The session engine, the same for both roles: it reads frames from a
//! transport, answers `ping`, routes responses, progress and cancellation,
//! runs inbound requests concurrently through a role's service, and
//! offers a [`Peer`] handle for sending requests and notifications.
//!
//! # Tracing
//!
//! The engine opens a `tracing` span per session (`mcp.session`) and per
//! inbound request (`mcp.request`), on every transport and for both
//! revisions; a handler runs inside its request's span.
//!
//! | span | field | what |
//! |---|---|---|
//! | `mcp.session` | `mcp.session.id` | the Streamable HTTP `Mcp-Session-Id` |
//! | | `mcp.protocol.version` | the negotiated revision |
//! | | `mcp.client.name` | the client's `clientInfo.name` (server side) |
//! | `mcp.request` | `mcp.method.name` | the JSON-RPC method |
//! | | `jsonrpc.request.id` | the request id |
//! | | `gen_ai.tool.name` | the tool of a `tools/call` |
//! | | `gen_ai.prompt.name` | the prompt of a `prompts/get` |
//! | | `mcp.resource.uri` | the URI of `resources/read`, `subscribe`, `unsubscribe` |
//! | | `mcp.protocol.version`, `mcp.client.name` | what the `_meta` of a request that stands alone (2026-07-28) names |
//! | | `outcome` | `ok`, `error`, or `cancelled` (no answer) |
//! | | `rpc.jsonrpc.error_code` | the error code, when `outcome` is `error` |
//! | | `duration_us` | microseconds from arrival to answer |
//!
//! Both are at level INFO. A request span is a child of its session's span;
//! a request that stands alone has no session, and its span is a child of
//! the current span (the host application's HTTP request span, if any).
//! When no subscriber is interested the spans are disabled, and nothing is
//! formatted, allocated or timed for them.

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
