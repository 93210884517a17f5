use crate::fast_map::FastMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

mod inbound;

pub(crate) use inbound::Reply;
use inbound::{error_reply, handle_message, oversize};
#[cfg(feature = "http-server")]
use inbound::{handle_decoded, handle_request};

use super::outbound::Outbound;
#[cfg(feature = "http-server")]
use super::outbound::OutboundSink;
use super::trace;
use super::{Peer, RequestContext, SessionConfig};
#[cfg(feature = "http-server")]
use crate::jsonrpc::{DecodeError, Inbound};
use crate::jsonrpc::{InboundNotification, InboundRequest, RpcError};
#[cfg(feature = "http-server")]
use crate::schema::ProgressToken;
use crate::schema::{ProgressNotificationParams, RequestId};
use crate::transport::{InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle};
use crate::{Error, Result};

/// What a handler returns: the encoded result, or the error to answer with.
pub(crate) type RequestFuture = BoxFuture<'static, std::result::Result<Box<RawValue>, RpcError>>;

/// What a request that stands alone returns: its result as the JSON text
/// to send, which the role writes whole (stamped for its revision), so
/// that nothing parses it again only to check it.
#[cfg(feature = "server")]
pub(crate) type AloneFuture = BoxFuture<'static, std::result::Result<String, RpcError>>;

/// A request's result as JSON text, ready to go into its response.
trait ResultJson: Send + 'static {
    fn json(&self) -> &str;
}

impl ResultJson for Box<RawValue> {
    fn json(&self) -> &str {
        self.get()
    }
}

/// Valid JSON by the [`AloneFuture`] contract.
impl ResultJson for String {
    fn json(&self) -> &str {
        self
    }
}

/// A role's handling of inbound messages. Decoding happens synchronously
/// (borrowing the received text); the returned future owns what it needs.
pub(crate) trait Service: Send + Sync + 'static {
    /// Starts handling a request (never a plain `ping`, which the engine
    /// answers; one whose `_meta` names a revision comes here).
    fn request(
        &self,
        request: InboundRequest<'_>,
        ctx: RequestContext,
    ) -> std::result::Result<RequestFuture, RpcError>;

    /// Handles a notification (never cancellation or progress, which the
    /// engine routes).
    fn notification(&self, notification: InboundNotification<'_>, peer: &Peer);

    /// The session ended.
    fn closed(&self, _reason: &str) {}

    #[cfg(feature = "http-server")]
    /// The protocol revision the session negotiated, once it has (a
    /// transport that writes SSE asks, for the priming event).
    fn protocol_version(&self) -> Option<crate::ProtocolVersion> {
        None
    }

    #[cfg(feature = "http-server")]
    /// What a replica needs to re-create the session (opaque text for a
    /// shared store), with a number that grows with each change; `None`
    /// before the handshake, or for a role that cannot be re-created.
    fn record(&self) -> Option<(u64, String)> {
        None
    }

    #[cfg(feature = "http-server")]
    /// The number [`record`](Self::record) would return, without writing
    /// the record.
    fn changes(&self) -> u64 {
        0
    }

    #[cfg(feature = "http-server")]
    /// Makes the session what another replica recorded (see
    /// [`record`](Self::record)).
    fn restore(&self, _record: &str) -> std::result::Result<(), String> {
        Err("this session cannot be re-created from a record".into())
    }

    #[cfg(feature = "http-server")]
    /// Records the identity a transport authenticated for the session;
    /// `false` if the session belongs to another subject.
    fn bind_identity(&self, _identity: &Arc<crate::auth::AuthInfo>) -> bool {
        true
    }
}

#[cfg(feature = "http-server")]
/// What a transport that accepts sessions itself (Streamable HTTP) serves:
/// a role that opens a session on the transport's own sink, and answers a
/// request that stands alone. The transport knows nothing else of the role.
pub(crate) trait Acceptor: Send + Sync + 'static {
    /// Opens a session whose messages go to `sink`; `preset` skips the
    /// handshake, as if a client without capabilities had initialized at
    /// that revision (legacy stateless HTTP, every POST its own session).
    fn open(
        &self,
        sink: Arc<dyn OutboundSink>,
        preset: Option<crate::ProtocolVersion>,
    ) -> Result<Attached>;

    /// Starts a request that stands alone (2026-07-28), its client and
    /// revision read from its `_meta` once, by the transport.
    fn serve_alone(
        &self,
        request: InboundRequest<'_>,
        meta: Box<crate::request_meta::RequestMeta>,
        identity: Option<Arc<crate::auth::AuthInfo>>,
        ctx: RequestContext,
    ) -> std::result::Result<AloneFuture, RpcError>;

    /// The settings of the sessions and requests it serves.
    fn config(&self) -> &SessionConfig;
}

pub(crate) struct PendingCall {
    pub(crate) reply: oneshot::Sender<Result<Box<RawValue>>>,
    pub(crate) progress: Option<mpsc::Sender<ProgressNotificationParams>>,
}

/// State shared by the engine task and every [`Peer`].
pub(crate) struct Shared {
    pub(crate) outbound: Outbound,
    pub(crate) config: SessionConfig,
    /// Made when first asked for: a request standing alone almost never
    /// is, and a token costs an allocation and a locked drop.
    closed: OnceLock<CancellationToken>,
    close_reason: Mutex<Option<String>>,
    pending: Mutex<FastMap<RequestId, PendingCall>>,
    inflight: Mutex<FastMap<RequestId, CancellationToken>>,
    next_id: AtomicI64,
    /// Only a session over a [`Transport`] has a transport to stop.
    transport_close: Option<CancellationToken>,
    transport_done: Option<CancellationToken>,
    /// The session's `mcp.session` span (none for a request that stands
    /// alone; disabled when nobody listens).
    pub(crate) span: tracing::Span,
    /// The transport's `network.transport` (`pipe`, `tcp`), if it has one.
    network_transport: Option<&'static str>,
    /// The Streamable HTTP session id, once known (for request spans).
    session_id: OnceLock<Box<str>>,
    /// The negotiated revision, once known (for request spans).
    protocol_version: OnceLock<&'static str>,
}

/// Locks a mutex; a poisoned lock (a panic while held) still guards
/// consistent data here, since no critical section can leave it half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// Cancelled when the session closes.
    pub(crate) fn closed(&self) -> &CancellationToken {
        self.closed.get_or_init(CancellationToken::new)
    }

    /// Whether the session has closed (without making the token).
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    }

    pub(crate) fn next_request_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub(crate) fn insert_pending(&self, id: RequestId, call: PendingCall) {
        lock(&self.pending).insert(id, call);
        // The session may have closed between the caller's check and now.
        if self.is_closed() {
            self.fail_pending();
        }
    }

    pub(crate) fn remove_pending(&self, id: &RequestId) -> Option<PendingCall> {
        lock(&self.pending).remove(id)
    }

    pub(crate) fn closed_reason(&self) -> Option<String> {
        if !self.is_closed() {
            return None;
        }
        Some(
            lock(&self.close_reason)
                .clone()
                .unwrap_or_else(|| "the session ended".into()),
        )
    }

    fn fail_pending(&self) {
        let reason = self.closed_reason().unwrap_or_default();
        let calls: Vec<_> = lock(&self.pending).drain().collect();
        for (_, call) in calls {
            let _ = call
                .reply
                .send(Err(Error::ConnectionClosed(reason.clone())));
        }
    }

    fn close(&self, reason: String) {
        {
            let mut slot = lock(&self.close_reason);
            if slot.is_none() {
                *slot = Some(reason);
            }
        }
        self.closed().cancel();
        self.fail_pending();
        for (_, token) in lock(&self.inflight).drain() {
            token.cancel();
        }
        if let Some(close) = &self.transport_close {
            close.cancel();
        }
    }

    async fn send(&self, text: String, kind: OutboundKind, related: Option<RequestId>) {
        let message = OutboundMessage {
            text,
            kind,
            related,
        };
        // A closed transport means the session is ending; the reader will
        // notice and fail what is pending.
        let _ = self.outbound.send(message).await;
    }

    fn new(outbound: Outbound, config: SessionConfig, span: tracing::Span) -> Self {
        Self {
            outbound,
            config,
            closed: OnceLock::new(),
            close_reason: Mutex::new(None),
            pending: Mutex::new(FastMap::default()),
            inflight: Mutex::new(FastMap::default()),
            next_id: AtomicI64::new(0),
            transport_close: None,
            transport_done: None,
            span,
            network_transport: None,
            session_id: OnceLock::new(),
            protocol_version: OnceLock::new(),
        }
    }

    /// Names the negotiated revision on the session's span and on the
    /// spans of the requests that follow.
    pub(crate) fn set_protocol_version(&self, version: &'static str) {
        trace::record(&self.span, "mcp.protocol.version", version);
        let _ = self.protocol_version.set(version);
    }

    /// Opens the span of request `id` of `method` on `side`, under
    /// `parent` (the current span when that is none), with the session's
    /// transport and id.
    pub(crate) fn open_trace(
        &self,
        side: trace::Side,
        parent: &tracing::Span,
        id: &RequestId,
        method: &str,
    ) -> trace::RequestTrace {
        let trace = trace::RequestTrace::open(side, parent, id, method, self.network_transport);
        if let Some(session_id) = self.session_id.get() {
            trace::record(&trace.span, "mcp.session.id", session_id);
        }
        if let Some(version) = self.protocol_version.get() {
            trace::record(&trace.span, "mcp.protocol.version", version);
        }
        trace
    }

    /// Cancels request `id` of the peer, if in progress.
    fn cancel_inbound(&self, id: &RequestId, reason: &str) {
        if let Some(token) = lock(&self.inflight).remove(id) {
            tracing::debug!("request {id} cancelled by the peer: {reason}");
            token.cancel();
        }
    }
}

/// A running session: the engine task plus a [`Peer`] to talk to the other
/// side. Dropping it does not end the session; call [`close`](Self::close).
pub struct Session {
    peer: Peer,
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("closed", &self.peer.is_closed())
            .finish()
    }
}

impl Session {
    /// Starts the engine for `service` over `transport` on the current Tokio
    /// runtime.
    pub(crate) fn start(
        transport: impl Transport,
        service: Arc<dyn Service>,
        config: SessionConfig,
    ) -> Result<Self> {
        let network_transport = transport.network_transport();
        let TransportHandle {
            inbound,
            outbound,
            close,
            done,
        } = transport.start()?;
        let span = trace::session(false);
        if let Some(network_transport) = network_transport {
            trace::record(&span, "network.transport", network_transport);
        }
        let shared = Arc::new(Shared {
            transport_close: Some(close),
            transport_done: Some(done),
            network_transport,
            ..Shared::new(Outbound::Channel(outbound), config, span.clone())
        });
        let peer = Peer {
            shared: shared.clone(),
            related: None,
        };
        tokio::spawn(run(shared, inbound, service).instrument(span));
        Ok(Self { peer })
    }

    /// The other side.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Ends the session: pending calls fail, running handlers are cancelled,
    /// and the transport is closed (for a child process: it is shut down).
    /// Returns once the transport has finished closing.
    pub async fn close(&self) {
        self.peer
            .shared
            .close("the session was closed locally".into());
        if let Some(done) = &self.peer.shared.transport_done {
            done.cancelled().await;
        }
    }

    /// Waits until the session ends, and returns why.
    pub async fn closed(&self) -> String {
        self.peer.closed().await;
        self.peer.close_reason().unwrap_or_default()
    }
}

async fn run(
    shared: Arc<Shared>,
    mut inbound: mpsc::Receiver<InboundFrame>,
    service: Arc<dyn Service>,
) {
    // Registered once, not once per message.
    let closed = shared.closed().cancelled();
    tokio::pin!(closed);
    // Each message is handled synchronously; the only await per message is
    // sending its answer. This keeps the task (alive for the whole session)
    // small, and the path of a request short.
    let reason = loop {
        let frame = tokio::select! {
            frame = inbound.recv() => frame,
            () = &mut closed => break "the session was closed locally".to_string(),
        };
        let reply = match frame {
            None => break "the transport ended".to_string(),
            Some(InboundFrame::Closed(reason)) => break reason,
            Some(InboundFrame::Message(text)) => handle_message(&shared, &service, &text),
            Some(InboundFrame::Oversize { limit }) => Some(error_reply(None, &oversize(limit))),
            // Answered with its id, so that the sender's call fails at once.
            Some(InboundFrame::OversizeRequest { limit, id }) => {
                Some(error_reply(Some(id), &oversize(limit)))
            }
            Some(InboundFrame::RequestFailed { id, reason }) => {
                if let Some(call) = shared.remove_pending(&id) {
                    let _ = call
                        .reply
                        .send(Err(Error::Transport(std::io::Error::other(reason))));
                }
                None
            }
            Some(InboundFrame::AuthorizationFailed { id, reason }) => {
                if let Some(call) = shared.remove_pending(&id) {
                    let _ = call.reply.send(Err(Error::Auth(reason)));
                }
                None
            }
            Some(InboundFrame::InvalidUtf8) => Some(error_reply(
                None,
                &RpcError::parse_error("the message is not valid UTF-8"),
            )),
        };
        if let Some(Reply { text, id, .. }) = reply {
            shared.send(text, OutboundKind::Response, id).await;
        }
    };
    tracing::debug!("session ended: {reason}");
    shared.close(reason.clone());
    service.closed(&reason);
}

/// A session whose transport calls in itself, from its own tasks
/// (Streamable HTTP): no read task and no inbound channel. The transport
/// hands each message in already decoded and gets the answer back when it
/// is ready at once; later answers and everything else the session sends go
/// to the transport's [`OutboundSink`].
#[cfg(feature = "http-server")]
pub(crate) struct Attached {
    shared: Arc<Shared>,
    service: Option<Arc<dyn Service>>,
}

#[cfg(feature = "http-server")]
impl fmt::Debug for Attached {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attached")
            .field("closed", &self.shared.is_closed())
            .finish_non_exhaustive()
    }
}

#[cfg(feature = "http-server")]
impl Attached {
    /// A session of `service` whose messages go to `sink`.
    pub(crate) fn new(
        service: Arc<dyn Service>,
        sink: Arc<dyn OutboundSink>,
        config: SessionConfig,
    ) -> Self {
        Self {
            // A root: the session outlives the HTTP request that opened it.
            shared: Arc::new(Shared {
                network_transport: Some("tcp"),
                ..Shared::new(Outbound::Direct(sink), config, trace::session(true))
            }),
            service: Some(service),
        }
    }

    /// The frame of one request that stands alone: it has no session, and
    /// what its handler sends goes to `sink`. Never closed by the
    /// transport: work the handler leaves running (a task) keeps its peer.
    pub(crate) fn alone(sink: Arc<dyn OutboundSink>, config: SessionConfig) -> Self {
        Self {
            shared: Arc::new(Shared {
                network_transport: Some("tcp"),
                ..Shared::new(Outbound::Direct(sink), config, tracing::Span::none())
            }),
            service: None,
        }
    }

    /// The other side.
    pub(crate) fn peer(&self) -> Peer {
        Peer {
            shared: self.shared.clone(),
            related: None,
        }
    }

    /// Numbers the requests this side sends from `first` on (replicas of
    /// one session number theirs apart, so that an answer names one call).
    pub(crate) fn number_requests_from(&self, first: i64) {
        self.shared.next_id.store(first, Ordering::Relaxed);
    }

    /// Whether this side waits for the answer to request `id`.
    pub(crate) fn awaits(&self, id: &RequestId) -> bool {
        lock(&self.shared.pending).contains_key(id)
    }

    /// Names the session: its `Mcp-Session-Id` on its span and on the
    /// spans of its requests.
    pub(crate) fn set_session_id(&self, id: &str) {
        trace::record(&self.shared.span, "mcp.session.id", id);
        trace::record(&self.shared.span, "network.transport", "tcp");
        let _ = self.shared.session_id.set(id.into());
    }

    /// The session's service.
    pub(crate) fn service(&self) -> Option<&Arc<dyn Service>> {
        self.service.as_ref()
    }

    /// Handles one decoded message; returns the answer when it is ready at
    /// once (later ones go to the sink). `http`: the HTTP request that
    /// carried it, which a request's handler can read.
    pub(crate) fn handle(
        &self,
        message: std::result::Result<Inbound<'_>, Box<DecodeError>>,
        http: Option<Arc<http::request::Parts>>,
    ) -> Option<Reply> {
        let service = self.service.as_ref()?;
        handle_decoded(&self.shared, service, message, http)
    }

    /// Starts `request` through `start` (a request that stands alone);
    /// returns its answer when it is ready at once.
    pub(crate) fn handle_alone(
        &self,
        request: InboundRequest<'_>,
        progress_token: Option<ProgressToken>,
        http: Option<Arc<http::request::Parts>>,
        start: impl FnOnce(
            InboundRequest<'_>,
            RequestContext,
        ) -> std::result::Result<AloneFuture, RpcError>,
    ) -> Option<Reply> {
        handle_request(&self.shared, request, |_| progress_token, http, start)
    }

    /// Cancels the peer's request `id`, as `notifications/cancelled` would.
    pub(crate) fn cancel(&self, id: &RequestId, reason: &str) {
        self.shared.cancel_inbound(id, reason);
    }

    /// Ends the session: pending calls fail, running handlers are cancelled.
    pub(crate) fn close(&self, reason: &str) {
        if self.shared.is_closed() {
            return;
        }
        self.shared.close(reason.to_string());
        if let Some(done) = &self.shared.transport_done {
            done.cancel();
        }
        if let Some(service) = &self.service {
            service.closed(reason);
        }
    }
}
