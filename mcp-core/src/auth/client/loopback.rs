//! [`LoopbackUserAgent`]: for a person at a terminal (the `mcp` CLI). It
//! shows the authorization URL and receives the redirect on a loopback port
//! (RFC 8252 §7.3).

use std::fmt;
use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::http::{auth_error, is_loopback};
use super::user_agent::{AuthorizationResponse, AuthorizationUserAgent};
use crate::{Error, Result};

/// Shows the authorization URL to the user.
pub type UrlPresenter = Arc<dyn Fn(&Url) + Send + Sync>;

/// Listens on a loopback redirect URI such as `http://127.0.0.1:0/callback`
/// (port 0 picks a free port), shows the user the authorization URL (on
/// stderr unless [`on_url`](Self::on_url) says otherwise) and waits for the
/// browser to come back, for at most [`timeout`](Self::timeout) (5 minutes).
pub struct LoopbackUserAgent {
    redirect_uri: Url,
    listener: std::net::TcpListener,
    presenter: UrlPresenter,
    timeout: Duration,
}

impl fmt::Debug for LoopbackUserAgent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoopbackUserAgent")
            .field("redirect_uri", &self.redirect_uri.as_str())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// The largest request head read from the browser.
const MAX_HEAD: usize = 16 * 1024;
/// How long one browser connection may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

impl LoopbackUserAgent {
    /// Binds the loopback redirect URI `redirect_uri` (`http`, host
    /// `127.0.0.1`, `[::1]` or `localhost`). Any other URI is refused: the
    /// code must not travel to another machine.
    pub fn new(redirect_uri: &str) -> Result<Self> {
        let invalid =
            |why: String| Error::InvalidArgument(format!("redirect URI `{redirect_uri}`: {why}"));
        let mut url = Url::parse(redirect_uri).map_err(|e| invalid(e.to_string()))?;
        if url.scheme() != "http" || !is_loopback(&url) {
            return Err(invalid(
                "a loopback user agent needs an http URI on 127.0.0.1, [::1] or localhost".into(),
            ));
        }
        let ip = match url
            .host_str()
            .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
        {
            Some(h) => h
                .parse::<IpAddr>()
                .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST)),
            None => IpAddr::V4(Ipv4Addr::LOCALHOST),
        };
        let port = url.port().unwrap_or(0);
        let listener = std::net::TcpListener::bind(SocketAddr::new(ip, port))?;
        listener.set_nonblocking(true)?;
        let bound = listener.local_addr()?.port();
        url.set_port(Some(bound))
            .map_err(|()| invalid("cannot set the port".into()))?;
        Ok(Self {
            redirect_uri: url,
            listener,
            presenter: Arc::new(|url: &Url| {
                let _ = writeln!(
                    std::io::stderr(),
                    "To authorize, open this URL in a browser:\n\n  {url}\n"
                );
            }),
            timeout: Duration::from_secs(300),
        })
    }

    /// Shows the authorization URL some other way (a GUI, a browser launcher).
    #[must_use]
    pub fn on_url(mut self, presenter: impl Fn(&Url) + Send + Sync + 'static) -> Self {
        self.presenter = Arc::new(presenter);
        self
    }

    /// How long to wait for the user (default 5 minutes).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn wait_for_redirect(&self) -> Result<AuthorizationResponse> {
        let listener = tokio::net::TcpListener::from_std(self.listener.try_clone()?)?;
        loop {
            let (stream, _) = listener.accept().await?;
            match tokio::time::timeout(READ_TIMEOUT, self.serve(stream)).await {
                Ok(Ok(Some(response))) => return Ok(response),
                Ok(Ok(None)) => {}
                Ok(Err(e)) => tracing::debug!("a loopback redirect connection failed: {e}"),
                Err(_) => tracing::debug!("a loopback redirect connection timed out"),
            }
        }
    }

    /// Answers one connection; `Some` if it was the redirect.
    async fn serve(&self, mut stream: TcpStream) -> std::io::Result<Option<AuthorizationResponse>> {
        let mut head = Vec::new();
        let mut buf = [0u8; 1024];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).await?;
            if n == 0 || head.len() + n > MAX_HEAD {
                return Ok(None);
            }
            head.extend_from_slice(&buf[..n]);
        }
        let head = String::from_utf8_lossy(&head);
        let mut parts = head.lines().next().unwrap_or_default().split(' ');
        let (method, target) = (
            parts.next().unwrap_or_default(),
            parts.next().unwrap_or_default(),
        );
        let found = self
            .redirect_uri
            .join(target)
            .ok()
            .filter(|url| method == "GET" && url.path() == self.redirect_uri.path());
        let Some(url) = found else {
            stream
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await?;
            return Ok(None);
        };
        let response = AuthorizationResponse::from_redirect(&url);
        let page = if response.code.is_some() {
            "Authorization complete. You can close this window."
        } else {
            "Authorization failed. You can close this window and check the terminal."
        };
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\
             cache-control: no-store\r\nconnection: close\r\n\r\n{page}",
            page.len()
        );
        stream.write_all(reply.as_bytes()).await?;
        let _ = stream.shutdown().await;
        Ok(Some(response))
    }
}

#[async_trait]
impl AuthorizationUserAgent for LoopbackUserAgent {
    fn redirect_uri(&self) -> String {
        self.redirect_uri.to_string()
    }

    async fn authorize(&self, authorization_url: &Url) -> Result<AuthorizationResponse> {
        (self.presenter)(authorization_url);
        match tokio::time::timeout(self.timeout, self.wait_for_redirect()).await {
            Ok(result) => result,
            Err(_) => Err(auth_error(format!(
                "nobody completed the authorization in the browser within {:?}",
                self.timeout
            ))),
        }
    }
}
