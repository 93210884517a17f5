//! Resuming, with `Last-Event-ID`, a stream another replica wrote (a shared
//! event store): its stored events are read from the store, then the store
//! is polled for more until the request's answer arrives, the client goes
//! away, or the replica running the request is gone — then the client gets
//! a JSON-RPC error for that request instead of waiting forever.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::response::Response;

use super::reply::sse_head;
use super::session::HttpSession;
use super::streams::EventId;
use crate::jsonrpc::{Inbound, RpcError, decode, encode_error};
use crate::store::{EventStore, StreamKey};
use crate::transport::http::sse::encode_event;

/// How often the store is asked for new events.
const POLL: Duration = Duration::from_millis(200);
/// How often the running replica's heartbeat is checked.
const LIVENESS: Duration = Duration::from_secs(1);

struct Follow {
    session: Arc<HttpSession>,
    store: Arc<dyn EventStore>,
    key: StreamKey,
    after: u64,
    checked: Instant,
    ended: bool,
}

/// The event stream resuming `stream` of `session` after event `after`.
pub(super) fn resume(session: Arc<HttpSession>, stream: u64, after: u64) -> Response {
    let store = session.streams().store().clone();
    let key = session.streams().store_key(stream);
    let follow = Follow {
        session,
        store,
        key,
        after,
        checked: Instant::now(),
        ended: false,
    };
    let body = futures::stream::unfold(follow, |mut follow| async move {
        if follow.ended {
            return None;
        }
        let chunk = follow.next_chunk().await?;
        Some((Ok::<_, Infallible>(Bytes::from(chunk)), follow))
    });
    sse_head(Body::from_stream(body))
}

impl Follow {
    /// The next events to send; `None` ends the stream.
    async fn next_chunk(&mut self) -> Option<String> {
        loop {
            if self.session.closed().is_cancelled() {
                return None;
            }
            let shared = self.store.shared()?;
            let events = match shared.read(&self.key, self.after).await {
                Ok(events) => events,
                Err(e) => {
                    // The client resumes again later.
                    tracing::warn!("cannot resume a stream: {e}");
                    return None;
                }
            };
            if !events.is_empty() {
                let (chunk, ended) = sse_chunk(self.key.stream, events, &mut self.after);
                self.ended = ended;
                return Some(chunk);
            }
            if self.checked.elapsed() >= LIVENESS {
                self.checked = Instant::now();
                let replica = u32::try_from(self.key.stream >> 32).unwrap_or_default();
                if let Ok(false) = shared.replica_alive(replica).await {
                    return self.orphaned().await;
                }
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// The replica running the request is gone: one last read, then an
    /// error answering the request (if the stream was a request's).
    async fn orphaned(&mut self) -> Option<String> {
        let shared = self.store.shared()?;
        self.ended = true;
        // What the replica wrote before it went is still the client's.
        let mut chunk = String::new();
        if let Ok(events) = shared.read(&self.key, self.after).await {
            let (taken, answered) = sse_chunk(self.key.stream, events, &mut self.after);
            if answered {
                return Some(taken);
            }
            chunk = taken;
        }
        let Some(request) = shared.request(&self.key).await.ok().flatten() else {
            return Some(chunk).filter(|c| !c.is_empty());
        };
        let error = RpcError::internal(
            "the server replica running this request stopped before answering it",
        );
        chunk.push_str(&encode_event(
            Some(EventId::new(self.key.stream, self.after + 1).as_str()),
            &encode_error(Some(&request), &error),
            None,
        ));
        Some(chunk)
    }
}

/// `events` of stream `stream` as SSE, up to and with the response that
/// ends it (then `true`); `after` moves past what was taken.
fn sse_chunk(stream: u64, events: Vec<(u64, Arc<str>)>, after: &mut u64) -> (String, bool) {
    let mut chunk = String::new();
    for (seq, text) in events {
        chunk.push_str(&encode_event(
            Some(EventId::new(stream, seq).as_str()),
            &text,
            None,
        ));
        *after = seq;
        if matches!(decode(&text), Ok(Inbound::Response(_))) {
            return (chunk, true);
        }
    }
    (chunk, false)
}
