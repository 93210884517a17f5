//! The HTTP side of the OAuth client: bounded waits, bounded bodies, no
//! redirects, and HTTPS for everything but loopback.

use std::net::IpAddr;
use std::time::Duration;

use futures::StreamExt;
use http::header::ACCEPT;
use reqwest::Url;
use serde::de::DeserializeOwned;

use crate::{Error, Result};

/// The largest metadata or token response read.
const MAX_BODY: usize = 1024 * 1024;

pub(crate) fn auth_error(message: impl Into<String>) -> Error {
    Error::Auth(message.into())
}

/// Whether `url` names this machine (`localhost`, 127.0.0.0/8, `::1`).
pub(crate) fn is_loopback(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// The OAuth client's HTTP: one `reqwest` client with timeouts and without
/// redirects, and the HTTPS rule for authorization server URLs.
#[derive(Clone, Debug)]
pub(crate) struct AuthHttp {
    pub(crate) client: reqwest::Client,
    allow_http: bool,
}

impl AuthHttp {
    pub(crate) fn new(timeout: Duration, allow_http: bool) -> Result<Self> {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(10)))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Transport(std::io::Error::other(e)))?;
        Ok(Self { client, allow_http })
    }

    /// Parses `url` (what it is for goes into the error) and checks that it
    /// is HTTPS, or HTTP on loopback (or anywhere when allowed).
    pub(crate) fn check_url(&self, what: &str, url: &str) -> Result<Url> {
        let parsed =
            Url::parse(url).map_err(|e| auth_error(format!("{what} `{url}` is not a URL: {e}")))?;
        match parsed.scheme() {
            "https" => {}
            "http" if self.allow_http || is_loopback(&parsed) => {}
            "http" => {
                return Err(auth_error(format!(
                    "{what} `{url}` is not HTTPS (plain HTTP is only allowed on loopback)"
                )));
            }
            other => {
                return Err(auth_error(format!(
                    "{what} `{url}` has the unsupported scheme `{other}`"
                )));
            }
        }
        if parsed.fragment().is_some() {
            return Err(auth_error(format!("{what} `{url}` has a fragment")));
        }
        Ok(parsed)
    }

    /// GETs a JSON document. The error is a short reason, for the caller to
    /// decide whether to try another URL.
    pub(crate) async fn get_json<T: DeserializeOwned>(
        &self,
        url: &Url,
    ) -> std::result::Result<T, String> {
        let response = self
            .client
            .get(url.clone())
            .header(ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("request failed: {}", without_url(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("HTTP {status}"));
        }
        let body = read_limited(response).await?;
        serde_json::from_slice(&body).map_err(|e| format!("malformed JSON: {e}"))
    }
}

/// A reqwest error without its URL (which may carry a query).
pub(crate) fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "could not connect"
    } else if e.is_body() || e.is_decode() {
        "could not read the body"
    } else {
        "failed"
    };
    kind.to_string()
}

/// Reads a response body of at most 1 MiB.
pub(crate) async fn read_limited(
    response: reqwest::Response,
) -> std::result::Result<Vec<u8>, String> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| format!("reading the body {}", without_url(&e)))?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("the body exceeds {MAX_BODY} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_https_rules() {
        let http = AuthHttp::new(Duration::from_secs(1), false).unwrap();
        assert!(
            http.check_url("x", "https://auth.example.com/token")
                .is_ok()
        );
        assert!(http.check_url("x", "http://localhost:8080/token").is_ok());
        assert!(http.check_url("x", "http://127.0.0.1/token").is_ok());
        assert!(http.check_url("x", "http://[::1]:9/token").is_ok());
        let e = http.check_url("token endpoint", "http://auth.example.com/token");
        assert!(e.unwrap_err().to_string().contains("not HTTPS"));
        assert!(http.check_url("x", "ftp://auth.example.com/").is_err());
        assert!(http.check_url("x", "https://a.example/#frag").is_err());
        assert!(http.check_url("x", "not a url").is_err());
        assert!(!is_loopback(
            &Url::parse("http://localhost.evil.com/").unwrap()
        ));
    }
}
