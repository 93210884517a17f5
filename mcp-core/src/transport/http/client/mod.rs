//! The Streamable HTTP client transport: the public type, the connection it
//! shares between its tasks, and the loop that sends what the engine writes.
//! Requests of a session are sent here; the rest is in the submodules:
//! - `conn`: building and sending one request (headers, authorization);
//! - `modern`: requests that stand alone (2026-07-28);
//! - `answer`: reading JSON and SSE answers, resuming streams;
//! - `session`: the GET stream, a new session after 404, DELETE.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::auth::AuthProvider;
use crate::jsonrpc::{Inbound, decode};
use crate::param_headers::ParamHeader;
use crate::schema::{RequestId, methods};
use crate::transport::{
    CHANNEL_CAPACITY, DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, OutboundKind, OutboundMessage,
    Transport, TransportHandle,
};
use crate::{Error, Result};

mod answer;
mod conn;
mod modern;
mod session;

use answer::{Answer, forward_error, read_answer};
use modern::{cancel_open_request, send_modern};
use session::{GetOutcome, delete_session, listen, open_get, reinitialize};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";
const METHOD_HEADER: &str = "mcp-method";
const NAME_HEADER: &str = "mcp-name";
const LAST_EVENT_ID: &str = "last-event-id";
/// Reconnection attempts in a row before a stream is given up.
const MAX_RESUME_ATTEMPTS: u32 = 5;
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// The client side of Streamable HTTP: POSTs each message to the server's
/// MCP endpoint and reads answers as JSON or SSE.
///
/// - Opens the GET stream after initialization when the server offers one
///   (405 or 400 just mean it does not).
/// - Resumes an SSE stream that ends early with `Last-Event-ID`, after the
///   server's `retry` delay.
/// - Sends `Mcp-Session-Id` and `MCP-Protocol-Version` once known.
/// - On 404 for its session, initializes a new session transparently and
///   resends (turn off with [`reinitialize`](Self::reinitialize)).
/// - Ends the session with DELETE when closed.
/// - A request whose `_meta` names a revision without sessions (2026-07-28)
///   is sent on its own: `MCP-Protocol-Version` from its `_meta`,
///   `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` for tool arguments marked
///   `x-mcp-header` (learnt from `tools/list`, whose tools with invalid
///   declarations are left out), and no session.
/// - With an [`AuthProvider`] ([`auth`](Self::auth)), sends
///   `Authorization: Bearer` on every request and, when the server answers
///   401 or 403 `insufficient_scope`, lets the provider authorize (at most
///   [`MAX_AUTH_ATTEMPTS`](crate::auth::MAX_AUTH_ATTEMPTS) times per request) and sends the request again.
#[derive(Clone)]
pub struct StreamableHttpClient {
    url: String,
    headers: HeaderMap,
    reinitialize: bool,
    max_message_size: usize,
    auth: Option<Arc<dyn AuthProvider>>,
}

impl fmt::Debug for StreamableHttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Header values may hold credentials: show only their names.
        f.debug_struct("StreamableHttpClient")
            .field("url", &self.url)
            .field("headers", &self.headers.keys().collect::<Vec<_>>())
            .field("reinitialize", &self.reinitialize)
            .field("auth", &self.auth)
            .finish()
    }
}

impl StreamableHttpClient {
    /// A client of the MCP endpoint at `url`.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: HeaderMap::new(),
            reinitialize: true,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            auth: None,
        }
    }

    /// Authorizes requests with `provider`, e.g. an
    /// [`OAuthClient`](crate::auth::OAuthClient).
    #[must_use]
    pub fn auth(mut self, provider: Arc<dyn AuthProvider>) -> Self {
        self.auth = Some(provider);
        self
    }

    /// Adds a header to every request (e.g. `Authorization`).
    pub fn header(mut self, name: &str, value: &str) -> Result<Self> {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|e| Error::InvalidArgument(format!("header name `{name}`: {e}")))?;
        let value = HeaderValue::from_str(value)
            .map_err(|e| Error::InvalidArgument(format!("header `{name}` value: {e}")))?;
        self.headers.insert(name, value);
        Ok(self)
    }

    /// Whether to start a new session when the server forgets ours (404).
    #[must_use]
    pub fn reinitialize(mut self, reinitialize: bool) -> Self {
        self.reinitialize = reinitialize;
        self
    }

    /// Sets the largest message accepted from the server (default 4 MiB).
    #[must_use]
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

/// The handshake, kept to start a new session when the server forgets ours.
#[derive(Debug, Clone, Default)]
struct Handshake {
    initialize: Option<(RequestId, String)>,
    initialized: Option<String>,
}

struct Conn {
    http: reqwest::Client,
    auth: Option<Arc<dyn AuthProvider>>,
    url: String,
    headers: HeaderMap,
    reinitialize: bool,
    limit: usize,
    inbound: mpsc::Sender<InboundFrame>,
    session_id: Mutex<Option<String>>,
    version: Mutex<Option<String>>,
    handshake: Mutex<Handshake>,
    get_started: AtomicBool,
    close: CancellationToken,
    /// The `x-mcp-header` declarations of each tool seen in a 2026-07-28
    /// `tools/list`.
    tool_headers: Mutex<std::collections::HashMap<String, Vec<ParamHeader>>>,
    /// The 2026-07-28 requests awaiting their answer: cancelling one closes
    /// its response stream, which is how that revision cancels over HTTP.
    open_requests: Mutex<std::collections::HashMap<RequestId, CancellationToken>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Transport for StreamableHttpClient {
    fn network_transport(&self) -> Option<&'static str> {
        Some("tcp")
    }

    fn start(self) -> Result<TransportHandle> {
        let http = reqwest::Client::builder()
            .tcp_nodelay(true)
            .build()
            .map_err(|e| Error::Transport(std::io::Error::other(e)))?;
        let (in_tx, in_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (out_tx, out_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let close = CancellationToken::new();
        let done = CancellationToken::new();
        let conn = Arc::new(Conn {
            http,
            auth: self.auth,
            url: self.url,
            headers: self.headers,
            reinitialize: self.reinitialize,
            limit: self.max_message_size,
            inbound: in_tx,
            session_id: Mutex::new(None),
            version: Mutex::new(None),
            handshake: Mutex::new(Handshake::default()),
            get_started: AtomicBool::new(false),
            close: close.clone(),
            tool_headers: Mutex::new(std::collections::HashMap::new()),
            open_requests: Mutex::new(std::collections::HashMap::new()),
        });
        tokio::spawn(write_loop(conn, out_rx, done.clone()));
        Ok(TransportHandle {
            inbound: in_rx,
            outbound: out_tx,
            close,
            done,
        })
    }
}

async fn write_loop(
    conn: Arc<Conn>,
    mut outbound: mpsc::Receiver<OutboundMessage>,
    done: CancellationToken,
) {
    loop {
        let message = tokio::select! {
            m = outbound.recv() => m,
            () = conn.close.cancelled() => None,
        };
        let Some(message) = message else { break };
        match message.kind {
            OutboundKind::CloseStream | OutboundKind::EndStream => {}
            // Requests may take long: each runs on its own.
            OutboundKind::Request => {
                let conn = conn.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        () = send_request(&conn, message.text) => {}
                        () = conn.close.cancelled() => {}
                    }
                });
            }
            // Cancelling a 2026-07-28 request closes its stream; nothing is sent.
            OutboundKind::Notification if cancel_open_request(&conn, &message.text) => {}
            // Notifications and responses keep their order.
            OutboundKind::Notification | OutboundKind::Response => {
                send_other(&conn, message.text).await
            }
        }
    }
    conn.close.cancel();
    delete_session(&conn).await;
    let _ = conn
        .inbound
        .send(InboundFrame::Closed("the HTTP transport was closed".into()))
        .await;
    done.cancel();
}

/// What the transport needs to know of a request it sends.
struct Outgoing {
    id: RequestId,
    is_initialize: bool,
    /// A 2026-07-28 `tools/list`, whose answer declares tool headers.
    is_tools_list: bool,
    /// The headers of a 2026-07-28 request; `None` for a session's.
    modern: Option<Vec<(String, String)>>,
}

fn outgoing(conn: &Conn, text: &str) -> Option<Outgoing> {
    match decode(text) {
        Ok(Inbound::Request(r)) => {
            let modern = conn.modern_headers(&r.method, r.params);
            Some(Outgoing {
                is_initialize: r.method == methods::INITIALIZE,
                is_tools_list: modern.is_some()
                    && crate::schema::ClientRequestMethod::from_name(&r.method)
                        == Some(crate::schema::ClientRequestMethod::ListTools),
                id: r.id,
                modern,
            })
        }
        _ => None,
    }
}

async fn send_request(conn: &Arc<Conn>, text: String) {
    let Some(request) = outgoing(conn, &text) else {
        return;
    };
    if let Some(headers) = &request.modern {
        return send_modern(conn, &request, headers, &text).await;
    }
    let Outgoing {
        id, is_initialize, ..
    } = request;
    if is_initialize {
        lock(&conn.handshake).initialize = Some((id.clone(), text.clone()));
    }
    let mut retried = false;
    loop {
        let response = match conn.post(&text).await {
            Ok(r) => r,
            Err(e) => return conn.fail_send(&id, e).await,
        };
        let status = response.status();
        let had_session = lock(&conn.session_id).is_some();
        if status == StatusCode::NOT_FOUND
            && had_session
            && !is_initialize
            && conn.reinitialize
            && !retried
        {
            retried = true;
            if let Err(why) = reinitialize(conn).await {
                return conn
                    .fail(
                        &id,
                        format!("the server ended the session and a new one failed: {why}"),
                    )
                    .await;
            }
            continue;
        }
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return forward_error(conn, &id, status, body).await;
        }
        conn.remember_session(&response);
        read_answer(conn, &id, Answer::of(is_initialize, false), response).await;
        return;
    }
}

async fn send_other(conn: &Arc<Conn>, text: String) {
    let is_initialized = matches!(decode(&text), Ok(Inbound::Notification(n)) if n.method == methods::NOTIFICATIONS_INITIALIZED);
    if is_initialized {
        lock(&conn.handshake).initialized = Some(text.clone());
    }
    match conn.post(&text).await {
        // 202 is the rule; some servers answer 200 with a body, which is fine.
        Ok(r) if r.status().is_success() => {}
        Ok(r)
            if r.status() == StatusCode::NOT_FOUND
                && conn.reinitialize
                && lock(&conn.session_id).is_some() =>
        {
            if reinitialize(conn).await.is_ok() {
                let _ = conn.post(&text).await;
            }
        }
        Ok(r) => tracing::warn!(
            "the server refused a notification or response: HTTP {}",
            r.status()
        ),
        Err(e) => tracing::warn!("sending a notification or response failed: {e}"),
    }
    if is_initialized && !conn.get_started.swap(true, Ordering::AcqRel) {
        // Open the GET stream before anything else is sent, so that a server
        // answering a later request over it does not race its opening.
        let first = tokio::time::timeout(Duration::from_secs(5), open_get(conn, None)).await;
        let first = match first {
            Ok(GetOutcome::Open(response)) => Some(response),
            Ok(GetOutcome::NotOffered) => return,
            Ok(GetOutcome::Failed) | Err(_) => None,
        };
        tokio::spawn(listen(conn.clone(), first));
    }
}
