//! DELETE: the client ends its session.

use std::sync::Arc;

use axum::response::{IntoResponse, Response};
use http::{HeaderMap, StatusCode};

use super::State;
use super::extract::Rejection;
use super::modern;
use super::reply::{SESSION_HEADER, header};
use super::session::{self, lock};
use crate::auth::AuthInfo;

pub(super) async fn delete(
    state: &State,
    headers: &HeaderMap,
    identity: Option<&Arc<AuthInfo>>,
) -> Result<Response, Rejection> {
    if let Some(why) = modern::why_no_sessions(state.config.stateless, headers) {
        return Err(Rejection::Stateless(why));
    }
    let Some(id) = header(headers, SESSION_HEADER) else {
        return Err(Rejection::BadRequest(
            "the Mcp-Session-Id header is required".into(),
        ));
    };
    let known = lock(&state.sessions).get(id).cloned();
    if let Some(session) = &known {
        session::bind_identity(&session.engine, identity)?;
    }
    // Gone from the store first, then from every replica's leases: from
    // then on every replica answers 404.
    let stored = match &state.config.session_store {
        Some(store) => store
            .delete(id)
            .await
            .map_err(|e| Rejection::StoreUnavailable(e.to_string()))?,
        None => false,
    };
    let session = lock(&state.sessions).remove(id);
    if let Some(session) = &session {
        session.terminate();
    }
    if let (Some(leases), true) = (&state.leases, stored) {
        // No replica serves it on a lease once this is answered.
        leases.announce(id, true).await;
    }
    match session {
        Some(_) => Ok(StatusCode::OK.into_response()),
        None if stored => Ok(StatusCode::OK.into_response()),
        None => Err(Rejection::SessionNotFound("Session not found")),
    }
}
