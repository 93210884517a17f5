//! What the endpoint answers with: JSON-RPC errors as HTTP responses, JSON
//! bodies, and event streams (priming event, replayed events, live items).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use http::header::{AsHeaderName, CACHE_CONTROL, CONTENT_TYPE, HeaderName};
use http::{HeaderMap, HeaderValue, StatusCode};
use tokio::sync::mpsc;

use super::session::HttpSession;
use super::streams::{EventId, LiveItem, Replay};
use crate::jsonrpc::{ErrorCode, RpcError, encode_error};
use crate::schema::RequestId;
use crate::session::Attached;
use crate::transport::http::sse::{encode_event, push_event};

// Header names as `HeaderName`s, parsed once: a lookup by `&str` parses
// (validates and lower-cases) the name on every call.
static SESSION: HeaderName = HeaderName::from_static("mcp-session-id");
static VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
pub(crate) const SESSION_HEADER: &HeaderName = &SESSION;
pub(crate) const VERSION_HEADER: &HeaderName = &VERSION;

pub(super) fn header<K: AsHeaderName>(headers: &HeaderMap, name: K) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// An HTTP error whose body is a JSON-RPC error without an id.
pub(super) fn http_error(
    status: StatusCode,
    code: ErrorCode,
    message: impl Into<String>,
) -> Response {
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

/// A JSON-RPC message as a whole JSON body.
pub(super) fn json_body(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// The priming event of a stream (an id and the retry hint, no data).
fn priming_event(stream_id: u64, retry: Duration) -> String {
    encode_event(Some(EventId::new(stream_id, 0).as_str()), "", Some(retry))
}

/// An event stream that is complete already: the priming event (when
/// `priming` gives its retry hint) and every event, with no live part;
/// written into one buffer.
pub(super) fn complete_sse(
    stream_id: u64,
    priming: Option<Duration>,
    events: &[(u64, Arc<str>)],
) -> Response {
    let size: usize = events.iter().map(|(_, text)| text.len() + 64).sum();
    // One allocation of the whole size (the priming event is under 64).
    let mut body = String::with_capacity(64 + size);
    if let Some(retry) = priming {
        push_event(
            &mut body,
            Some(EventId::new(stream_id, 0).as_str()),
            "",
            Some(retry),
        );
    }
    for (seq, text) in events {
        push_event(
            &mut body,
            Some(EventId::new(stream_id, *seq).as_str()),
            text,
            None,
        );
    }
    sse_head(Body::from(body))
}

pub(super) fn sse_head(body: Body) -> Response {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// Who to tell what became of a live event stream.
pub(super) enum Owner {
    /// A stream of a session: deliveries are noted for resumption.
    Session(Arc<HttpSession>),
    /// A request standing alone: nothing to note.
    Alone,
}

/// Cancels a request, as its client would with `notifications/cancelled`,
/// when dropped while still armed: the HTTP response that was to carry its
/// answer went away first. Ends a session of one POST when dropped.
pub(super) struct DisconnectGuard {
    pub(super) engine: Option<Arc<EngineRef>>,
    pub(super) request: Option<RequestId>,
    /// A session of this one POST (legacy stateless): ended with it.
    pub(super) end_session: bool,
}

/// The engine a guard talks to: a session's, or a lone request's.
pub(super) enum EngineRef {
    Session(Arc<HttpSession>),
    Own(Attached),
}

impl EngineRef {
    fn engine(&self) -> &Attached {
        match self {
            Self::Session(session) => &session.engine,
            Self::Own(engine) => engine,
        }
    }
}

impl DisconnectGuard {
    /// A guard that does nothing.
    pub(super) fn none() -> Self {
        Self {
            engine: None,
            request: None,
            end_session: false,
        }
    }

    /// The request was answered, or the server ended the response itself.
    pub(super) fn disarm(&mut self) {
        self.request = None;
    }
}

impl Drop for DisconnectGuard {
    fn drop(&mut self) {
        let Some(engine) = &self.engine else { return };
        let engine = engine.engine();
        if let Some(id) = self.request.take() {
            tracing::debug!("request {id}: the HTTP client went away; cancelling it");
            engine.cancel(&id, "the HTTP client disconnected");
        }
        if self.end_session {
            engine.close("the POST of a stateless session ended");
        }
    }
}

/// A live SSE response: optional priming event, replayed events, then live
/// items until the stream's last event or a server-side close.
pub(super) fn sse_response(
    owner: Owner,
    stream_id: u64,
    priming: Option<Duration>,
    replay: Replay,
    first: Option<LiveItem>,
    live: mpsc::Receiver<LiveItem>,
    disconnect: DisconnectGuard,
) -> Response {
    let owner = Arc::new(owner);
    let head: Vec<String> = priming
        .map(|retry| priming_event(stream_id, retry))
        .into_iter()
        .chain(replay.iter().map(|(seq, text)| {
            encode_event(Some(EventId::new(stream_id, *seq).as_str()), text, None)
        }))
        .collect();
    if let (Some((seq, _)), Owner::Session(session)) = (replay.last(), &*owner) {
        session.streams().delivered(stream_id, *seq);
    }
    let head = futures::stream::iter(
        head.into_iter()
            .map(|s| Ok::<_, Infallible>(Bytes::from(s))),
    );
    let state = (first, live, disconnect, false);
    let items =
        futures::stream::unfold(state, move |(pending, mut live, mut disconnect, ended)| {
            let owner = owner.clone();
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
                        if let Owner::Session(session) = &*owner {
                            session.streams().delivered(stream_id, seq);
                        }
                        if last {
                            disconnect.disarm();
                        }
                        let chunk = Bytes::from(encode_event(
                            Some(EventId::new(stream_id, seq).as_str()),
                            &text,
                            None,
                        ));
                        Some((Ok::<_, Infallible>(chunk), (None, live, disconnect, last)))
                    }
                }
            }
        });
    sse_head(Body::from_stream(head.chain(items)))
}
