//! What a group reports: each server's state, and the events of the group.

use std::fmt;

use crate::ProtocolVersion;
use crate::schema::{Implementation, ServerNotification};

/// Where a server of a group stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerState {
    /// Being started or connected.
    Connecting,
    /// Connected and initialized.
    Connected,
    /// Could not be started, reached or initialized (see
    /// [`ServerStatus::error`]); tried again by a call that needs it, at
    /// most once per retry interval.
    Failed,
    /// Was connected and went away (the process exited, the connection
    /// closed); started again by the next call that needs it.
    Disconnected,
    /// The group was closed.
    Closed,
}

impl ServerState {
    /// The state as a word (`connecting`, `connected`, `failed`,
    /// `disconnected`, `closed`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::Failed => "failed",
            Self::Disconnected => "disconnected",
            Self::Closed => "closed",
        }
    }
}

impl fmt::Display for ServerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One server of a group, as it stands.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerStatus {
    /// Its name in the configuration.
    pub name: String,
    /// `stdio` or `http`.
    pub kind: &'static str,
    /// Its state.
    pub state: ServerState,
    /// Why it failed or went away (for [`ServerState::Failed`] and
    /// [`ServerState::Disconnected`]).
    pub error: Option<String>,
    /// The revision spoken with it (once connected).
    pub protocol_version: Option<ProtocolVersion>,
    /// Its name and version, as it gave them (once connected).
    pub server_info: Option<Implementation>,
    /// How many tools it has in the merged list (the last ones it listed).
    pub tools: usize,
    /// How many times it was connected (1 after the first connection; more
    /// after reconnections).
    pub connections: u64,
}

impl ServerStatus {
    pub(super) fn new(name: &str, kind: &'static str) -> Self {
        Self {
            name: name.to_string(),
            kind,
            state: ServerState::Connecting,
            error: None,
            protocol_version: None,
            server_info: None,
            tools: 0,
            connections: 0,
        }
    }
}

/// Something that happened in a group
/// ([`ClientGroup::events`](super::ClientGroup::events)).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum GroupEvent {
    /// A server's state changed.
    Status(ServerStatus),
    /// The merged tool list changed (a server announced a change, was
    /// connected or reconnected); it is already up to date.
    ToolsChanged {
        /// The server whose tools changed.
        server: String,
    },
    /// The merged prompt list changed; it is already up to date.
    PromptsChanged {
        /// The server whose prompts changed.
        server: String,
    },
    /// A server announced that its resource list changed.
    ResourcesChanged {
        /// The server.
        server: String,
    },
    /// Any notification from a server (list changes, resource updates, log
    /// messages, progress, …), with the server's name.
    Notification {
        /// The server.
        server: String,
        /// What it sent.
        notification: ServerNotification,
    },
}

/// An item of a merged list, with the server it comes from.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FromServer<T> {
    /// The server's name in the configuration.
    pub server: String,
    /// The item, as the server gave it.
    pub item: T,
}
