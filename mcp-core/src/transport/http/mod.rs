//! Streamable HTTP (spec 2025-11-25): the server as an axum router
//! ([`StreamableHttpServer`]) and the client ([`StreamableHttpClient`]).

#[cfg(feature = "http-client")]
mod client;
#[cfg(feature = "http-server")]
mod server;
mod sse;

#[cfg(feature = "fuzzing")]
pub(crate) use sse::{SseParser, encode_event};

#[cfg(feature = "http-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-client")))]
pub use client::StreamableHttpClient;
#[cfg(feature = "http-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-server")))]
pub use server::{
    DEFAULT_MAX_HEADER_SIZE, EventStore, HostPolicy, HttpServerConfig, InMemoryEventStore,
    SharedEvents, StreamKey, StreamableHttpServer,
};
