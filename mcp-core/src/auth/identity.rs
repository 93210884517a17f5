//! Token validation, implemented by the server's author: introspection
//! (RFC 7662), JWT verification, a database, anything.

use std::fmt;
use std::time::SystemTime;

use async_trait::async_trait;
use serde_json::{Map, Value};

/// Who a validated token speaks for. Holds no token.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct AuthInfo {
    /// The subject (`sub`): the user or client the token was issued to.
    pub subject: String,
    /// The audiences (`aud`); the server accepts the token only if one is
    /// its resource identifier.
    pub audience: Vec<String>,
    /// The granted scopes.
    pub scopes: Vec<String>,
    /// The OAuth client that obtained the token, if known.
    pub client_id: Option<String>,
    /// When the token expires, if known; expired tokens are refused.
    pub expires_at: Option<SystemTime>,
    /// Anything else the validator wants handlers to see (claims).
    pub extra: Map<String, Value>,
}

impl AuthInfo {
    /// A token of `subject` for `audience` with `scopes`.
    pub fn new(
        subject: impl Into<String>,
        audience: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        Self {
            subject: subject.into(),
            audience: vec![audience.into()],
            scopes: scopes.into_iter().map(Into::into).collect(),
            ..Self::default()
        }
    }

    /// Whether every scope of `required` was granted.
    pub fn has_scopes(&self, required: &[String]) -> bool {
        required.iter().all(|s| self.scopes.contains(s))
    }
}

/// Why a token was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// Unknown, expired, revoked or malformed: the client gets 401
    /// `invalid_token` with this description.
    Invalid(String),
    /// The validator could not decide (its introspection endpoint is down):
    /// the client gets 503.
    Unavailable(String),
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Invalid(why) => write!(f, "invalid token: {why}"),
            Self::Unavailable(why) => write!(f, "token validation unavailable: {why}"),
        }
    }
}

impl std::error::Error for TokenError {}

/// Decides what a bearer token is worth. The server then checks its
/// audience, expiry and scopes; the validator only says what the token
/// claims. Called once per HTTP request, with a 10 s limit.
#[async_trait]
pub trait TokenValidator: Send + Sync + 'static {
    /// Validates `token` (never log it).
    async fn validate(&self, token: &str) -> Result<AuthInfo, TokenError>;
}
