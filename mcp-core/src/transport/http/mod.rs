//! Streamable HTTP, the client's connection ([`StreamableHttpClient`]) and
//! the SSE framing both sides share. The server is a layer above the roles:
//! `mcp_core::http`.

#[cfg(feature = "http-client")]
mod client;
pub(crate) mod sse;

#[cfg(feature = "fuzzing")]
pub(crate) use sse::{SseParser, encode_event};

#[cfg(feature = "http-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-client")))]
pub use client::StreamableHttpClient;
