//! What the Streamable HTTP client asks of authorization: [`AuthProvider`]
//! (a token per request, new credentials on a challenge), with or without
//! the OAuth client of the `auth` feature.

use std::fmt;

use async_trait::async_trait;

use crate::Result;
use crate::auth::{BearerChallenge, Secret};

/// How many times one HTTP request is re-sent after a challenge (each time
/// after a refresh, an authorization or a step-up) before it fails.
pub const MAX_AUTH_ATTEMPTS: usize = 3;

/// Why the server refused a request: 401, or 403 with
/// `error="insufficient_scope"`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthChallenge {
    /// 401 or 403.
    pub status: u16,
    /// The `Bearer` (or `DPoP`) challenge of `WWW-Authenticate`, if the
    /// server sent one.
    pub bearer: Option<BearerChallenge>,
    /// The `DPoP-Nonce` header: the nonce the server wants in the next
    /// DPoP proof (RFC 9449 §9).
    pub dpop_nonce: Option<String>,
}

impl AuthChallenge {
    /// The challenge of a response, if it is one the authorization flow can
    /// answer (401, or 403 `insufficient_scope`).
    pub fn from_response(status: u16, headers: &::http::HeaderMap) -> Option<Self> {
        let bearer = BearerChallenge::from_headers(headers);
        let answerable = match status {
            401 => true,
            403 => bearer
                .as_ref()
                .is_some_and(BearerChallenge::is_insufficient_scope),
            _ => false,
        };
        let dpop_nonce = headers
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        answerable.then_some(Self {
            status,
            bearer,
            dpop_nonce,
        })
    }

    /// Whether the server asks for a DPoP proof with its nonce (401
    /// `error="use_dpop_nonce"` with a `DPoP-Nonce`).
    pub fn is_dpop_nonce(&self) -> bool {
        self.dpop_nonce.is_some()
            && self
                .bearer
                .as_ref()
                .is_some_and(|b| b.error.as_deref() == Some("use_dpop_nonce"))
    }

    /// Whether the server asks for more scopes (403 `insufficient_scope`).
    pub fn is_insufficient_scope(&self) -> bool {
        self.status == 403
            && self
                .bearer
                .as_ref()
                .is_some_and(BearerChallenge::is_insufficient_scope)
    }

    /// The challenged scopes.
    pub fn scopes(&self) -> Vec<String> {
        self.bearer
            .as_ref()
            .map(BearerChallenge::scopes)
            .unwrap_or_default()
    }

    /// A short description for error messages.
    pub fn describe(&self) -> String {
        let mut out = format!("HTTP {}", self.status);
        if let Some(b) = &self.bearer {
            if let Some(e) = &b.error {
                out.push_str(&format!(" {e}"));
            }
            if let Some(s) = &b.scope {
                out.push_str(&format!(" (scope `{s}`)"));
            }
            if let Some(d) = &b.error_description {
                out.push_str(&format!(": {d}"));
            }
        }
        out
    }
}

/// What the Streamable HTTP client transport asks of authorization: a token
/// for each request, and new credentials when the server refuses one.
#[async_trait]
pub trait AuthProvider: Send + Sync + fmt::Debug {
    /// The access token to send, if any (may refresh an expired one).
    async fn token(&self) -> Result<Option<Secret>>;

    /// The headers that present `token` on a request of `method` to `url`:
    /// `Authorization: Bearer …` unless the provider binds its tokens to a
    /// key (a DPoP-bound token goes as `Authorization: DPoP …` with a fresh
    /// `DPoP` proof).
    async fn present(
        &self,
        token: &Secret,
        method: &::http::Method,
        url: &str,
    ) -> Result<Vec<(::http::HeaderName, ::http::HeaderValue)>> {
        let _ = (method, url);
        Ok(bearer_header(token).into_iter().collect())
    }

    /// The server answered a request made with `used` with `challenge`:
    /// obtain credentials that may satisfy it (refresh, authorize, step up).
    /// `Ok` means the request is worth sending again.
    async fn handle_challenge(
        &self,
        challenge: &AuthChallenge,
        used: Option<&Secret>,
    ) -> Result<()>;
}

/// `Authorization: Bearer <token>`, marked sensitive; `None` if the token
/// cannot be a header value.
pub(crate) fn bearer_header(token: &Secret) -> Option<(::http::HeaderName, ::http::HeaderValue)> {
    let mut value = ::http::HeaderValue::from_str(&format!("Bearer {}", token.expose())).ok()?;
    value.set_sensitive(true);
    Some((::http::header::AUTHORIZATION, value))
}
