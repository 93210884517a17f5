//! POST, GET and DELETE on the MCP endpoint.

#![allow(
    clippy::result_large_err,
    reason = "the error is the HTTP response itself, returned at once"
)]

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::State as Extract;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::header::{ACCEPT, ALLOW, CACHE_CONTROL, CONTENT_TYPE};
use http::{HeaderMap, HeaderValue, Method, StatusCode};
use tokio::sync::mpsc;

use super::modern;
use super::session::{HttpSession, lock};
use super::streams::{LiveItem, Replay, STANDALONE, event_id, parse_event_id};
use super::{State, streams::AttachError};
use crate::ProtocolVersion;
use crate::auth::AuthInfo;
use crate::jsonrpc::{ErrorCode, Inbound, RpcError, decode, encode_error, encode_notification};
use crate::schema::{CancelledNotificationParams, RequestId, methods};
use crate::transport::InboundFrame;
use crate::transport::http::sse::encode_event;

pub(crate) const SESSION_HEADER: &str = "mcp-session-id";
pub(crate) const VERSION_HEADER: &str = "mcp-protocol-version";
const LAST_EVENT_ID: &str = "last-event-id";
/// Events buffered for one HTTP response before its reader counts as slow.
const LIVE_CAPACITY: usize = 64;

pub(super) async fn endpoint(
    Extract(state): Extract<Arc<State>>,
    method: Method,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let limit = state.config.max_header_size;
    if header_size(&headers) > limit {
        return http_error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ErrorCode::INVALID_REQUEST,
            format!("Request Header Fields Too Large: the limit is {limit} bytes"),
        );
    }
    if let Err(why) = state.config.host_policy.check(&headers) {
        return http_error(
            StatusCode::FORBIDDEN,
            ErrorCode::SERVER_ERROR,
            format!("Forbidden: {why}"),
        );
    }
    // A protected resource validates the token before anything else.
    let identity = match &state.config.protected_resource {
        None => None,
        Some(resource) => match resource.authenticate(&headers).await {
            Ok(info) => Some(info),
            Err(rejection) => return rejection.into_response(),
        },
    };
    match method {
        Method::POST => post(state, headers, body, identity).await,
        Method::GET => get(state, headers, identity).await,
        Method::DELETE => delete(state, headers, identity).await,
        _ => {
            let mut response = http_error(
                StatusCode::METHOD_NOT_ALLOWED,
                ErrorCode::SERVER_ERROR,
                "Method not allowed: use POST, GET or DELETE",
            );
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            response
        }
    }
}

/// The size of the header fields as sent: `name: value` and CRLF each.
fn header_size(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 4)
        .sum()
}

/// An HTTP error whose body is a JSON-RPC error without an id.
fn http_error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    rpc_error(status, None, &RpcError::new(code, message.into()))
}

pub(super) fn rpc_error(status: StatusCode, id: Option<&RequestId>, error: &RpcError) -> Response {
    (
        status,
        [(CONTENT_TYPE, "application/json")],
        encode_error(id, error),
    )
        .into_response()
}

/// Records the request's identity on its session; a session keeps the
/// subject that opened it (403 for another one).
fn bind_identity(session: &HttpSession, identity: Option<&Arc<AuthInfo>>) -> Result<(), Response> {
    match identity {
        Some(info) if !session.server.state().set_auth(info.clone()) => Err(http_error(
            StatusCode::FORBIDDEN,
            ErrorCode::SERVER_ERROR,
            "Forbidden: the session belongs to another subject",
        )),
        _ => Ok(()),
    }
}

/// The tool a `tools/call` names.
fn tool_name(params: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    serde_json::from_str::<Named>(params?.get())
        .ok()
        .map(|n| n.name)
}

pub(super) fn header<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

struct Accepts {
    json: bool,
    sse: bool,
}

fn accepts(headers: &HeaderMap) -> Accepts {
    let accept = header(headers, ACCEPT.as_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let any = accept.contains("*/*");
    Accepts {
        json: any || accept.contains("application/json") || accept.contains("application/*"),
        sse: any || accept.contains("text/event-stream"),
    }
}

/// The protocol revision a request claims in its header, if any; an
/// unsupported one is an error (400).
fn claimed_version(headers: &HeaderMap) -> Result<Option<ProtocolVersion>, Response> {
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Ok(None);
    };
    // A value that is not visible ASCII is present but invalid, not absent.
    let parsed = value.to_str().ok().and_then(ProtocolVersion::parse);
    parsed.map(Some).ok_or_else(|| {
        let v = String::from_utf8_lossy(value.as_bytes());
        http_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            format!("Bad Request: unsupported MCP-Protocol-Version `{v}`"),
        )
    })
}

fn new_session_id() -> Result<String, Response> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::INTERNAL_ERROR,
            format!("no randomness: {e}"),
        )
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Finds the session named by the request's `Mcp-Session-Id`.
fn existing_session(state: &State, headers: &HeaderMap) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = header(headers, SESSION_HEADER) else {
        return Err(http_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        ));
    };
    let session = lock(&state.sessions).get(id).cloned();
    match session {
        Some(session) if !session.closed.is_cancelled() => {
            session.touch();
            Ok(session)
        }
        _ => Err(http_error(
            StatusCode::NOT_FOUND,
            ErrorCode::SERVER_ERROR,
            "Session not found",
        )),
    }
}

async fn post(
    state: Arc<State>,
    headers: HeaderMap,
    body: Body,
    identity: Option<Arc<AuthInfo>>,
) -> Response {
    let content_type = header(&headers, CONTENT_TYPE.as_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !content_type.starts_with("application/json") {
        return http_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::INVALID_REQUEST,
            "Unsupported Media Type: the body must be application/json",
        );
    }
    let accept = accepts(&headers);
    if !accept.json && !accept.sse {
        return http_error(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: accept application/json and text/event-stream",
        );
    }
    let limit = state.config.max_body_size;
    let Ok(bytes) = axum::body::to_bytes(body, limit).await else {
        return http_error(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::INVALID_REQUEST,
            format!("Payload Too Large: the limit is {limit} bytes"),
        );
    };
    let Ok(text) = String::from_utf8(bytes.to_vec()) else {
        return rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            &RpcError::parse_error("the body is not valid UTF-8"),
        );
    };
    // A request of a revision without sessions (2026-07-28) is checked
    // against its headers here and served alone.
    let stateless_request = match modern::route(&headers, &text) {
        modern::Route::Sessions => false,
        modern::Route::Stateless => true,
        modern::Route::Answered(response) => return response,
    };
    let version = if stateless_request {
        None
    } else {
        match claimed_version(&headers) {
            Ok(v) => v,
            Err(response) => return response,
        }
    };
    // Every request stands alone: one engine for this POST only.
    let one_shot = stateless_request || state.config.stateless;
    // Classify the message (the engine decodes it again, typed).
    let (request_id, is_initialize) = match decode(&text) {
        // A well-formed message with bad params goes to its session like any
        // other: a request is answered -32602, a notification dropped.
        Err(e) if e.method.is_some() => (
            e.id.clone(),
            e.method.as_deref() == Some(methods::INITIALIZE),
        ),
        Err(e) => return rpc_error(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error),
        Ok(Inbound::Request(r)) => {
            // Scopes of the method (and of the tool, for tools/call).
            if let (Some(resource), Some(info)) = (&state.config.protected_resource, &identity) {
                if resource.has_operation_scopes() {
                    let tool = (r.method == methods::TOOLS_CALL)
                        .then(|| tool_name(r.params))
                        .flatten();
                    if let Err(rejection) = resource.authorize(info, &r.method, tool.as_deref()) {
                        return rejection.into_response();
                    }
                }
            }
            (Some(r.id.clone()), r.method == methods::INITIALIZE)
        }
        Ok(_) => (None, false),
    };

    // Whether this request opened the session (a stateful initialize).
    let mut created = false;
    let session = if one_shot {
        // Every request stands alone; initialize itself is answered for
        // clients that send it. A stateless revision's request brings its
        // own revision and client (no preset).
        let preset = (!is_initialize && !stateless_request)
            .then(|| version.unwrap_or(ProtocolVersion::LATEST));
        let id = match new_session_id() {
            Ok(id) => id,
            Err(response) => return response,
        };
        match HttpSession::start(
            id,
            &state.factory,
            preset,
            state.config.event_store.clone(),
            state.config.json_response,
        ) {
            Ok(session) => session,
            Err(e) => {
                return http_error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::INTERNAL_ERROR,
                    e.to_string(),
                );
            }
        }
    } else if header(&headers, SESSION_HEADER).is_none() && is_initialize {
        created = true;
        match create_session(&state) {
            Ok(session) => session,
            Err(response) => return response,
        }
    } else {
        match existing_session(&state, &headers) {
            Ok(session) => session,
            Err(response) => return response,
        }
    };

    if let Err(response) = bind_identity(&session, identity.as_ref()) {
        if one_shot {
            session.terminate().await;
        }
        return response;
    }

    let Some(request_id) = request_id else {
        // Notifications and responses: hand over and acknowledge.
        let delivered = session
            .inbound
            .send(InboundFrame::Message(text))
            .await
            .is_ok();
        if one_shot {
            session.terminate().await;
        }
        return if delivered {
            StatusCode::ACCEPTED.into_response()
        } else {
            http_error(
                StatusCode::NOT_FOUND,
                ErrorCode::SERVER_ERROR,
                "Session not found",
            )
        };
    };

    let (live_tx, mut live_rx) = mpsc::channel(LIVE_CAPACITY);
    let Some(stream_id) =
        lock(&session.streams).open_request(request_id.clone(), live_tx, accept.json)
    else {
        return rpc_error(
            StatusCode::CONFLICT,
            Some(&request_id),
            &RpcError::invalid_request(format!(
                "request id {request_id} is already in progress in this session"
            )),
        );
    };
    if session
        .inbound
        .send(InboundFrame::Message(text))
        .await
        .is_err()
    {
        return http_error(
            StatusCode::NOT_FOUND,
            ErrorCode::SERVER_ERROR,
            "Session not found",
        );
    }
    // Armed from here until the request is answered: if this handler or
    // its event stream is dropped first, the client went away.
    let mut disconnect = DisconnectGuard {
        session: session.clone(),
        // Closing the response stream is how a client cancels a request that
        // stands alone (2026-07-28), e.g. ends a subscriptions/listen.
        request: (state.config.cancel_on_disconnect || stateless_request)
            .then(|| request_id.clone()),
    };
    let first = tokio::select! {
        item = live_rx.recv() => item,
        () = session.closed.cancelled() => None,
    };
    if matches!(
        first,
        None | Some(LiveItem::Close | LiveItem::Event { last: true, .. })
    ) {
        disconnect.disarm();
    }
    let mut stateful_id = (!one_shot).then(|| session.id.clone());
    let ephemeral = one_shot.then(|| session.clone());
    // An initialize that failed (bad params) leaves no session behind: the
    // client gets the error and no session id to use.
    let failed_initialize = created
        && match &first {
            None => true,
            Some(LiveItem::Event {
                text, last: true, ..
            }) => !matches!(decode(text), Ok(Inbound::Response(r)) if r.outcome.is_ok()),
            Some(_) => false,
        };

    let mut response = match first {
        None => http_error(
            StatusCode::NOT_FOUND,
            ErrorCode::SERVER_ERROR,
            "Session ended before answering",
        ),
        Some(LiveItem::Event {
            text, last: true, ..
        }) if accept.json => (
            if stateless_request {
                modern::status_of(&text)
            } else {
                StatusCode::OK
            },
            [(CONTENT_TYPE, "application/json")],
            text.to_string(),
        )
            .into_response(),
        Some(first) => {
            let version = session.server.protocol_version().or(version);
            let priming = version.filter(|v| v.has_sse_priming()).map(|_| {
                encode_event(
                    Some(&event_id(stream_id, 0)),
                    "",
                    Some(state.config.sse_retry),
                )
            });
            sse_response(
                session.clone(),
                stream_id,
                priming,
                Vec::new(),
                Some(first),
                live_rx,
                disconnect,
            )
        }
    };
    if failed_initialize {
        lock(&state.sessions).remove(&session.id);
        session.terminate().await;
        stateful_id = None;
    }
    if let Some(ephemeral) = ephemeral {
        // The stream (if any) still holds the session; end it once idle.
        tokio::spawn(async move {
            while lock(&ephemeral.streams).has_live() {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            ephemeral.terminate().await;
        });
    }
    if let Some(id) = stateful_id {
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
    }
    response
}

fn create_session(state: &State) -> Result<Arc<HttpSession>, Response> {
    if lock(&state.sessions).len() >= state.config.max_sessions {
        return Err(http_error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::SERVER_ERROR,
            format!(
                "Service Unavailable: the server holds its maximum of {} sessions",
                state.config.max_sessions
            ),
        ));
    }
    let id = new_session_id()?;
    let session = HttpSession::start(
        id.clone(),
        &state.factory,
        None,
        state.config.event_store.clone(),
        state.config.json_response,
    )
    .map_err(|e| {
        http_error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::INTERNAL_ERROR,
            e.to_string(),
        )
    })?;
    session.touch();
    lock(&state.sessions).insert(id, session.clone());
    Ok(session)
}

/// Cancels a request, as its client would with `notifications/cancelled`,
/// when dropped while still armed (`request` set): the HTTP response that
/// was to carry its answer went away first.
struct DisconnectGuard {
    session: Arc<HttpSession>,
    request: Option<RequestId>,
}

impl DisconnectGuard {
    /// The request was answered, or the server ended the response itself.
    fn disarm(&mut self) {
        self.request = None;
    }
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        let Some(id) = self.request.take() else {
            return;
        };
        tracing::debug!("request {id}: the HTTP client went away; cancelling it");
        let params = CancelledNotificationParams {
            request_id: Some(id),
            reason: Some("the HTTP client disconnected".into()),
            ..Default::default()
        };
        let Ok(cancel) = encode_notification(methods::NOTIFICATIONS_CANCELLED, Some(&params))
        else {
            return;
        };
        // A full inbound queue means a busy session; the handler then runs
        // to the end, as without this option.
        let _ = self.session.inbound.try_send(InboundFrame::Message(cancel));
    }
}

/// An SSE response: optional priming event, replayed events, then live
/// items until the stream's last event or a server-side close.
fn sse_response(
    session: Arc<HttpSession>,
    stream_id: u64,
    priming: Option<String>,
    replay: Replay,
    first: Option<LiveItem>,
    live: mpsc::Receiver<LiveItem>,
    disconnect: DisconnectGuard,
) -> Response {
    let head: Vec<String> = priming
        .into_iter()
        .chain(
            replay
                .iter()
                .map(|(seq, text)| encode_event(Some(&event_id(stream_id, *seq)), text, None)),
        )
        .collect();
    if let Some((seq, _)) = replay.last() {
        lock(&session.streams).delivered(stream_id, *seq);
    }
    let head = futures::stream::iter(
        head.into_iter()
            .map(|s| Ok::<_, Infallible>(Bytes::from(s))),
    );
    let state = (first, live, disconnect, false);
    let items =
        futures::stream::unfold(state, move |(pending, mut live, mut disconnect, ended)| {
            let session = session.clone();
            async move {
                if ended {
                    return None;
                }
                let item = match pending {
                    Some(item) => Some(item),
                    None => live.recv().await,
                };
                match item {
                    // The server ended the stream (answered, closed for
                    // resumption, or the reader fell behind): not a disconnect.
                    None | Some(LiveItem::Close) => {
                        disconnect.disarm();
                        None
                    }
                    Some(LiveItem::Event { seq, text, last }) => {
                        lock(&session.streams).delivered(stream_id, seq);
                        if last {
                            disconnect.disarm();
                        }
                        let chunk =
                            Bytes::from(encode_event(Some(&event_id(stream_id, seq)), &text, None));
                        Some((Ok::<_, Infallible>(chunk), (None, live, disconnect, last)))
                    }
                }
            }
        });
    let body = Body::from_stream(head.chain(items));
    (
        StatusCode::OK,
        [
            (CONTENT_TYPE, "text/event-stream"),
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn get(state: Arc<State>, headers: HeaderMap, identity: Option<Arc<AuthInfo>>) -> Response {
    if state.config.stateless || modern::names_a_stateless_revision(&headers) {
        return http_error(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::SERVER_ERROR,
            "Method not allowed: stateless server",
        );
    }
    // The spec requires the client to list text/event-stream explicitly.
    let accept = header(&headers, ACCEPT.as_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    if !accept.contains("text/event-stream") {
        return http_error(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Not Acceptable: a GET stream needs Accept: text/event-stream",
        );
    }
    if let Err(response) = claimed_version(&headers) {
        return response;
    }
    let session = match existing_session(&state, &headers) {
        Ok(session) => session,
        Err(response) => return response,
    };
    if let Err(response) = bind_identity(&session, identity.as_ref()) {
        return response;
    }
    let (stream_id, after) = match header(&headers, LAST_EVENT_ID) {
        None => (STANDALONE, None),
        Some(id) => match parse_event_id(id) {
            Some((stream, seq)) => (stream, Some(seq)),
            None => {
                return http_error(
                    StatusCode::BAD_REQUEST,
                    ErrorCode::INVALID_REQUEST,
                    format!("Bad Request: `{id}` is not an event id of this server"),
                );
            }
        },
    };
    let (live_tx, live_rx) = mpsc::channel(LIVE_CAPACITY);
    let attached = lock(&session.streams).attach(stream_id, after, live_tx);
    let (replay, done) = match attached {
        Ok(found) => found,
        Err(AttachError::Busy) => {
            return http_error(
                StatusCode::CONFLICT,
                ErrorCode::SERVER_ERROR,
                "Conflict: that stream is already open",
            );
        }
        Err(AttachError::Unknown) => {
            return http_error(
                StatusCode::NOT_FOUND,
                ErrorCode::SERVER_ERROR,
                "Not Found: no such stream to resume",
            );
        }
    };
    let priming = session
        .server
        .protocol_version()
        .filter(|v| v.has_sse_priming() && after.is_none())
        .map(|_| {
            encode_event(
                Some(&event_id(stream_id, 0)),
                "",
                Some(state.config.sse_retry),
            )
        });
    let live = if done {
        // Nothing more will come: close right after the replay.
        let (_, rx) = mpsc::channel(1);
        rx
    } else {
        live_rx
    };
    // A resumed stream is not tied to the request's first POST: leaving it
    // never cancels.
    let disconnect = DisconnectGuard {
        session: session.clone(),
        request: None,
    };
    sse_response(session, stream_id, priming, replay, None, live, disconnect)
}

async fn delete(
    state: Arc<State>,
    headers: HeaderMap,
    identity: Option<Arc<AuthInfo>>,
) -> Response {
    if state.config.stateless || modern::names_a_stateless_revision(&headers) {
        return http_error(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::SERVER_ERROR,
            "Method not allowed: stateless server",
        );
    }
    let Some(id) = header(&headers, SESSION_HEADER) else {
        return http_error(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Bad Request: the Mcp-Session-Id header is required",
        );
    };
    let known = lock(&state.sessions).get(id).cloned();
    if let Some(session) = &known {
        if let Err(response) = bind_identity(session, identity.as_ref()) {
            return response;
        }
    }
    let session = lock(&state.sessions).remove(id);
    match session {
        Some(session) => {
            session.terminate().await;
            StatusCode::OK.into_response()
        }
        None => http_error(
            StatusCode::NOT_FOUND,
            ErrorCode::SERVER_ERROR,
            "Session not found",
        ),
    }
}
