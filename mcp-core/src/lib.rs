//! The libmcp Model Context Protocol engine.

pub mod auth;
mod capability;
pub mod client;
mod error;
pub mod extensions;
pub mod jsonrpc;
mod param_headers;
mod request_meta;
pub mod schema;
pub mod server;
pub mod session;
pub mod store;
pub mod tasks;
pub mod transport;
pub mod uri_template;
mod version;

/// Entry points for the fuzz targets in `fuzz/` to internals that are not
/// public API (stdio framing, the SSE parser). Not for use elsewhere: it
/// exists only with the `fuzzing` feature and may change at any time.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzzing.rs"]
pub mod __fuzz;

/// What the code of `#[mcp_core::handlers]` uses; not API.
#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;

#[cfg(feature = "macros")]
#[doc = include_str!("handlers.md")]
pub use mcp_macros::handlers;

pub use version::ProtocolVersion;

pub use error::{Error, Result};
