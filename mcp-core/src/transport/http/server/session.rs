//! One MCP session over Streamable HTTP: the engine handle the POSTs call
//! into, and the outlet that writes what the session sends straight to the
//! HTTP response of its stream (no task, no channel in between).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use http::HeaderMap;

use super::State;
use super::extract::Rejection;
use super::reply::{SESSION_HEADER, header};
use super::streams::{LiveItem, Streams};
use crate::auth::AuthInfo;
use crate::session::{Acceptor, Attached, OutboundSink};
use crate::transport::{OutboundKind, OutboundMessage};

#[derive(Debug)]
pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) engine: Attached,
    pub(crate) outlet: Arc<Outlet>,
    created: Instant,
    /// Milliseconds since `created` of the last request.
    last_active: AtomicU64,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl HttpSession {
    /// Opens a session of `acceptor`.
    pub(crate) fn start(
        id: String,
        acceptor: &dyn Acceptor,
        store: Arc<dyn super::EventStore>,
        json_mode: bool,
    ) -> crate::Result<Arc<Self>> {
        let outlet = Arc::new(Outlet {
            streams: Mutex::new(Streams::new(id.clone(), store, json_mode)),
            closed: CancellationToken::new(),
        });
        let engine = acceptor.open(outlet.clone(), None)?;
        Ok(Arc::new(Self {
            id,
            engine,
            outlet,
            created: Instant::now(),
            last_active: AtomicU64::new(0),
        }))
    }

    pub(crate) fn streams(&self) -> MutexGuard<'_, Streams> {
        lock(&self.outlet.streams)
    }

    pub(crate) fn closed(&self) -> &CancellationToken {
        &self.outlet.closed
    }

    pub(crate) fn touch(&self) {
        let now = u64::try_from(self.created.elapsed().as_millis()).unwrap_or(u64::MAX);
        self.last_active.store(now, Ordering::Relaxed);
    }

    pub(crate) fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last_active.load(Ordering::Relaxed));
        self.created.elapsed().saturating_sub(last)
    }

    /// Ends the session: the engine closes and every attached response ends.
    pub(crate) fn terminate(&self) {
        self.outlet.closed.cancel();
        self.streams().forget_all();
        self.engine.close("the HTTP session ended");
    }
}

/// Where a session's messages go: each to the response of its stream, in
/// the task that sends it.
#[derive(Debug)]
pub(crate) struct Outlet {
    streams: Mutex<Streams>,
    /// Cancelled when the session ends.
    closed: CancellationToken,
}

impl OutboundSink for Outlet {
    fn deliver(&self, message: OutboundMessage) -> Result<(), ()> {
        if self.closed.is_cancelled() {
            return Err(());
        }
        let mut streams = lock(&self.streams);
        let delivery = match message.kind {
            OutboundKind::CloseStream => message
                .related
                .as_ref()
                .and_then(|id| streams.close_request_stream(id))
                .map(|live| (live, LiveItem::Close)),
            OutboundKind::EndStream => message
                .related
                .as_ref()
                .and_then(|id| streams.end_request_stream(id))
                .map(|live| (live, LiveItem::Close)),
            kind => streams.push(
                message.related.as_ref(),
                Arc::from(message.text),
                kind == OutboundKind::Response,
            ),
        };
        if let Some((live, item)) = delivery {
            // The event is stored either way. A response that went away is
            // fine; one whose reader fell behind is ended, so that a slow
            // client neither blocks the session nor grows memory: it resumes
            // with Last-Event-ID.
            if let Err(mpsc::error::TrySendError::Full(_)) = live.try_send(item) {
                streams.detach(&live);
            }
        }
        Ok(())
    }
}

/// A fresh 128-bit random session id.
fn new_session_id() -> Result<String, Rejection> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Rejection::Internal(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Finds the session named by the request's `Mcp-Session-Id`.
pub(super) fn existing(state: &State, headers: &HeaderMap) -> Result<Arc<HttpSession>, Rejection> {
    let Some(id) = header(headers, SESSION_HEADER) else {
        return Err(Rejection::BadRequest(
            "the Mcp-Session-Id header is required".into(),
        ));
    };
    let session = lock(&state.sessions).get(id).cloned();
    match session {
        Some(session) if !session.closed().is_cancelled() => {
            session.touch();
            Ok(session)
        }
        _ => Err(Rejection::SessionNotFound("Session not found")),
    }
}

/// Opens a session for an `initialize` and keeps it.
pub(super) fn create(state: &State) -> Result<Arc<HttpSession>, Rejection> {
    if lock(&state.sessions).len() >= state.config.max_sessions {
        return Err(Rejection::TooManySessions {
            max: state.config.max_sessions,
        });
    }
    let id = new_session_id()?;
    let session = HttpSession::start(
        id.clone(),
        &*state.acceptor,
        state.config.event_store.clone(),
        state.config.json_response,
    )
    .map_err(|e| Rejection::Internal(e.to_string()))?;
    session.touch();
    lock(&state.sessions).insert(id, session.clone());
    Ok(session)
}

/// Records the request's identity on its session; a session keeps the
/// subject that opened it (403 for another one).
pub(super) fn bind_identity(
    engine: &Attached,
    identity: Option<&Arc<AuthInfo>>,
) -> Result<(), Rejection> {
    match (identity, engine.service()) {
        (Some(info), Some(service)) if !service.bind_identity(info) => Err(Rejection::Forbidden(
            "the session belongs to another subject".into(),
        )),
        _ => Ok(()),
    }
}
