//! Shared state for running several replicas of one server behind a load
//! balancer: the interfaces a store implements, an in-memory one (replicas
//! inside one process, and tests), and Redis behind the `redis` feature.
//!
//! Without a store nothing here is used and every piece of cross-request
//! state lives in the process, as it always has. With one:
//! - a [`SessionStore`] keeps what a replica needs to re-create a 2025-11-25
//!   session it has never seen (an opaque record the server role writes and
//!   reads), and makes a deleted or expired session gone on every replica at
//!   once (every request of a session reads its record);
//! - the [`EventStore`] it offers keeps
//!   stream events where every replica can read them (see
//!   [`EventStore::shared`]), so
//!   a stream is resumed with `Last-Event-ID` on any replica;
//! - a [`Bus`] carries changes (resource updated, list changed) to the other
//!   replicas, whose sessions hear of them;
//! - [`SessionStore::shared_secret`] gives every replica the same
//!   `requestState` key;
//! - a [`TaskStore`] keeps tasks (status, outcome, open questions, expiry on
//!   wall-clock time) where every replica reads them, and the bus carries
//!   cancellations, answers and changes of tasks to the replica running
//!   them (`tasks` topic).

#[cfg(feature = "http-server")]
mod events;
mod memory;
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "server")]
mod request_state_key;
mod tasks;

use std::fmt;
#[cfg(feature = "http-server")]
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;

#[cfg(feature = "http-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-server")))]
pub use events::{EventStore, InMemoryEventStore, SharedEvents, StreamKey};
pub use memory::{InMemoryBus, InMemorySessionStore};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use request_state_key::RequestStateKey;
pub use tasks::{InMemoryTaskStore, TaskChange, TaskRecord, TaskStore};

/// What went wrong talking to a store: which store, and why. Turned into
/// [`crate::Error::Store`] at the API's edge, and into HTTP 503 by the
/// Streamable HTTP server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    /// The store, as it names itself (e.g. `redis://127.0.0.1:6379/0`).
    pub store: String,
    /// What failed.
    pub message: String,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the store {} failed: {}", self.store, self.message)
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for crate::Error {
    fn from(e: StoreError) -> Self {
        crate::Error::Store {
            store: e.store,
            message: e.message,
        }
    }
}

/// `Result` of a store operation.
pub type StoreResult<T> = Result<T, StoreError>;

/// Where 2025-11-25 sessions are kept so that any replica can serve them.
///
/// A record is opaque text (the server role writes it: negotiated revision,
/// client capabilities and info, log level, subscriptions). Every call is
/// on the path of a request: a slow store makes every request slow, and a
/// failing one is answered with HTTP 503.
#[async_trait]
pub trait SessionStore: fmt::Debug + Send + Sync + 'static {
    /// Keeps a new session's record for `ttl`; `false` if `session` exists.
    async fn create(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool>;
    /// Replaces the record of an existing session and pushes its expiry back
    /// to `ttl` from now; `false` (and nothing kept) if it is gone, so that a
    /// late write never brings a deleted session back.
    async fn update(&self, session: &str, record: &str, ttl: Duration) -> StoreResult<bool>;
    /// The record of `session`, its expiry pushed back to `ttl` from now;
    /// `None` once it was deleted or expired.
    async fn load(&self, session: &str, ttl: Duration) -> StoreResult<Option<String>>;
    /// Deletes `session` everywhere; `true` if it existed.
    async fn delete(&self, session: &str) -> StoreResult<bool>;
    /// 32 secret bytes every replica using this store gets under `name`,
    /// drawn by whichever asks first (the `requestState` key).
    async fn shared_secret(&self, name: &str) -> StoreResult<[u8; 32]>;
}

/// Publish/subscribe between replicas: each message reaches every
/// subscriber of its topic on every replica, including the sender's own
/// (a receiver skips what it sent itself if it must).
///
/// What a subscriber receives of one topic comes in the order the bus took
/// the messages, without holes: where messages may have been lost (the
/// subscription was lost and made again, or the subscriber fell behind),
/// it receives [`Heard::Gap`] before the next message. Session leases rely
/// on this (see `http/lease.rs`): a replica that may have
/// missed a session's change stops trusting what it holds.
#[async_trait]
pub trait Bus: fmt::Debug + Send + Sync + 'static {
    /// Sends `payload` to every subscriber of `topic`.
    async fn publish(&self, topic: &str, payload: String) -> StoreResult<()>;
    /// Starts receiving `topic`. Messages published while the store was
    /// unreachable are lost (the bus carries hints to refetch, not data),
    /// and a [`Heard::Gap`] says where.
    fn subscribe(&self, topic: &str) -> mpsc::Receiver<Heard>;
}

/// What a [`Bus`] subscriber receives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Heard {
    /// A message, as published.
    Message(String),
    /// Messages may have been lost here.
    Gap,
}

impl Heard {
    /// The message, if this is one.
    pub fn message(self) -> Option<String> {
        match self {
            Self::Message(text) => Some(text),
            Self::Gap => None,
        }
    }
}

/// Draws 32 random bytes.
pub(crate) fn random_secret(store: &str) -> StoreResult<[u8; 32]> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| StoreError {
        store: store.to_string(),
        message: format!("no randomness: {e}"),
    })?;
    Ok(bytes)
}

/// A random id naming this process among the replicas (in event ids and
/// bus messages), 32 bits, never 0 (0 is "no store": today's ids).
#[cfg(feature = "http-server")]
pub(crate) fn replica_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        let mut bytes = [0u8; 4];
        let _ = getrandom::fill(&mut bytes);
        u32::from_le_bytes(bytes).max(1)
    })
}

/// Every shared part of one store, as the HTTP server and the server role
/// take them.
#[cfg(feature = "http-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-server")))]
#[derive(Clone, Debug)]
pub struct Stores {
    /// Sessions.
    pub sessions: Arc<dyn SessionStore>,
    /// Stream events for resumption.
    pub events: Arc<dyn EventStore>,
    /// Changes between replicas.
    pub bus: Arc<dyn Bus>,
    /// Tasks (`None`: each server keeps its tasks where its
    /// [`TaskConfig`](crate::tasks::TaskConfig) says).
    pub tasks: Option<Arc<dyn TaskStore>>,
    /// The `requestState` key every replica uses (`None`: the server's own,
    /// see [`ServerBuilder::request_state_key`](crate::server::ServerBuilder::request_state_key)).
    pub request_state_key: Option<RequestStateKey>,
}

/// The name of the shared secret that keys `requestState`.
pub const REQUEST_STATE_SECRET: &str = "request-state-key";
