//! The connection's requests: headers, authorization, and what a failed
//! request tells the engine.

use std::fmt;

use http::HeaderValue;
use http::header::{ACCEPT, CONTENT_TYPE};

use super::{Conn, SESSION_HEADER, VERSION_HEADER, lock};
use crate::Error;
use crate::auth::{AuthChallenge, MAX_AUTH_ATTEMPTS, Secret};
use crate::schema::RequestId;
use crate::transport::InboundFrame;

/// Headers that present a token.
pub(super) type Credentials = Vec<(http::HeaderName, HeaderValue)>;

/// Why a request could not be sent.
pub(super) enum SendError {
    Http(reqwest::Error),
    /// Authorization failed (the error says why; it holds no token).
    Auth(Error),
}

impl fmt::Display for SendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Http(e) => write!(f, "HTTP request failed: {e}"),
            Self::Auth(error) => error.fmt(f),
        }
    }
}

impl Conn {
    /// The headers that present `token` (the provider's: Bearer, or DPoP
    /// with a fresh proof) on a request of `method`.
    pub(super) async fn credentials(
        &self,
        method: &reqwest::Method,
        token: Option<&Secret>,
    ) -> crate::Result<Credentials> {
        match (&self.auth, token) {
            (Some(auth), Some(token)) => auth.present(token, method, &self.url).await,
            _ => Ok(Vec::new()),
        }
    }

    /// A request to the endpoint with `credentials`; `sessionless` leaves
    /// out the session's headers (a 2026-07-28 request carries its own).
    pub(super) fn request(
        &self,
        method: reqwest::Method,
        credentials: Credentials,
        sessionless: bool,
    ) -> reqwest::RequestBuilder {
        let mut headers = self.headers.clone();
        // Replaces any Authorization header set by hand.
        headers.extend(credentials.into_iter().map(|(k, v)| (Some(k), v)));
        let mut builder = self.http.request(method, &self.url).headers(headers);
        if sessionless {
            return builder;
        }
        if let Some(id) = lock(&self.session_id).clone() {
            builder = builder.header(SESSION_HEADER, id);
        }
        if let Some(version) = lock(&self.version).clone() {
            builder = builder.header(VERSION_HEADER, version);
        }
        builder
    }

    /// Sends a request (`decorate` adds to it) with the current token; on an
    /// authorization challenge lets the provider act, boundedly, and sends
    /// it again.
    pub(super) async fn send(
        &self,
        method: reqwest::Method,
        sessionless: bool,
        decorate: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> std::result::Result<reqwest::Response, SendError> {
        let Some(auth) = &self.auth else {
            return decorate(self.request(method, Vec::new(), sessionless))
                .send()
                .await
                .map_err(SendError::Http);
        };
        let mut attempts = 0;
        loop {
            let token = auth.token().await.map_err(SendError::Auth)?;
            let credentials = self
                .credentials(&method, token.as_ref())
                .await
                .map_err(SendError::Auth)?;
            let response = decorate(self.request(method.clone(), credentials, sessionless))
                .send()
                .await
                .map_err(SendError::Http)?;
            let status = response.status().as_u16();
            let Some(challenge) = AuthChallenge::from_response(status, response.headers()) else {
                return Ok(response);
            };
            drop(response);
            if attempts == MAX_AUTH_ATTEMPTS {
                let why = format!(
                    "the server still refuses the request after {attempts} attempts ({})",
                    challenge.describe()
                );
                return Err(SendError::Auth(Error::Auth(why)));
            }
            attempts += 1;
            auth.handle_challenge(&challenge, token.as_ref())
                .await
                .map_err(SendError::Auth)?;
        }
    }

    pub(super) async fn post(
        &self,
        text: &str,
    ) -> std::result::Result<reqwest::Response, SendError> {
        self.post_with(text, None).await
    }

    /// POSTs `text`, a 2026-07-28 request when `modern` has its headers.
    pub(super) async fn post_with(
        &self,
        text: &str,
        modern: Option<&[(String, String)]>,
    ) -> std::result::Result<reqwest::Response, SendError> {
        self.send(reqwest::Method::POST, modern.is_some(), |b| {
            let mut b = b
                .header(ACCEPT, "application/json, text/event-stream")
                .header(CONTENT_TYPE, "application/json");
            for (name, value) in modern.unwrap_or_default() {
                b = b.header(name.as_str(), value.as_str());
            }
            b.body(text.to_string())
        })
        .await
    }

    pub(super) async fn deliver(&self, text: String) {
        let frame = if text.len() > self.limit {
            InboundFrame::Oversize { limit: self.limit }
        } else {
            InboundFrame::Message(text)
        };
        let _ = self.inbound.send(frame).await;
    }

    /// Fails a request locally: it never got an answer from the peer.
    pub(super) async fn fail(&self, id: &RequestId, reason: String) {
        let frame = InboundFrame::RequestFailed {
            id: id.clone(),
            reason,
        };
        let _ = self.inbound.send(frame).await;
    }

    /// Fails a request that could not be sent: an authorization failure
    /// reaches the caller as `Error::Auth`, anything else as a transport
    /// error.
    pub(super) async fn fail_send(&self, id: &RequestId, error: SendError) {
        match error {
            SendError::Auth(error) => {
                let reason = match error {
                    Error::Auth(reason) => reason,
                    other => other.to_string(),
                };
                let frame = InboundFrame::AuthorizationFailed {
                    id: id.clone(),
                    reason,
                };
                let _ = self.inbound.send(frame).await;
            }
            other => self.fail(id, other.to_string()).await,
        }
    }

    pub(super) fn remember_session(&self, response: &reqwest::Response) {
        if let Some(id) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            *lock(&self.session_id) = Some(id.to_string());
        }
    }
}
