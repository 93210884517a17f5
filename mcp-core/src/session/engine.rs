use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::Poll;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::{Peer, RequestContext, SessionConfig};
use crate::jsonrpc::{
    ErrorCode, Inbound, InboundNotification, InboundRequest, InboundResponse, RpcError, decode,
    encode_empty_result, encode_error, encode_result,
};
use crate::schema::{
    CancelledNotificationParams, ProgressNotificationParams, ProgressToken, RequestId, methods,
};
use crate::transport::{InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle};
use crate::{Error, Result};

/// What a handler returns: the encoded result, or the error to answer with.
pub(crate) type RequestFuture = BoxFuture<'static, std::result::Result<Box<RawValue>, RpcError>>;

/// A role's handling of inbound messages. Decoding happens synchronously
/// (borrowing the received text); the returned future owns what it needs.
pub(crate) trait Service: Send + Sync + 'static {
    /// Starts handling a request (never `ping`, which the engine answers).
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
}

pub(crate) struct PendingCall {
    pub(crate) reply: oneshot::Sender<Result<Box<RawValue>>>,
    pub(crate) progress: Option<mpsc::Sender<ProgressNotificationParams>>,
}

/// State shared by the engine task and every [`Peer`].
pub(crate) struct Shared {
    pub(crate) outbound: mpsc::Sender<OutboundMessage>,
    pub(crate) config: SessionConfig,
    pub(crate) closed: CancellationToken,
    close_reason: Mutex<Option<String>>,
    pending: Mutex<HashMap<RequestId, PendingCall>>,
    inflight: Mutex<HashMap<RequestId, CancellationToken>>,
    next_id: AtomicI64,
    permits: Arc<Semaphore>,
    transport_close: CancellationToken,
    transport_done: CancellationToken,
}

/// Locks a mutex; a poisoned lock (a panic while held) still guards
/// consistent data here, since no critical section can leave it half-written.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    pub(crate) fn next_request_id(&self) -> RequestId {
        RequestId::Integer(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub(crate) fn insert_pending(&self, id: RequestId, call: PendingCall) {
        lock(&self.pending).insert(id, call);
        // The session may have closed between the caller's check and now.
        if self.closed.is_cancelled() {
            self.fail_pending();
        }
    }

    pub(crate) fn remove_pending(&self, id: &RequestId) -> Option<PendingCall> {
        lock(&self.pending).remove(id)
    }

    pub(crate) fn closed_reason(&self) -> Option<String> {
        if !self.closed.is_cancelled() {
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
        self.closed.cancel();
        self.fail_pending();
        for (_, token) in lock(&self.inflight).drain() {
            token.cancel();
        }
        self.transport_close.cancel();
    }

    async fn send(&self, text: String, kind: OutboundKind, related: Option<RequestId>) {
        // A closed transport means the session is ending; the reader will
        // notice and fail what is pending.
        let _ = self
            .outbound
            .send(OutboundMessage {
                text,
                kind,
                related,
            })
            .await;
    }

    async fn respond_error(&self, id: Option<RequestId>, error: &RpcError) {
        let text = encode_error(id.as_ref(), error);
        self.send(text, OutboundKind::Response, id).await;
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
        let TransportHandle {
            inbound,
            outbound,
            close,
            done,
        } = transport.start()?;
        let permits = Arc::new(Semaphore::new(config.max_concurrent_requests));
        let shared = Arc::new(Shared {
            outbound,
            config,
            closed: CancellationToken::new(),
            close_reason: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            inflight: Mutex::new(HashMap::new()),
            next_id: AtomicI64::new(0),
            permits,
            transport_close: close,
            transport_done: done,
        });
        let peer = Peer {
            shared: shared.clone(),
            related: None,
        };
        tokio::spawn(run(shared, inbound, service));
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
        self.peer.shared.transport_done.cancelled().await;
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
    let reason = loop {
        let frame = tokio::select! {
            frame = inbound.recv() => frame,
            () = shared.closed.cancelled() => break "the session was closed locally".to_string(),
        };
        match frame {
            None => break "the transport ended".to_string(),
            Some(InboundFrame::Closed(reason)) => break reason,
            Some(InboundFrame::Message(text)) => handle_message(&shared, &service, &text).await,
            Some(InboundFrame::Oversize { limit }) => {
                let error = RpcError::new(
                    ErrorCode::INVALID_REQUEST,
                    format!("Invalid request: the message exceeds the limit of {limit} bytes"),
                );
                shared.respond_error(None, &error).await;
            }
            Some(InboundFrame::RequestFailed { id, reason }) => {
                if let Some(call) = shared.remove_pending(&id) {
                    let _ = call
                        .reply
                        .send(Err(Error::Transport(std::io::Error::other(reason))));
                }
            }
            Some(InboundFrame::InvalidUtf8) => {
                shared
                    .respond_error(
                        None,
                        &RpcError::parse_error("the message is not valid UTF-8"),
                    )
                    .await;
            }
        }
    };
    tracing::debug!("session ended: {reason}");
    shared.close(reason.clone());
    service.closed(&reason);
}

async fn handle_message(shared: &Arc<Shared>, service: &Arc<dyn Service>, text: &str) {
    match decode(text) {
        Err(e) => shared.respond_error(e.id, &e.error).await,
        Ok(Inbound::Request(request)) => handle_request(shared, service, request).await,
        Ok(Inbound::Notification(notification)) => {
            handle_notification(shared, service, notification)
        }
        Ok(Inbound::Response(response)) => handle_response(shared, response),
    }
}

#[derive(Deserialize)]
struct MetaPeek {
    #[serde(rename = "_meta")]
    meta: Option<ProgressMeta>,
}

#[derive(Deserialize)]
struct ProgressMeta {
    #[serde(rename = "progressToken")]
    progress_token: Option<ProgressToken>,
}

fn progress_token(params: Option<&RawValue>) -> Option<ProgressToken> {
    let peek: MetaPeek = serde_json::from_str(params?.get()).ok()?;
    peek.meta?.progress_token
}

async fn handle_request(
    shared: &Arc<Shared>,
    service: &Arc<dyn Service>,
    request: InboundRequest<'_>,
) {
    let id = request.id.clone();
    if request.method == methods::PING {
        let text = encode_empty_result(&id);
        shared.send(text, OutboundKind::Response, Some(id)).await;
        return;
    }
    let cancel = shared.closed.child_token();
    let duplicate = {
        let mut inflight = lock(&shared.inflight);
        let duplicate = inflight.contains_key(&id);
        if !duplicate {
            inflight.insert(id.clone(), cancel.clone());
        }
        duplicate
    };
    if duplicate {
        let error = RpcError::invalid_request(format!(
            "request id {id} is already in use by a request in progress"
        ));
        // Answer without an id: answering with it would look like the
        // response to the first request.
        shared.respond_error(None, &error).await;
        return;
    }
    let Ok(permit) = shared.permits.clone().try_acquire_owned() else {
        lock(&shared.inflight).remove(&id);
        let limit = shared.config.max_concurrent_requests;
        let error = RpcError::new(
            ErrorCode::SERVER_ERROR,
            format!("too many requests in progress (limit {limit}); retry later"),
        );
        shared.respond_error(Some(id), &error).await;
        return;
    };
    let ctx = RequestContext {
        id: id.clone(),
        peer: Peer {
            shared: shared.clone(),
            related: Some(id.clone()),
        },
        cancel: cancel.clone(),
        progress_token: progress_token(request.params),
    };
    let mut future = match service.request(request, ctx) {
        Ok(future) => future,
        Err(error) => {
            lock(&shared.inflight).remove(&id);
            shared.respond_error(Some(id), &error).await;
            return;
        }
    };
    // Most handlers finish without waiting for anything: poll once here and
    // answer at once, which saves a task (and often a thread hop) per
    // request. A handler still pending continues in its own task, so a slow
    // one never holds up the session.
    let first = std::future::poll_fn(|cx| Poll::Ready(future.as_mut().poll(cx))).await;
    if let Poll::Ready(outcome) = first {
        lock(&shared.inflight).remove(&id);
        drop(permit);
        if cancel.is_cancelled() {
            return;
        }
        let text = match outcome {
            Ok(result) => encode_result(&id, &result),
            Err(error) => encode_error(Some(&id), &error),
        };
        shared.send(text, OutboundKind::Response, Some(id)).await;
        return;
    }
    let shared = shared.clone();
    tokio::spawn(async move {
        // Cancellation drops the handler's future; a handler that finished
        // in the same instant is not answered either (spec: a cancelled
        // request gets no response).
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            outcome = future => Some(outcome).filter(|_| !cancel.is_cancelled()),
        };
        lock(&shared.inflight).remove(&id);
        drop(permit);
        let text = match outcome {
            Some(Ok(result)) => encode_result(&id, &result),
            Some(Err(error)) => encode_error(Some(&id), &error),
            None => return,
        };
        shared.send(text, OutboundKind::Response, Some(id)).await;
    });
}

fn handle_notification(
    shared: &Arc<Shared>,
    service: &Arc<dyn Service>,
    notification: InboundNotification<'_>,
) {
    let params = notification.params.map(RawValue::get).unwrap_or("null");
    if notification.method == methods::NOTIFICATIONS_CANCELLED {
        match serde_json::from_str::<CancelledNotificationParams>(params) {
            Ok(CancelledNotificationParams {
                request_id: Some(id),
                reason,
                ..
            }) => {
                if let Some(token) = lock(&shared.inflight).remove(&id) {
                    tracing::debug!(
                        "request {id} cancelled by the peer: {}",
                        reason.unwrap_or_default()
                    );
                    token.cancel();
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("ignoring malformed cancellation: {e}"),
        }
        return;
    }
    if notification.method == methods::NOTIFICATIONS_PROGRESS {
        match serde_json::from_str::<ProgressNotificationParams>(params) {
            Ok(progress) => route_progress(shared, progress),
            Err(e) => tracing::warn!("ignoring malformed progress notification: {e}"),
        }
        return;
    }
    let peer = Peer {
        shared: shared.clone(),
        related: None,
    };
    service.notification(notification, &peer);
}

fn route_progress(shared: &Shared, progress: ProgressNotificationParams) {
    // Progress tokens we hand out are our request ids.
    let id = match &progress.progress_token {
        ProgressToken::Integer(n) => RequestId::Integer(*n),
        ProgressToken::String(s) => RequestId::String(s.clone()),
    };
    let pending = lock(&shared.pending);
    match pending.get(&id).and_then(|call| call.progress.as_ref()) {
        // A full channel drops the update: progress is advisory.
        Some(tx) => {
            let _ = tx.try_send(progress);
        }
        None => tracing::debug!("progress for unknown token {id}"),
    }
}

fn handle_response(shared: &Shared, response: InboundResponse<'_>) {
    let Some(id) = response.id else {
        if let Err(error) = response.outcome {
            tracing::warn!("the peer reported an error about an unreadable message: {error}");
        }
        return;
    };
    let Some(call) = shared.remove_pending(&id) else {
        tracing::debug!("response to unknown or abandoned request {id}");
        return;
    };
    let outcome = match response.outcome {
        Ok(raw) => Ok(raw.to_owned()),
        Err(error) => Err(Error::Rpc(error)),
    };
    let _ = call.reply.send(outcome);
}
