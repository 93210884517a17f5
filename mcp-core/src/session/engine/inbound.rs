//! Inbound messages, once decoded: a request is started through the role's
//! service and polled once (most answer at once, with no task), else runs
//! in its own task; notifications (cancellation, progress) and responses to
//! our own requests are routed to where they are awaited.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::task::Poll;

use futures::FutureExt;
use futures::future::BoxFuture;
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

use super::{ResultJson, Service, Shared, lock};
use crate::Error;
use crate::jsonrpc::{
    DecodeError, ErrorCode, Inbound, InboundNotification, InboundRequest, InboundResponse,
    RpcError, decode, encode_empty_result, encode_error, encode_result_json,
};
use crate::request_meta;
use crate::schema::{
    CancelledNotificationParams, ProgressNotificationParams, ProgressToken, RequestId, methods,
};
use crate::session::trace::{Outcome, Side};
use crate::session::{Peer, RequestContext};
use crate::telemetry;
use crate::transport::OutboundKind;

/// The answer to a message over the transport's size limit.
pub(super) fn oversize(limit: usize) -> RpcError {
    RpcError::new(
        ErrorCode::INVALID_REQUEST,
        format!("Invalid request: the message exceeds the limit of {limit} bytes"),
    )
}

/// A response to send for an inbound message: its text, the id of the
/// request it answers (`None` when that id is unknown), and its error code
/// when it is an error (so that a transport whose status follows the error
/// need not read the text again).
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) text: String,
    pub(crate) id: Option<RequestId>,
    /// Read where an HTTP status follows the error.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) error: Option<ErrorCode>,
}

pub(super) fn error_reply(id: Option<RequestId>, error: &RpcError) -> Reply {
    Reply {
        text: encode_error(id.as_ref(), error),
        id,
        error: Some(error.code),
    }
}

pub(super) fn handle_message(
    shared: &Arc<Shared>,
    service: &Arc<dyn Service>,
    text: &str,
) -> Option<Reply> {
    handle_decoded(shared, service, decode(text), None)
}

pub(super) fn handle_decoded(
    shared: &Arc<Shared>,
    service: &Arc<dyn Service>,
    message: std::result::Result<Inbound<'_>, Box<DecodeError>>,
    http: Option<Arc<http::request::Parts>>,
) -> Option<Reply> {
    match message {
        Err(e) if e.notification => {
            tracing::debug!(
                "dropping a notification with bad params: {}",
                e.error.message
            );
            None
        }
        Err(e) => Some(error_reply(e.id, &e.error)),
        Ok(Inbound::Request(request)) => handle_request(
            shared,
            request,
            request_meta::progress_token,
            http,
            |request, ctx| service.request(request, ctx),
        ),
        Ok(Inbound::Notification(notification)) => {
            handle_notification(shared, service, notification);
            None
        }
        Ok(Inbound::Response(response)) => {
            handle_response(shared, response);
            None
        }
    }
}

/// Starts handling a request through `start`; returns the answer when it is
/// ready at once. `token` reads the progress token (from the params, or
/// from what the caller has read already).
pub(super) fn handle_request<R: ResultJson>(
    shared: &Arc<Shared>,
    request: InboundRequest<'_>,
    token: impl FnOnce(Option<&str>) -> Option<ProgressToken>,
    http: Option<Arc<http::request::Parts>>,
    start: impl FnOnce(
        InboundRequest<'_>,
        RequestContext,
    ) -> std::result::Result<
        BoxFuture<'static, std::result::Result<R, RpcError>>,
        RpcError,
    >,
) -> Option<Reply> {
    let id = request.id.clone();
    let limit = shared.config.max_concurrent_requests;
    let (duplicate, busy) = {
        let inflight = lock(&shared.inflight);
        (inflight.contains_key(&id), inflight.len() >= limit)
    };
    // Checked before answering `ping` too: a pong with the id of a request
    // in progress would be taken for that request's answer.
    if duplicate {
        let error = RpcError::invalid_request(format!(
            "request id {id} is already in use by a request in progress"
        ));
        // Answer without an id: answering with it would look like the
        // response to the first request.
        return Some(error_reply(None, &error));
    }
    // A ping that names a revision in its `_meta` goes to the role, which
    // knows whether that revision has `ping` (2026-07-28 does not).
    let claims_a_revision = || {
        request
            .params_text()
            .is_some_and(|p| p.contains("io.modelcontextprotocol/protocolVersion"))
    };
    if request.method == methods::PING && !claims_a_revision() {
        return Some(Reply {
            text: encode_empty_result(&id),
            id: Some(id),
            error: None,
        });
    }
    if busy {
        let error = RpcError::new(
            ErrorCode::SERVER_ERROR,
            format!("too many requests in progress (limit {limit}); retry later"),
        );
        return Some(error_reply(Some(id), &error));
    }
    // Not a child of `closed`: creating and dropping a child locks the
    // parent. Every token of a request in progress is in `inflight`, and
    // closing the session cancels all of them.
    let cancel = CancellationToken::new();
    let trace = shared.open_trace(Side::Server, &shared.span, &id, &request.method);
    // The caller's trace context: the parent of the handler's span, and
    // what the handler's own messages carry on.
    let parent = telemetry::extract(request.params_text()).map(Arc::new);
    if let Some(parent) = &parent {
        telemetry::incoming(&trace.span, parent);
    }
    let ctx = RequestContext {
        id: id.clone(),
        peer: Peer {
            shared: shared.clone(),
            related: Some(id.clone()),
        },
        cancel: cancel.clone(),
        // Read from the decoded request where it has it (no search of the
        // params' text).
        progress_token: match request.decoded.as_ref().and_then(|r| r.progress_token()) {
            Some(token) => token.cloned(),
            None => token(request.params_text()),
        },
        http,
        span: trace.span.clone(),
    };
    let entered = trace.span.enter();
    // A handler that panics answers -32603 and the session goes on (the
    // panic is never unwound into the engine, nor polled again).
    let mut future = match catch_unwind(AssertUnwindSafe(|| start(request, ctx))) {
        Ok(Ok(future)) => match parent {
            Some(parent) => Box::pin(telemetry::inherit(parent, future)),
            None => future,
        },
        Ok(Err(error)) => {
            trace.finish(&Outcome::Error(&error));
            return Some(error_reply(Some(id), &error));
        }
        Err(panic) => {
            let error = panicked(&id, &*panic);
            trace.finish(&Outcome::Error(&error));
            return Some(error_reply(Some(id), &error));
        }
    };
    // Most handlers finish without waiting for anything: poll once here and
    // answer at once, which saves a task (and often a thread hop) per
    // request. Nothing can cancel it meanwhile: cancellations are read by
    // this same task. A handler still pending continues in its own task
    // (which polls it again at once, registering its own waker), so a slow
    // one never holds up the session.
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    let first = match catch_unwind(AssertUnwindSafe(|| future.as_mut().poll(&mut cx))) {
        Ok(first) => first,
        Err(panic) => {
            let error = panicked(&id, &*panic);
            trace.finish(&Outcome::Error(&error));
            return Some(error_reply(Some(id), &error));
        }
    };
    drop(entered);
    if let Poll::Ready(outcome) = first {
        if shared.is_closed() {
            trace.finish(&Outcome::Failed("cancelled"));
            return None;
        }
        return Some(match outcome {
            Ok(result) => {
                trace.finish(&Outcome::Ok(result.json()));
                Reply {
                    text: encode_result_json(&id, result.json()),
                    id: Some(id),
                    error: None,
                }
            }
            Err(error) => {
                trace.finish(&Outcome::Error(&error));
                error_reply(Some(id), &error)
            }
        });
    }
    lock(&shared.inflight).insert(id.clone(), cancel.clone());
    // The session may have closed (and cancelled what was in `inflight`)
    // before the insert.
    if shared.is_closed() {
        cancel.cancel();
    }
    let shared = shared.clone();
    tokio::spawn(async move {
        // Cancellation drops the handler's future; a handler that finished
        // in the same instant is not answered either (spec: a cancelled
        // request gets no response).
        let handler = AssertUnwindSafe(future.instrument(trace.span.clone())).catch_unwind();
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => None,
            outcome = handler => Some(
                outcome.unwrap_or_else(|panic| Err(panicked(&id, &*panic)))
            ).filter(|_| !cancel.is_cancelled()),
        };
        lock(&shared.inflight).remove(&id);
        let (text, kind) = match outcome {
            Some(Ok(result)) => {
                trace.finish(&Outcome::Ok(result.json()));
                (
                    encode_result_json(&id, result.json()),
                    OutboundKind::Response,
                )
            }
            Some(Err(error)) => {
                trace.finish(&Outcome::Error(&error));
                (encode_error(Some(&id), &error), OutboundKind::Response)
            }
            // No response: a transport that streams per request (HTTP) ends
            // the request's stream instead of leaving it open.
            None => {
                trace.finish(&Outcome::Failed("cancelled"));
                (String::new(), OutboundKind::EndStream)
            }
        };
        shared.send(text, kind, Some(id)).await;
    });
    None
}

/// The answer to a request whose handler panicked. The panic's message is
/// logged, not sent: it may describe the server's internals.
fn panicked(id: &RequestId, panic: &(dyn std::any::Any + Send)) -> RpcError {
    let message = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    tracing::error!("the handler of request {id} panicked: {message}");
    RpcError::internal("the request's handler failed unexpectedly")
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
            }) => shared.cancel_inbound(&id, &reason.unwrap_or_default()),
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
    let method = notification.method.clone();
    if catch_unwind(AssertUnwindSafe(|| {
        service.notification(notification, &peer)
    }))
    .is_err()
    {
        tracing::error!("the handler of notification `{method}` panicked");
    }
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
