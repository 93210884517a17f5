//! Streamable HTTP (spec 2025-11-25): the server as a tower `Service` and an
//! axum router ([`StreamableHttpServer`]) and the client
//! ([`StreamableHttpClient`]).

mod client;
mod server;
mod sse;

#[cfg(feature = "fuzzing")]
pub(crate) use sse::{SseParser, encode_event};

pub use client::StreamableHttpClient;
pub(crate) use server::Deferred;
pub use server::{
    BoxError, DEFAULT_MAX_HEADER_SIZE, EventStore, HostPolicy, HttpServerConfig,
    InMemoryEventStore, ResponseBody, SharedEvents, StreamKey, StreamableHttpServer, peer_addr,
};
