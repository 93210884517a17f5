//! One MCP session over Streamable HTTP: the engine handle the POSTs call
//! into, and the outlet that writes what the session sends straight to the
//! HTTP response of its stream (no task, no channel in between).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::State;
use super::extract::Rejection;
use super::lease::Lease;

use super::streams::{LiveItem, Streams};
use crate::auth::AuthInfo;
use crate::schema::RequestId;
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
    /// The service's change count last written to the session store.
    persisted: AtomicU64,
    /// The record last read from the session store (unchanged: nothing to
    /// restore).
    restored: Mutex<String>,
    /// With replicas: whether this replica may serve the session without
    /// reading its record again.
    pub(crate) lease: Lease,
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
        forward: Option<mpsc::Sender<Forwarded>>,
    ) -> crate::Result<Arc<Self>> {
        let shared = store.shared().is_some();
        let outlet = Arc::new(Outlet {
            session: id.clone(),
            streams: Mutex::new(Streams::new(Arc::from(id.as_str()), store, json_mode)),
            closed: CancellationToken::new(),
            forward,
        });
        let engine = acceptor.open(outlet.clone(), None)?;
        engine.set_session_id(&id);
        if shared {
            // Requests to the client are numbered apart per replica (20 bits
            // of its id above 32 bits of count: still exact as a JSON number
            // in JavaScript), so that an answer reaching another replica
            // names the one call that waits for it.
            engine.number_requests_from(i64::from(crate::store::replica_id() & 0xf_ffff) << 32);
        }
        Ok(Arc::new(Self {
            id,
            engine,
            outlet,
            created: Instant::now(),
            last_active: AtomicU64::new(0),
            persisted: AtomicU64::new(0),
            restored: Mutex::new(String::new()),
            lease: Lease::default(),
        }))
    }

    /// Makes the session what the store's `record` says, unless that is
    /// what it last was.
    pub(super) fn refresh(&self, record: String) -> Result<(), String> {
        let mut restored = lock(&self.restored);
        if *restored == record {
            return Ok(());
        }
        if let Some(service) = self.engine.service() {
            service.restore(&record)?;
            self.persisted.store(service.changes(), Ordering::Release);
        }
        *restored = record;
        Ok(())
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
    session: String,
    streams: Mutex<Streams>,
    /// Cancelled when the session ends.
    closed: CancellationToken,
    /// With replicas: where a message for the session's GET stream goes
    /// when that stream is not held here (to the replica holding it).
    forward: Option<mpsc::Sender<Forwarded>>,
}

/// A message for a session's GET stream, on its way to the replica that
/// holds that stream: `(session, message)`.
pub(crate) type Forwarded = (String, Arc<str>);

impl Outlet {
    /// Delivers `text`, which another replica forwarded, if the session's
    /// GET stream is held here (stored with it, so it resumes from here).
    pub(crate) fn deliver_forwarded(&self, text: Arc<str>) {
        let mut streams = lock(&self.streams);
        if self.closed.is_cancelled() || !streams.standalone_is_live() {
            return;
        }
        if let Some((live, item)) = streams.push(None, text, false) {
            if let Err(mpsc::error::TrySendError::Full(_)) = live.try_send(item) {
                streams.detach(&live);
            }
        }
    }
}

impl Outlet {
    /// Delivers the answer to request `id` that is in hand already as
    /// shared text (the POST that got it at once also writes it): the
    /// same as [`OutboundSink::deliver`] of a response, without a copy.
    /// Returns whether it is the only event of its stream `stream_id` (so
    /// that nothing need be read back), found under the same lock.
    pub(super) fn deliver_answer(&self, id: RequestId, text: Arc<str>, stream_id: u64) -> bool {
        if self.closed.is_cancelled() {
            return false;
        }
        let mut streams = lock(&self.streams);
        let delivery = streams.push(Some(&id), text, true);
        hand_live(&mut streams, delivery);
        streams.only_the_answer(stream_id)
    }
}

/// Hands a delivered event to the response attached to its stream, if any.
/// The event is stored either way. A response that went away is fine; one
/// whose reader fell behind is ended, so that a slow client neither blocks
/// the session nor grows memory: it resumes with Last-Event-ID.
fn hand_live(streams: &mut Streams, delivery: Option<(mpsc::Sender<LiveItem>, LiveItem)>) {
    if let Some((live, item)) = delivery {
        if let Err(mpsc::error::TrySendError::Full(_)) = live.try_send(item) {
            streams.detach(&live);
        }
    }
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
            kind => {
                let is_response = kind == OutboundKind::Response;
                let text: Arc<str> = Arc::from(message.text);
                if let Some(forward) = &self.forward {
                    if !is_response
                        && streams.goes_to_idle_standalone(message.related.as_ref(), false)
                    {
                        // Kept here too: nobody may hold the stream, and
                        // a GET here later resumes it.
                        let _ = forward.try_send((self.session.clone(), text.clone()));
                    }
                }
                streams.push(message.related.as_ref(), text, is_response)
            }
        };
        hand_live(&mut streams, delivery);
        Ok(())
    }
}

/// A fresh 128-bit random session id.
fn new_session_id() -> Result<String, Rejection> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Rejection::Internal(format!("no randomness: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Finds the session named by the request's `Mcp-Session-Id` (`id`). With a
/// session store, its record decides: gone there is gone here (404), and a
/// session this replica has not seen is re-created from it. A session this
/// replica holds a lease on is served as it is (see `lease.rs`).
pub(super) async fn existing(
    state: &State,
    id: Option<&str>,
) -> Result<Arc<HttpSession>, Rejection> {
    let Some(id) = id else {
        return Err(Rejection::BadRequest(
            "the Mcp-Session-Id header is required".into(),
        ));
    };
    let local = lock(&state.sessions)
        .get(id)
        .filter(|s| !s.closed().is_cancelled())
        .cloned();
    let Some(store) = &state.config.session_store else {
        let session = local.ok_or(Rejection::SessionNotFound("Session not found"))?;
        session.touch();
        return Ok(session);
    };
    if let (Some(session), Some(leases)) = (&local, &state.leases) {
        if leases.valid(&session.lease) {
            session.touch();
            leases.renew_if_due(store, state.config.idle_timeout, session);
            return Ok(session.clone());
        }
    }
    let read = state
        .leases
        .as_ref()
        .map(|leases| (leases.epoch(), super::lease::now_ms()));
    let record = store
        .load(id, state.config.idle_timeout)
        .await
        .map_err(|e| Rejection::StoreUnavailable(e.to_string()))?;
    let Some(record) = record else {
        // Deleted or expired, perhaps on another replica.
        if let Some(session) = lock(&state.sessions).remove(id) {
            session.terminate();
        }
        return Err(Rejection::SessionNotFound("Session not found"));
    };
    let session = match local {
        Some(session) => {
            session.refresh(record).map_err(Rejection::Internal)?;
            session
        }
        None => restore(state, id, record)?,
    };
    if let (Some(leases), Some((epoch, asked))) = (&state.leases, read) {
        leases.grant(&session.lease, epoch, asked);
    }
    session.touch();
    Ok(session)
}

/// A session another replica opened, served here from now on too: made
/// what `record` says before any other request can find it.
fn restore(state: &State, id: &str, record: String) -> Result<Arc<HttpSession>, Rejection> {
    let mut sessions = lock(&state.sessions);
    if let Some(session) = sessions.get(id).filter(|s| !s.closed().is_cancelled()) {
        return Ok(session.clone());
    }
    if sessions.len() >= state.config.max_sessions {
        return Err(Rejection::TooManySessions {
            max: state.config.max_sessions,
        });
    }
    let session = HttpSession::start(
        id.to_string(),
        &*state.acceptor,
        state.config.event_store.clone(),
        state.config.json_response,
        state.forward.clone(),
    )
    .map_err(|e| Rejection::Internal(e.to_string()))?;
    session.refresh(record).map_err(Rejection::Internal)?;
    sessions.insert(id.to_string(), session.clone());
    Ok(session)
}

/// How a change to a session's record reaches the other replicas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reach {
    /// The session is new (its `initialize` was just answered): nobody
    /// else has it.
    Created,
    /// The answer waits until no replica serves the old record (a log
    /// level, subscriptions: the next request must see them).
    Everywhere,
    /// The others hear of it without being waited for (the handshake's
    /// end, which no request depends on).
    Hint,
}

/// Writes what changed in `session` (its handshake, log level,
/// subscriptions) to the session store, before the answer that made the
/// change goes out, so that the next request finds it on any replica.
pub(super) async fn persist(
    state: &State,
    session: &HttpSession,
    reach: Reach,
) -> Result<(), Rejection> {
    let created = reach == Reach::Created;
    let Some(store) = &state.config.session_store else {
        return Ok(());
    };
    let Some(service) = session.engine.service() else {
        return Ok(());
    };
    if !created && session.persisted.load(Ordering::Acquire) == service.changes() {
        return Ok(());
    }
    let Some((changes, record)) = service.record() else {
        return Ok(());
    };
    let ttl = state.config.idle_timeout;
    let read = state
        .leases
        .as_ref()
        .map(|leases| (leases.epoch(), super::lease::now_ms()));
    let written = if created {
        store.create(&session.id, &record, ttl).await
    } else {
        store.update(&session.id, &record, ttl).await
    };
    match written {
        Ok(_) => {
            session.persisted.fetch_max(changes, Ordering::AcqRel);
            *lock(&session.restored) = record;
            if let Some(leases) = &state.leases {
                // Those holding the session (its GET stream) take the new
                // record, with its subscriptions and level.
                match reach {
                    Reach::Created => {}
                    Reach::Everywhere => leases.announce(&session.id, false).await,
                    Reach::Hint => leases.hint(&session.id).await,
                }
                // What was written is what this replica holds.
                if let Some((epoch, asked)) = read {
                    leases.grant(&session.lease, epoch, asked);
                }
            }
            Ok(())
        }
        Err(e) => Err(Rejection::StoreUnavailable(e.to_string())),
    }
}

/// The bus topic of answers to requests another replica sent the client.
pub(super) const ANSWERS_TOPIC: &str = "answers";
/// The bus topic of messages for a session's GET stream held elsewhere.
pub(super) const STREAMS_TOPIC: &str = "streams";

#[derive(serde::Serialize, serde::Deserialize)]
struct ForwardedMessage {
    /// The HTTP server that forwarded it (several may share a process).
    origin: u64,
    session: String,
    message: String,
}

/// Publishes what this replica's sessions forward (see [`Forwarded`]), in
/// order, until the server is gone.
pub(super) async fn forward_to_bus(
    origin: u64,
    mut queue: mpsc::Receiver<Forwarded>,
    bus: Arc<dyn crate::store::Bus>,
) {
    while let Some((session, message)) = queue.recv().await {
        let payload = ForwardedMessage {
            origin,
            session,
            message: message.to_string(),
        };
        let Ok(payload) = serde_json::to_string(&payload) else {
            continue;
        };
        if let Err(e) = bus.publish(STREAMS_TOPIC, payload).await {
            tracing::warn!(
                "a message for a session's stream did not reach the other replicas: {e}"
            );
        }
    }
}

/// Delivers what other replicas forward to the GET streams held here.
pub(super) async fn follow_forwarded(
    origin: u64,
    state: std::sync::Weak<State>,
    bus: Arc<dyn crate::store::Bus>,
) {
    let mut messages = bus.subscribe(STREAMS_TOPIC);
    while let Some(heard) = messages.recv().await {
        let Some(state) = state.upgrade() else { return };
        // A gap: what was lost is still in the event store, where a GET
        // resuming the stream finds it.
        let Some(payload) = heard.message() else {
            continue;
        };
        let Ok(forwarded) = serde_json::from_str::<ForwardedMessage>(&payload) else {
            continue;
        };
        if forwarded.origin == origin {
            continue;
        }
        let session = lock(&state.sessions).get(&forwarded.session).cloned();
        if let Some(session) = session {
            session
                .outlet
                .deliver_forwarded(Arc::from(forwarded.message));
        }
    }
}

/// Hands the client's answer `text` (to request `id` of `session`) to the
/// replica that waits for it, if not this one.
pub(super) async fn route_answer(
    state: &State,
    session: &HttpSession,
    id: Option<&RequestId>,
    text: &str,
) {
    let Some(bus) = &state.config.bus else { return };
    if id.is_some_and(|id| session.engine.awaits(id)) {
        return;
    }
    let payload = serde_json::json!({ "session": session.id, "message": text }).to_string();
    if let Err(e) = bus.publish(ANSWERS_TOPIC, payload).await {
        tracing::warn!("an answer did not reach the other replicas: {e}");
    }
}

/// Takes the client's answers that other replicas received for this one.
pub(super) async fn follow_answers(state: std::sync::Weak<State>, bus: Arc<dyn crate::store::Bus>) {
    #[derive(serde::Deserialize)]
    struct Answer {
        session: String,
        message: String,
    }
    let mut answers = bus.subscribe(ANSWERS_TOPIC);
    while let Some(heard) = answers.recv().await {
        let Some(state) = state.upgrade() else { return };
        // A gap: a client sends again an answer whose question it still sees.
        let Some(payload) = heard.message() else {
            continue;
        };
        let Ok(answer) = serde_json::from_str::<Answer>(&payload) else {
            continue;
        };
        let Some(session) = lock(&state.sessions).get(&answer.session).cloned() else {
            continue;
        };
        if let Ok(crate::jsonrpc::Inbound::Response(response)) =
            crate::jsonrpc::decode(&answer.message)
        {
            if response
                .id
                .as_ref()
                .is_some_and(|id| session.engine.awaits(id))
            {
                let _ = session
                    .engine
                    .handle(Ok(crate::jsonrpc::Inbound::Response(response)), None);
            }
        }
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
        state.forward.clone(),
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
