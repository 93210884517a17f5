//! A 2025-11-25 session's own traffic: the GET stream, a new session when
//! the server forgets ours, DELETE at close.

use std::sync::Arc;
use std::time::Duration;

use http::StatusCode;
use http::header::ACCEPT;

use super::answer::{StreamCursor, read_sse};
use super::{Answer, Conn, DEFAULT_RETRY, LAST_EVENT_ID, MAX_RESUME_ATTEMPTS, lock};

pub(super) enum GetOutcome {
    Open(reqwest::Response),
    /// The server offers no GET stream (405 or 400).
    NotOffered,
    Failed,
}

pub(super) async fn open_get(conn: &Conn, last_event_id: Option<&str>) -> GetOutcome {
    let sent = conn
        .send(reqwest::Method::GET, false, |b| {
            let b = b.header(ACCEPT, "text/event-stream");
            match last_event_id {
                Some(last) => b.header(LAST_EVENT_ID, last),
                None => b,
            }
        })
        .await;
    match sent {
        Ok(r) if r.status().is_success() => GetOutcome::Open(r),
        Ok(r)
            if matches!(
                r.status(),
                StatusCode::METHOD_NOT_ALLOWED | StatusCode::BAD_REQUEST
            ) =>
        {
            GetOutcome::NotOffered
        }
        Ok(r) => {
            tracing::debug!("the GET stream got HTTP {}", r.status());
            GetOutcome::Failed
        }
        Err(e) => {
            tracing::debug!("the GET stream failed: {e}");
            GetOutcome::Failed
        }
    }
}

/// Starts a new session with the remembered handshake, consuming its answer.
pub(super) async fn reinitialize(conn: &Arc<Conn>) -> std::result::Result<(), String> {
    let handshake = lock(&conn.handshake).clone();
    let Some((_, initialize)) = handshake.initialize else {
        return Err("no initialize request to repeat".into());
    };
    *lock(&conn.session_id) = None;
    let response = conn.post(&initialize).await.map_err(|e| e.to_string())?;
    if !response.status().is_success() {
        return Err(format!("HTTP {}", response.status()));
    }
    conn.remember_session(&response);
    // Drain the answer; the engine already has one.
    let _ = response.bytes().await;
    if let Some(initialized) = handshake.initialized {
        conn.post(&initialized).await.map_err(|e| e.to_string())?;
    }
    tracing::info!("the server ended our session; a new one was started");
    Ok(())
}

/// The GET stream for server-initiated messages, reconnected after drops.
pub(super) async fn listen(conn: Arc<Conn>, mut open: Option<reqwest::Response>) {
    let mut cursor = StreamCursor::default();
    let mut failures = 0;
    while !conn.close.is_cancelled() && failures < MAX_RESUME_ATTEMPTS {
        let response = match open.take() {
            Some(response) => Some(response),
            None => {
                let outcome = tokio::select! {
                    o = open_get(&conn, cursor.last_event_id.as_deref()) => o,
                    () = conn.close.cancelled() => return,
                };
                match outcome {
                    GetOutcome::Open(r) => Some(r),
                    GetOutcome::NotOffered => return,
                    GetOutcome::Failed => None,
                }
            }
        };
        match response {
            Some(r) => {
                failures = 0;
                read_sse(&conn, r, &mut cursor, None, Answer::of(false, false)).await;
            }
            None => failures += 1,
        }
        tokio::select! {
            () = tokio::time::sleep(cursor.retry.unwrap_or(DEFAULT_RETRY)) => {}
            () = conn.close.cancelled() => return,
        }
    }
}

pub(super) async fn delete_session(conn: &Conn) {
    if lock(&conn.session_id).is_none() {
        return;
    }
    // The current token, without starting an authorization at close.
    let token = match &conn.auth {
        Some(auth) => auth.token().await.ok().flatten(),
        None => None,
    };
    let method = reqwest::Method::DELETE;
    let credentials = conn
        .credentials(&method, token.as_ref())
        .await
        .unwrap_or_default();
    let request = conn
        .request(method, credentials, false)
        .timeout(Duration::from_secs(2));
    match request.send().await {
        Ok(r) if r.status().is_success() || r.status() == StatusCode::METHOD_NOT_ALLOWED => {}
        Ok(r) => tracing::debug!("DELETE of the session got HTTP {}", r.status()),
        Err(e) => tracing::debug!("DELETE of the session failed: {e}"),
    }
}
