//! The session engine, the same for both roles: it reads frames from a
//! transport, answers `ping`, routes responses, progress and cancellation,
//! runs inbound requests concurrently through a role's service, and
//! offers a [`Peer`] handle for sending requests and notifications.

mod config;
mod context;
mod engine;
mod outbound;
mod peer;

pub use config::SessionConfig;
pub use context::RequestContext;
#[cfg(feature = "server")]
pub(crate) use context::number;
pub use engine::Session;
#[cfg(feature = "http-server")]
pub(crate) use engine::{Acceptor, Attached, Reply};
pub(crate) use engine::{RequestFuture, Service};
#[cfg(feature = "http-server")]
pub(crate) use outbound::OutboundSink;
pub use peer::{Peer, ProgressCallback, RequestOptions};
