//! Streamable HTTP (spec 2025-11-25): the server as an axum router
//! ([`StreamableHttpServer`]) and the client ([`StreamableHttpClient`]).

mod client;
mod server;
mod sse;

#[cfg(feature = "fuzzing")]
pub(crate) use sse::{SseParser, encode_event};

pub use client::StreamableHttpClient;
pub use server::{
    DEFAULT_MAX_HEADER_SIZE, EventStore, HostPolicy, HttpServerConfig, InMemoryEventStore,
    SharedEvents, StreamKey, StreamableHttpServer,
};
