use std::time::Duration;

use crate::jsonrpc::RpcError;

/// Everything that can go wrong in `mcp-core`, as a Rust caller sees it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The peer answered with a JSON-RPC error.
    #[error("the peer answered with an error: {0}")]
    Rpc(#[from] RpcError),
    /// The request did not get an answer in time; it was cancelled.
    #[error("request `{method}` timed out after {timeout:?}")]
    Timeout {
        /// The method of the request.
        method: String,
        /// The timeout that expired.
        timeout: Duration,
    },
    /// The request was cancelled by the caller.
    #[error("request cancelled: {0}")]
    Cancelled(String),
    /// The connection is closed (peer gone, transport failed or session ended).
    #[error("connection closed: {0}")]
    ConnectionClosed(String),
    /// The peer did not declare the capability this operation needs.
    #[error(
        "the peer does not support `{method}`: it did not declare the `{capability}` capability"
    )]
    CapabilityNotSupported {
        /// The method that needs the capability.
        method: String,
        /// The capability, as a path such as `sampling` or `resources.subscribe`.
        capability: String,
    },
    /// Version negotiation failed.
    #[error("protocol version: {0}")]
    ProtocolVersion(String),
    /// The session is not in a state that allows this (e.g. not initialized).
    #[error("{0}")]
    Lifecycle(String),
    /// A message could not be encoded or a result could not be decoded.
    #[error("invalid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// Something the peer sent does not follow the protocol.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// A transport failed (spawning a process, reading, writing).
    #[error("transport: {0}")]
    Transport(#[from] std::io::Error),
    /// An argument given to this library is not valid.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// OAuth authorization failed (discovery, registration, the user's
    /// consent, the token endpoint, or the server refusing every token).
    #[error("authorization failed: {0}")]
    Auth(String),
    /// A configuration (such as an `mcpServers` file) is not valid; the
    /// message names the entry and what is wrong with it.
    #[error("invalid configuration: {0}")]
    Config(String),
    /// A server of a [`ClientGroup`](crate::client::ClientGroup) failed:
    /// it could not be started or reached, it went away, or it answered
    /// with an error (`source`).
    #[error("server `{server}`: {source}")]
    Member {
        /// The server's name in the configuration.
        server: String,
        /// What went wrong.
        #[source]
        source: Box<Error>,
    },
    /// A skill (the skills extension) was refused: one that breaks the
    /// extension's rules when built or loaded, or a file read that does not
    /// match its listed entry (digest, size, frontmatter).
    #[cfg(any(feature = "server", feature = "client"))]
    #[error("skill {uri}: {problem}")]
    Skill {
        /// The skill's URI (its `SKILL.md`).
        uri: String,
        /// What is wrong.
        problem: crate::skills::SkillProblem,
    },
    /// A shared store (sessions, events, the bus between replicas) failed.
    #[error("the store {store} failed: {message}")]
    Store {
        /// The store, as it names itself (e.g. `redis://127.0.0.1:6379/0`).
        store: String,
        /// What failed.
        message: String,
    },
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
