//! The libmcp Model Context Protocol engine.

pub mod auth;
pub mod client;
mod error;
pub mod jsonrpc;
pub mod schema;
pub mod server;
pub mod session;
pub mod tasks;
pub mod transport;
pub mod uri_template;
mod version;

pub use version::ProtocolVersion;

pub use error::{Error, Result};
