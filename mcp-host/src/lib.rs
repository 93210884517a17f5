//! The host layer: what the faces of libmcp (the C ABI and the Python
//! module in `mcp-ffi`, and the `mcp` command in `bindings/cli`) show and
//! take in the same way, written once so that they cannot drift apart:
//!
//! - [`GroupStatus`] and [`ServerStatus`]: the one JSON form of a
//!   [`ClientGroup`](mcp_core::client::ClientGroup)'s state (camelCase keys,
//!   as on the wire);
//! - [`Store`]: the one parser of a store URL (`memory`, `redis://…`);
//! - [`HttpOptions`]: the one model of the Streamable HTTP server options,
//!   with one validation;
//! - [`parse_negotiation`] and [`parse_revision`]: the one parser of the
//!   protocol a client speaks (`auto`, `legacy`, a revision), and
//!   [`with_request_timeout`].
//!
//! Failures are [`mcp_core::Error`]s (bad input is
//! [`InvalidArgument`](mcp_core::Error::InvalidArgument)), so each face
//! reports them through its mapping of [`mcp_core::ErrorKind`]. No face code
//! here: no PyO3, no C types, no command line.

mod http_options;
mod negotiation;
mod status;
mod store;

pub use http_options::HttpOptions;
pub use negotiation::{parse_negotiation, parse_revision, with_request_timeout};
pub use status::{GroupStatus, ServerStatus};
pub use store::Store;
