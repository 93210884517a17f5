//! How the user takes part in the authorization code flow: the
//! [`AuthorizationUserAgent`] trait, and [`HeadlessUserAgent`], which
//! follows the authorization server's redirects itself (for tools, tests and
//! servers that authorize without a person).

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use http::header::LOCATION;
use reqwest::Url;

use super::http::{auth_error, without_url};
use crate::auth::Secret;
use crate::{Error, Result};

/// The parameters of the redirect back from the authorization server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationResponse {
    /// The authorization code (never shown by `Debug`).
    pub code: Option<Secret>,
    /// The `state` sent with the request, echoed.
    pub state: Option<String>,
    /// The issuer (RFC 9207), if the server sends it.
    pub iss: Option<String>,
    /// An OAuth error instead of a code, e.g. `access_denied`.
    pub error: Option<String>,
    /// The error's description, for people.
    pub error_description: Option<String>,
}

impl AuthorizationResponse {
    /// Reads the query of the redirect URI the server sent the user to.
    pub fn from_redirect(url: &Url) -> Self {
        let mut out = Self::default();
        for (name, value) in url.query_pairs() {
            let value = value.into_owned();
            match name.as_ref() {
                "code" => out.code = Some(Secret::new(value)),
                "state" => out.state = Some(value),
                "iss" => out.iss = Some(value),
                "error" => out.error = Some(value),
                "error_description" => out.error_description = Some(value),
                _ => {}
            }
        }
        out
    }
}

/// Takes the user to the authorization server and brings back what it
/// answers on the redirect URI.
#[async_trait]
pub trait AuthorizationUserAgent: Send + Sync + fmt::Debug {
    /// The redirect URI, registered with the authorization server and sent
    /// with every authorization request.
    fn redirect_uri(&self) -> String;

    /// Sends the user to `authorization_url` and waits (boundedly) for the
    /// redirect back.
    async fn authorize(&self, authorization_url: &Url) -> Result<AuthorizationResponse>;
}

/// Whether `candidate` is `redirect` (same scheme, host, port and path).
pub(crate) fn is_redirect_to(candidate: &Url, redirect: &Url) -> bool {
    candidate.scheme() == redirect.scheme()
        && candidate.host_str() == redirect.host_str()
        && candidate.port_or_known_default() == redirect.port_or_known_default()
        && candidate.path() == redirect.path()
}

/// A user agent without a person: it requests the authorization URL and
/// follows the server's redirects (at most 10) until one goes to the
/// redirect URI, whose code it takes. It suits authorization servers that
/// approve without interaction, such as test servers; one that shows a login
/// page makes it fail with a clear error.
#[derive(Clone, Debug)]
pub struct HeadlessUserAgent {
    redirect_uri: Url,
    client: reqwest::Client,
}

const MAX_HOPS: usize = 10;

impl HeadlessUserAgent {
    /// A headless agent that claims `redirect_uri` (nothing listens there).
    pub fn new(redirect_uri: &str) -> Result<Self> {
        let redirect_uri = Url::parse(redirect_uri)
            .map_err(|e| Error::InvalidArgument(format!("redirect URI `{redirect_uri}`: {e}")))?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|e| Error::Transport(std::io::Error::other(e)))?;
        Ok(Self {
            redirect_uri,
            client,
        })
    }
}

#[async_trait]
impl AuthorizationUserAgent for HeadlessUserAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.to_string()
    }

    async fn authorize(&self, authorization_url: &Url) -> Result<AuthorizationResponse> {
        let mut url = authorization_url.clone();
        for _ in 0..MAX_HOPS {
            let response = self.client.get(url.clone()).send().await.map_err(|e| {
                auth_error(format!("the authorization request {}", without_url(&e)))
            })?;
            let status = response.status();
            let location = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let (true, Some(location)) = (status.is_redirection(), location) else {
                return Err(auth_error(format!(
                    "the authorization server answered HTTP {status} instead of redirecting \
                     back to {}; it seems to need a person, so use an interactive user agent \
                     (LoopbackUserAgent)",
                    self.redirect_uri
                )));
            };
            let next = url.join(&location).map_err(|e| {
                auth_error(format!(
                    "the authorization server redirected to a bad URL: {e}"
                ))
            })?;
            if is_redirect_to(&next, &self.redirect_uri) {
                return Ok(AuthorizationResponse::from_redirect(&next));
            }
            if !matches!(next.scheme(), "http" | "https") {
                return Err(auth_error(format!(
                    "the authorization server redirected to the unsupported scheme `{}`",
                    next.scheme()
                )));
            }
            url = next;
        }
        Err(auth_error(format!(
            "the authorization server redirected more than {MAX_HOPS} times without reaching \
             the redirect URI"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_redirect() {
        let url = Url::parse(
            "http://localhost:3000/callback?code=abc&state=s%201&iss=https%3A%2F%2Fa&x=y",
        )
        .unwrap();
        let r = AuthorizationResponse::from_redirect(&url);
        assert_eq!(r.code.as_ref().map(Secret::expose), Some("abc"));
        assert_eq!(r.state.as_deref(), Some("s 1"));
        assert_eq!(r.iss.as_deref(), Some("https://a"));
        assert!(r.error.is_none());
        assert!(!format!("{r:?}").contains("abc"));
        let redirect = Url::parse("http://localhost:3000/callback").unwrap();
        assert!(is_redirect_to(&url, &redirect));
        assert!(!is_redirect_to(
            &Url::parse("http://localhost:3001/callback").unwrap(),
            &redirect
        ));
    }
}
