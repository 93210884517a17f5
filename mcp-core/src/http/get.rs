//! GET: the session's standalone stream, or a stream resumed after a
//! `Last-Event-ID`.

use std::sync::Arc;

use axum::response::Response;
use http::HeaderMap;
use http::header::ACCEPT;
use tokio::sync::mpsc;

use super::State;
use super::extract::{McpHeads, Rejection, claimed_version};
use super::modern;
use super::post::LIVE_CAPACITY;
use super::reply::{DisconnectGuard, Owner, header, sse_response};
use super::session;
use super::streams::{AttachError, parse_event_id};
use crate::auth::AuthInfo;

const LAST_EVENT_ID: &str = "last-event-id";

pub(super) async fn get(
    state: &State,
    headers: &HeaderMap,
    mcp: &McpHeads,
    identity: Option<&Arc<AuthInfo>>,
) -> Result<Response, Rejection> {
    if let Some(why) = modern::why_no_sessions(state.config.stateless, headers) {
        return Err(Rejection::Stateless(why));
    }
    // The spec requires the client to list text/event-stream explicitly.
    let accept = header(headers, ACCEPT).unwrap_or("").to_ascii_lowercase();
    if !accept.contains("text/event-stream") {
        return Err(Rejection::NotAcceptable(
            "a GET stream needs Accept: text/event-stream",
        ));
    }
    claimed_version(mcp.version.as_ref())?;
    let session = session::existing(state, mcp.session()).await?;
    session::bind_identity(&session.engine, identity)?;
    let (stream_id, after) = match header(headers, LAST_EVENT_ID) {
        None => (session.streams().standalone(), None),
        Some(id) => match parse_event_id(id) {
            Some((stream, seq)) => (stream, Some(seq)),
            None => {
                return Err(Rejection::BadRequest(format!(
                    "`{id}` is not an event id of this server"
                )));
            }
        },
    };
    if let Some(after) = after {
        if session.streams().is_foreign(stream_id) {
            // Another replica's stream: read from the shared store.
            return Ok(super::remote::resume(session, stream_id, after));
        }
    }
    let (live_tx, live_rx) = mpsc::channel(LIVE_CAPACITY);
    let attached = session.streams().attach(stream_id, after, live_tx);
    let (replay, done) = match attached {
        Ok(found) => found,
        Err(AttachError::Busy) => {
            return Err(Rejection::Conflict(
                "Conflict: that stream is already open".into(),
            ));
        }
        Err(AttachError::Unknown) => {
            return Err(Rejection::SessionNotFound(
                "Not Found: no such stream to resume",
            ));
        }
    };
    let priming = session
        .engine
        .service()
        .and_then(|s| s.protocol_version())
        .filter(|v| v.has_sse_priming() && after.is_none())
        .map(|_| state.config.sse_retry);
    let live = if done {
        // Nothing more will come: close right after the replay.
        let (_, rx) = mpsc::channel(1);
        rx
    } else {
        live_rx
    };
    // A resumed stream is not tied to the request's first POST: leaving it
    // never cancels.
    Ok(sse_response(
        Owner::Session(session),
        stream_id,
        priming,
        replay,
        None,
        live,
        DisconnectGuard::none(),
    ))
}
