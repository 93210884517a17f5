use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::ProtocolVersion;
use crate::capability::ServerOffers;
use crate::schema::{ClientCapabilities, Implementation, LoggingLevel};
use crate::session::Peer;

/// What the server knows about one client session.
#[derive(Debug)]
pub(crate) struct SessionState {
    /// Random and unguessable: owns this session's tasks.
    pub(crate) id: String,
    /// The id that owns this session's tasks when another replica opened
    /// the session (from its record), so every replica sees the same tasks.
    task_owner: OnceLock<String>,
    pub(crate) peer: Peer,
    pub(crate) client: OnceLock<ClientHello>,
    pub(crate) initialized: AtomicBool,
    log_level: Mutex<Option<LoggingLevel>>,
    /// Whether messages pass before a level is set: yes in a session (until
    /// `logging/setLevel`), no for a stateless request without `logLevel`.
    logs_by_default: bool,
    subscriptions: Mutex<HashSet<String>>,
    /// The input-required round of a stateless request that may have one.
    pub(crate) input: Option<std::sync::Arc<super::input::InputRound>>,
    /// The identity of the latest validated bearer token (protected HTTP).
    auth: Mutex<Option<std::sync::Arc<crate::auth::AuthInfo>>>,
    /// Grows with every change a shared store must hear of (handshake,
    /// level, subscriptions).
    changes: AtomicU64,
}

/// What the handshake settled: the client's half, and which requests the
/// server's answer offers.
#[derive(Clone, Debug)]
pub(crate) struct ClientHello {
    /// Shared: a stateless request that names no client gets the one
    /// default (see [`ClientHello::unnamed`]).
    pub(crate) info: std::sync::Arc<Implementation>,
    /// Shared when empty (see [`ClientHello::capabilities`]).
    pub(crate) capabilities: std::sync::Arc<ClientCapabilities>,
    pub(crate) version: ProtocolVersion,
    /// The requests the server's declared capabilities offer.
    pub(crate) offers: ServerOffers,
}

impl ClientHello {
    /// Capabilities as a session keeps them. The type is large (hundreds of
    /// bytes, mostly empty options); a client declaring none shares one
    /// empty set instead of costing every session a copy.
    pub(crate) fn capabilities(
        capabilities: ClientCapabilities,
    ) -> std::sync::Arc<ClientCapabilities> {
        crate::request_meta::shared_capabilities(capabilities)
    }

    /// The client of a stateless request whose `_meta` names none: one
    /// value for all of them, not a new one per request.
    pub(crate) fn unnamed() -> std::sync::Arc<Implementation> {
        static UNNAMED: OnceLock<std::sync::Arc<Implementation>> = OnceLock::new();
        UNNAMED
            .get_or_init(|| std::sync::Arc::new(Implementation::new("unnamed-client", "")))
            .clone()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl SessionState {
    pub(crate) fn new(peer: Peer) -> Self {
        let mut bytes = [0u8; 16];
        // Without randomness the id is still unique per process, which keeps
        // tasks apart; unguessability is what the OS RNG adds.
        if getrandom::fill(&mut bytes).is_err() {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            bytes[..8].copy_from_slice(&NEXT.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        }
        Self {
            id: bytes.iter().map(|b| format!("{b:02x}")).collect(),
            task_owner: OnceLock::new(),
            peer,
            client: OnceLock::new(),
            initialized: AtomicBool::new(false),
            log_level: Mutex::new(None),
            logs_by_default: true,
            subscriptions: Mutex::new(HashSet::new()),
            input: None,
            auth: Mutex::new(None),
            changes: AtomicU64::new(0),
        }
    }

    /// The state of one stateless request (2026-07-28): its client is what
    /// its `_meta` says, and it logs only at the `logLevel` it asked for.
    /// Owns no tasks, so its id needs no randomness.
    pub(crate) fn for_request(
        peer: Peer,
        hello: ClientHello,
        log_level: Option<LoggingLevel>,
        input: Option<std::sync::Arc<super::input::InputRound>>,
    ) -> Self {
        let state = Self {
            id: String::new(),
            task_owner: OnceLock::new(),
            peer,
            client: OnceLock::new(),
            initialized: AtomicBool::new(true),
            log_level: Mutex::new(log_level),
            logs_by_default: false,
            subscriptions: Mutex::new(HashSet::new()),
            input,
            auth: Mutex::new(None),
            changes: AtomicU64::new(0),
        };
        let _ = state.client.set(hello);
        state
    }

    /// The state a task of the tasks extension runs with: the client of the
    /// request that started it, with neither its input round nor its log
    /// level (a task sends no logs).
    pub(crate) fn for_task(&self) -> Self {
        let state = Self {
            id: String::new(),
            task_owner: OnceLock::new(),
            peer: self.peer.clone(),
            client: OnceLock::new(),
            initialized: AtomicBool::new(true),
            log_level: Mutex::new(None),
            logs_by_default: false,
            subscriptions: Mutex::new(HashSet::new()),
            input: None,
            auth: Mutex::new(self.auth()),
            changes: AtomicU64::new(0),
        };
        if let Some(hello) = self.client.get() {
            let _ = state.client.set(hello.clone());
        }
        state
    }

    /// Who owns this session's tasks: its own id, or the one of the
    /// replica that opened it (see [`adopt_task_owner`](Self::adopt_task_owner)).
    pub(crate) fn task_owner(&self) -> &str {
        self.task_owner.get().map_or(&self.id, String::as_str)
    }

    /// Takes the task owner another replica recorded for this session
    /// (before it serves any request here; the first one sticks).
    #[cfg(feature = "http-server")]
    pub(crate) fn adopt_task_owner(&self, owner: String) {
        let _ = self.task_owner.set(owner);
    }

    pub(crate) fn is_ready(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub(crate) fn set_log_level(&self, level: LoggingLevel) {
        *lock(&self.log_level) = Some(level);
        self.changed();
    }

    #[cfg(feature = "http-server")]
    pub(crate) fn log_level(&self) -> Option<LoggingLevel> {
        *lock(&self.log_level)
    }

    /// Notes a change a shared store must hear of.
    pub(crate) fn changed(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    #[cfg(feature = "http-server")]
    /// How many changes there were (see [`changed`](Self::changed)).
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    #[cfg(feature = "http-server")]
    /// The level and subscriptions another replica recorded.
    pub(crate) fn restore_settings(&self, level: Option<LoggingLevel>, subscriptions: Vec<String>) {
        *lock(&self.log_level) = level;
        *lock(&self.subscriptions) = subscriptions.into_iter().collect();
    }

    #[cfg(feature = "http-server")]
    pub(crate) fn subscriptions(&self) -> Vec<String> {
        lock(&self.subscriptions).iter().cloned().collect()
    }

    /// Whether a message at `level` passes the client's `logging/setLevel`
    /// (in a session everything passes until the client sets a level; a
    /// stateless request gets logs only if it asked with `logLevel`).
    pub(crate) fn logs(&self, level: LoggingLevel) -> bool {
        match *lock(&self.log_level) {
            Some(min) => level.severity() >= min.severity(),
            None => self.logs_by_default,
        }
    }

    pub(crate) fn subscribe(&self, uri: String) {
        lock(&self.subscriptions).insert(uri);
        self.changed();
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        lock(&self.subscriptions).remove(uri);
        self.changed();
    }

    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        lock(&self.subscriptions).contains(uri)
    }

    /// Records the identity behind the current request; refused (false) if
    /// the session belongs to another subject.
    pub(crate) fn set_auth(&self, info: std::sync::Arc<crate::auth::AuthInfo>) -> bool {
        let mut slot = lock(&self.auth);
        if slot
            .as_ref()
            .is_some_and(|known| known.subject != info.subject)
        {
            return false;
        }
        *slot = Some(info);
        true
    }

    pub(crate) fn auth(&self) -> Option<std::sync::Arc<crate::auth::AuthInfo>> {
        lock(&self.auth).clone()
    }
}
