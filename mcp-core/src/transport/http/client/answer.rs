//! Reading answers: JSON bodies and SSE streams, resumed with
//! `Last-Event-ID` when they end early.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use http::StatusCode;
use http::header::{ACCEPT, CONTENT_TYPE};

use super::{Conn, DEFAULT_RETRY, LAST_EVENT_ID, MAX_RESUME_ATTEMPTS, lock};
use crate::jsonrpc::{Inbound, decode};
use crate::schema::RequestId;
use crate::transport::http::sse::SseParser;

/// How to treat the answer to one request.
#[derive(Clone, Copy)]
pub(super) struct Answer {
    /// An `initialize` result names the session's revision.
    initialize: bool,
    /// A 2026-07-28 `tools/list` result declares tool headers.
    tools_list: bool,
}

impl Answer {
    pub(super) fn of(initialize: bool, tools_list: bool) -> Self {
        Self {
            initialize,
            tools_list,
        }
    }
}

/// Passes on the server's JSON-RPC error for `id`, or describes the HTTP error.
pub(super) async fn forward_error(conn: &Conn, id: &RequestId, status: StatusCode, body: String) {
    if let Ok(Inbound::Response(r)) = decode(&body) {
        if r.id.as_ref() == Some(id) {
            return conn.deliver(body).await;
        }
        if let Err(e) = r.outcome {
            return conn.fail(id, format!("HTTP {status}: {}", e.message)).await;
        }
    }
    let excerpt: String = body.chars().take(200).collect();
    conn.fail(id, format!("HTTP {status}: {excerpt}")).await;
}

/// Reads a JSON or SSE answer to request `id`, resuming the stream if it
/// ends before the response.
pub(super) async fn read_answer(
    conn: &Arc<Conn>,
    id: &RequestId,
    answer: Answer,
    response: reqwest::Response,
) {
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if content_type.starts_with("text/event-stream") {
        let mut cursor = StreamCursor::default();
        let mut answered = read_sse(conn, response, &mut cursor, Some(id), answer).await;
        let mut attempts = 0;
        while !answered && attempts < MAX_RESUME_ATTEMPTS && !conn.close.is_cancelled() {
            let Some(last) = cursor.last_event_id.clone() else {
                break;
            };
            attempts += 1;
            tokio::time::sleep(cursor.retry.unwrap_or(DEFAULT_RETRY)).await;
            let resumed = conn
                .send(reqwest::Method::GET, false, |b| {
                    b.header(ACCEPT, "text/event-stream")
                        .header(LAST_EVENT_ID, last.clone())
                })
                .await;
            match resumed {
                Ok(r) if r.status().is_success() => {
                    answered = read_sse(conn, r, &mut cursor, Some(id), answer).await;
                    attempts = 0;
                }
                Ok(r) => {
                    tracing::debug!(
                        "resuming the stream of request {id} got HTTP {}",
                        r.status()
                    );
                }
                Err(e) => tracing::debug!("resuming the stream of request {id} failed: {e}"),
            }
        }
        if !answered && !conn.close.is_cancelled() {
            conn.fail(
                id,
                "the server's event stream ended before the response".into(),
            )
            .await;
        }
        return;
    }
    let body = match read_limited(conn, response).await {
        Ok(body) => body,
        Err(why) => return conn.fail(id, why).await,
    };
    if answer.initialize {
        note_initialize_result(conn, &body);
    }
    let body = if answer.tools_list {
        conn.learn_tools(body)
    } else {
        body
    };
    conn.deliver(body).await;
}

async fn read_limited(
    conn: &Conn,
    response: reqwest::Response,
) -> std::result::Result<String, String> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| format!("reading the response failed: {e}"))?;
        if body.len() + chunk.len() > conn.limit {
            return Err(format!(
                "the response exceeds the limit of {} bytes",
                conn.limit
            ));
        }
        body.extend_from_slice(&chunk);
    }
    String::from_utf8(body).map_err(|_| "the response is not valid UTF-8".to_string())
}

#[derive(Debug, Default)]
pub(super) struct StreamCursor {
    pub(super) last_event_id: Option<String>,
    pub(super) retry: Option<Duration>,
}

/// Delivers an SSE stream's messages; returns whether the response to
/// `awaited` was among them.
pub(super) async fn read_sse(
    conn: &Arc<Conn>,
    response: reqwest::Response,
    cursor: &mut StreamCursor,
    awaited: Option<&RequestId>,
    answer: Answer,
) -> bool {
    let mut parser = SseParser::new(conn.limit);
    let mut chunks = response.bytes_stream();
    let mut answered = false;
    loop {
        let chunk = tokio::select! {
            c = chunks.next() => c,
            () = conn.close.cancelled() => None,
        };
        let Some(Ok(chunk)) = chunk else { break };
        let events = match parser.feed(&chunk) {
            Ok(events) => events,
            Err(e) => {
                tracing::warn!("dropping a malformed event stream: {}", e.0);
                break;
            }
        };
        for event in events {
            if event.id.is_some() {
                cursor.last_event_id = event.id.clone();
            }
            if event.retry.is_some() {
                cursor.retry = event.retry;
            }
            if event.data.is_empty() {
                continue;
            }
            let mut data = event.data;
            if let Some(awaited) = awaited {
                if let Ok(Inbound::Response(r)) = decode(&data) {
                    if r.id.as_ref() == Some(awaited) {
                        answered = true;
                        if answer.initialize {
                            note_initialize_result(conn, &data);
                        }
                        if answer.tools_list {
                            data = conn.learn_tools(data);
                        }
                    }
                }
            }
            conn.deliver(data).await;
        }
        if answered {
            break;
        }
    }
    answered
}

/// Learns the negotiated protocol version from the initialize result.
fn note_initialize_result(conn: &Conn, body: &str) {
    #[derive(serde::Deserialize)]
    struct Reply {
        result: Option<InitResult>,
    }
    #[derive(serde::Deserialize)]
    struct InitResult {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    if let Ok(Reply { result: Some(r) }) = serde_json::from_str::<Reply>(body) {
        *lock(&conn.version) = Some(r.protocol_version);
    }
}
