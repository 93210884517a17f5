use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde_json::value::RawValue;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use tracing::Span;

use super::engine::{PendingCall, Shared};
use super::trace::{self, Outcome, Side};
use crate::jsonrpc::{encode_notification, encode_request};
use crate::schema::{
    CancelledNotification, CancelledNotificationParams, McpNotification, McpRequest,
    ProgressNotificationParams, ProgressToken, RequestId,
};
use crate::transport::{OutboundKind, OutboundMessage};
use crate::{Error, Result, telemetry};

/// Called with each progress notification for a request.
pub type ProgressCallback = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

/// Per-call options of an outgoing request.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct RequestOptions {
    /// Overrides the session's request timeout.
    pub timeout: Option<Duration>,
    /// Asks the peer for progress and receives it.
    pub on_progress: Option<ProgressCallback>,
    /// Cancels the request when fired (dropping the call's future does too).
    pub cancel: Option<CancellationToken>,
}

impl fmt::Debug for RequestOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestOptions")
            .field("timeout", &self.timeout)
            .field("on_progress", &self.on_progress.is_some())
            .field("cancel", &self.cancel)
            .finish()
    }
}

impl RequestOptions {
    /// Sets the timeout of this call.
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Asks for progress notifications and passes each to `callback`.
    #[must_use]
    pub fn on_progress(
        mut self,
        callback: impl Fn(ProgressNotificationParams) + Send + Sync + 'static,
    ) -> Self {
        self.on_progress = Some(Arc::new(callback));
        self
    }

    /// Cancels the call when `token` fires.
    #[must_use]
    pub fn cancel_with(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }
}

/// A handle to the other side of a session: sends requests and
/// notifications. Cheap to clone; usable from any task.
#[derive(Clone)]
pub struct Peer {
    pub(crate) shared: Arc<Shared>,
    /// The inbound request being handled when this handle was given out.
    pub(crate) related: Option<RequestId>,
}

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Peer")
            .field("related", &self.related)
            .finish_non_exhaustive()
    }
}

impl Peer {
    /// Sends a typed request and waits for its typed result.
    pub async fn request<R: McpRequest>(
        &self,
        params: R::Params,
        options: RequestOptions,
    ) -> Result<R::Result> {
        let raw = self.request_raw(R::METHOD, &params, options).await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// Sends a request with any params and returns the raw result.
    pub async fn request_raw<P: Serialize + ?Sized>(
        &self,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let id = self.shared.next_request_id();
        self.request_raw_as(id, method, params, options).await
    }

    #[cfg(feature = "client")]
    /// A fresh id for [`request_raw_as`](Self::request_raw_as), for a caller
    /// that must know it before the request goes out.
    pub(crate) fn next_request_id(&self) -> RequestId {
        self.shared.next_request_id()
    }

    /// [`request_raw`](Self::request_raw) with the id given, in its client
    /// span (a child of the current span).
    pub(crate) async fn request_raw_as<P: Serialize + ?Sized>(
        &self,
        id: RequestId,
        method: &str,
        params: &P,
        options: RequestOptions,
    ) -> Result<Box<RawValue>> {
        let trace = self
            .shared
            .open_trace(Side::Client, &Span::none(), &id, method);
        let result = self
            .exchange(id, method, params, options, &trace.span)
            .await;
        trace.finish(&match &result {
            Ok(raw) => Outcome::Ok(raw.get()),
            Err(Error::Rpc(error)) => Outcome::Error(error),
            Err(error) => Outcome::Failed(error_type(error)),
        });
        result
    }

    /// Sends request `id` and waits for its answer; `span`: the request's
    /// client span, whose trace context goes into the request's `_meta`.
    async fn exchange<P: Serialize + ?Sized>(
        &self,
        id: RequestId,
        method: &str,
        params: &P,
        options: RequestOptions,
        span: &Span,
    ) -> Result<Box<RawValue>> {
        let shared = &self.shared;
        if let Some(reason) = shared.closed_reason() {
            return Err(Error::ConnectionClosed(reason));
        }
        let (progress_tx, mut progress_rx) = match &options.on_progress {
            Some(_) => {
                let (tx, rx) = mpsc::channel(64);
                (Some(tx), Some(rx))
            }
            None => (None, None),
        };
        let text = encode_params(&id, method, params, progress_tx.is_some(), span)?;
        let (reply_tx, mut reply_rx) = oneshot::channel();
        shared.insert_pending(
            id.clone(),
            PendingCall {
                reply: reply_tx,
                progress: progress_tx,
            },
        );
        let mut guard = PendingGuard {
            peer: self,
            id: Some(id.clone()),
        };
        self.send(text, OutboundKind::Request).await?;

        let timeout = options.timeout.unwrap_or(shared.config.request_timeout);
        let started = tokio::time::Instant::now();
        let hard_limit = started + shared.config.max_request_time.max(timeout);
        let mut deadline = started + timeout;
        let never = CancellationToken::new();
        let cancel = options.cancel.as_ref().unwrap_or(&never);
        loop {
            tokio::select! {
                reply = &mut reply_rx => {
                    guard.disarm();
                    // Progress sent before the response still reaches the caller.
                    if let (Some(rx), Some(callback)) = (&mut progress_rx, &options.on_progress) {
                        while let Ok(progress) = rx.try_recv() {
                            callback(progress);
                        }
                    }
                    return reply.unwrap_or_else(|_| Err(Error::ConnectionClosed(
                        shared.closed_reason().unwrap_or_else(|| "the session ended".into()),
                    )));
                }
                Some(progress) = recv_progress(&mut progress_rx) => {
                    if let Some(callback) = &options.on_progress {
                        callback(progress);
                    }
                    if shared.config.reset_timeout_on_progress {
                        deadline = (tokio::time::Instant::now() + timeout).min(hard_limit);
                    }
                }
                () = tokio::time::sleep_until(deadline) => {
                    guard.cancel(format!("timed out after {:?}", deadline - started));
                    return Err(Error::Timeout { method: method.to_string(), timeout: deadline - started });
                }
                () = cancel.cancelled() => {
                    guard.cancel("cancelled by the caller".into());
                    return Err(Error::Cancelled("cancelled by the caller".into()));
                }
            }
        }
    }

    /// Sends a typed notification.
    pub async fn notify<N: McpNotification>(&self, params: N::Params) -> Result<()> {
        self.notify_raw(N::METHOD, &params).await
    }

    /// Sends a notification with any params.
    pub async fn notify_raw<P: Serialize + ?Sized>(&self, method: &str, params: &P) -> Result<()> {
        let mut params = serde_json::value::to_raw_value(params)?;
        if let Some(context) = telemetry::outgoing(&Span::current()) {
            params = telemetry::inject(params, &context)?;
        }
        let params = (params.get() != "null").then_some(&params);
        let text = encode_notification(method, params)?;
        self.send(text, OutboundKind::Notification).await
    }

    /// Ends the response stream of the request this handle is related to
    /// (see [`RequestContext::close_stream`](super::RequestContext::close_stream)).
    pub(crate) async fn close_stream(&self) -> Result<()> {
        if self.related.is_none() {
            return Ok(());
        }
        self.send(String::new(), OutboundKind::CloseStream).await
    }

    async fn send(&self, text: String, kind: OutboundKind) -> Result<()> {
        let message = OutboundMessage {
            text,
            kind,
            related: self.related.clone(),
        };
        self.shared.outbound.send(message).await.map_err(|_| {
            Error::ConnectionClosed(
                self.shared
                    .closed_reason()
                    .unwrap_or_else(|| "the transport is closed".into()),
            )
        })
    }

    /// Whether the session has ended.
    pub fn is_closed(&self) -> bool {
        self.shared.is_closed()
    }

    /// Waits until the session ends.
    pub async fn closed(&self) {
        self.shared.closed().cancelled().await;
    }

    /// Why the session ended, once it has.
    pub fn close_reason(&self) -> Option<String> {
        self.shared.closed_reason()
    }

    /// A handle whose messages are not tied to any inbound request.
    pub fn unrelated(&self) -> Self {
        Self {
            shared: self.shared.clone(),
            related: None,
        }
    }
}

async fn recv_progress(
    rx: &mut Option<mpsc::Receiver<ProgressNotificationParams>>,
) -> Option<ProgressNotificationParams> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// What `error.type` says of a call that failed without an error answer.
fn error_type(error: &Error) -> &'static str {
    match error {
        Error::Timeout { .. } => "timeout",
        Error::Cancelled(_) => "cancelled",
        Error::ConnectionClosed(_) => "connection_closed",
        Error::Transport(_) => "transport",
        _ => "_OTHER",
    }
}

/// Encodes a request, adding `_meta.progressToken` (the request id) when
/// progress is wanted, and the trace context of `span` (or the one the task
/// inherited) when there is one.
fn encode_params<P: Serialize + ?Sized>(
    id: &RequestId,
    method: &str,
    params: &P,
    progress: bool,
    span: &Span,
) -> Result<String> {
    let params = serde_json::value::to_raw_value(params)?;
    trace::record_outgoing_target(span, method, &params);
    let context = telemetry::outgoing(span);
    if !progress {
        let params = match &context {
            Some(context) => telemetry::inject(params, context)?,
            None => params,
        };
        let params = (params.get() != "null").then_some(&params);
        return Ok(encode_request(id, method, params)?);
    }
    let mut value: serde_json::Value = serde_json::from_str(params.get())?;
    if value.is_null() {
        value = serde_json::Value::Object(serde_json::Map::new());
    }
    let Some(object) = value.as_object_mut() else {
        return Err(Error::InvalidArgument(format!(
            "params of `{method}` must be a JSON object"
        )));
    };
    let meta = object
        .entry("_meta")
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        let token = match id {
            RequestId::Integer(n) => ProgressToken::Integer(*n),
            RequestId::String(s) => ProgressToken::String(s.clone()),
        };
        meta.insert("progressToken".into(), serde_json::to_value(token)?);
    }
    if let Some(context) = &context {
        telemetry::insert(object, context);
    }
    Ok(encode_request(id, method, Some(&value))?)
}

/// Removes the pending entry if the call ends without an answer (timeout,
/// cancellation, or the caller dropping the future) and tells the peer.
struct PendingGuard<'a> {
    peer: &'a Peer,
    id: Option<RequestId>,
}

impl PendingGuard<'_> {
    fn disarm(&mut self) {
        self.id = None;
    }

    fn cancel(&mut self, reason: String) {
        let Some(id) = self.id.take() else { return };
        if self.peer.shared.remove_pending(&id).is_none() {
            return;
        }
        let params = CancelledNotificationParams {
            request_id: Some(id),
            reason: Some(reason),
            meta: None,
            ..CancelledNotificationParams::new()
        };
        if let Ok(text) = encode_notification(
            <CancelledNotification as McpNotification>::METHOD,
            Some(&params),
        ) {
            // Best effort: a full or closed transport loses the notice, which
            // the peer tolerates (it will answer a request nobody awaits).
            self.peer.shared.outbound.try_send(OutboundMessage {
                text,
                kind: OutboundKind::Notification,
                related: self.peer.related.clone(),
            });
        }
    }
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.cancel("the caller stopped waiting".into());
    }
}
