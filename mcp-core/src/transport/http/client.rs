//! The Streamable HTTP client transport.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::StreamExt;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::sse::SseParser;
use crate::auth::{AuthChallenge, AuthProvider, MAX_AUTH_ATTEMPTS, Secret};
use crate::jsonrpc::{Inbound, decode};
use crate::param_headers::{self, ParamHeader};
use crate::schema::{RequestId, methods};
use crate::transport::{
    CHANNEL_CAPACITY, DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, OutboundKind, OutboundMessage,
    Transport, TransportHandle,
};
use crate::{Error, Result};

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
///   [`MAX_AUTH_ATTEMPTS`] times per request) and sends the request again.
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

/// Why a request could not be sent.
enum SendError {
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
    /// A request to the endpoint; `sessionless` leaves out the session's
    /// headers (a 2026-07-28 request carries its own).
    fn request(
        &self,
        method: reqwest::Method,
        token: Option<&Secret>,
        sessionless: bool,
    ) -> reqwest::RequestBuilder {
        let mut headers = self.headers.clone();
        if let Some(token) = token {
            // Replaces any Authorization header set by hand.
            if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {}", token.expose())) {
                value.set_sensitive(true);
                headers.insert(AUTHORIZATION, value);
            }
        }
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
    async fn send(
        &self,
        method: reqwest::Method,
        sessionless: bool,
        decorate: impl Fn(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> std::result::Result<reqwest::Response, SendError> {
        let Some(auth) = &self.auth else {
            return decorate(self.request(method, None, sessionless))
                .send()
                .await
                .map_err(SendError::Http);
        };
        let mut attempts = 0;
        loop {
            let token = auth.token().await.map_err(SendError::Auth)?;
            let response = decorate(self.request(method.clone(), token.as_ref(), sessionless))
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

    async fn post(&self, text: &str) -> std::result::Result<reqwest::Response, SendError> {
        self.post_with(text, None).await
    }

    /// POSTs `text`, a 2026-07-28 request when `modern` has its headers.
    async fn post_with(
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

    /// The headers of a 2026-07-28 request (`None`: a request of a session).
    fn modern_headers(
        &self,
        method: &str,
        params: Option<&serde_json::value::RawValue>,
    ) -> Option<Vec<(String, String)>> {
        let version = claimed_version(params)?;
        let revision = crate::ProtocolVersion::parse(&version);
        let mut headers = vec![
            (VERSION_HEADER.to_string(), version),
            (
                METHOD_HEADER.to_string(),
                param_headers::encode_value(method),
            ),
        ];
        #[derive(serde::Deserialize)]
        struct Named {
            name: Option<String>,
            uri: Option<String>,
            arguments: Option<serde_json::Map<String, serde_json::Value>>,
            #[serde(rename = "taskId")]
            task_id: Option<String>,
        }
        use crate::extensions::{NameParam, RequestMethod};
        use crate::schema::ClientRequestMethod as M;
        // An extension method names what the extension table says.
        if let Some(RequestMethod::Extension(m)) = RequestMethod::resolve(method, revision) {
            let value = params.and_then(|p| serde_json::from_str::<Named>(p.get()).ok());
            let name = match m.spec().name_param {
                Some(NameParam::TaskId) => value.and_then(|v| v.task_id),
                None => None,
            };
            if let Some(name) = name {
                headers.push((NAME_HEADER.to_string(), param_headers::encode_value(&name)));
            }
            return Some(headers);
        }
        let known = M::from_name(method);
        let named = params
            .and_then(|p| serde_json::from_str::<Named>(p.get()).ok())
            .filter(|_| matches!(known, Some(M::CallTool | M::ReadResource | M::GetPrompt)));
        if let Some(named) = named {
            if let Some(name) = named.name.as_deref().or(named.uri.as_deref()) {
                headers.push((NAME_HEADER.to_string(), param_headers::encode_value(name)));
            }
            if known == Some(M::CallTool) {
                if let Some(declared) = named
                    .name
                    .and_then(|n| lock(&self.tool_headers).get(&n).cloned())
                {
                    headers.extend(param_headers::param_values(
                        &declared,
                        named.arguments.as_ref(),
                    ));
                }
            }
        }
        Some(headers)
    }

    /// Learns the `x-mcp-header` declarations of a 2026-07-28 `tools/list`
    /// answer and leaves out the tools whose declarations are invalid (the
    /// spec's rule for HTTP clients), with a warning naming each.
    fn learn_tools(&self, body: String) -> String {
        let Ok(mut message) = serde_json::from_str::<serde_json::Value>(&body) else {
            return body;
        };
        let Some(tools) = message
            .get_mut("result")
            .and_then(|r| r.get_mut("tools"))
            .and_then(serde_json::Value::as_array_mut)
        else {
            return body;
        };
        let before = tools.len();
        let mut learnt = lock(&self.tool_headers);
        tools.retain(|tool| {
            let name = tool
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or_default();
            let schema = tool.get("inputSchema").unwrap_or(&serde_json::Value::Null);
            match param_headers::declarations(schema) {
                Ok(declared) => {
                    learnt.insert(name.to_string(), declared);
                    true
                }
                Err(why) => {
                    tracing::warn!("leaving out tool `{name}`: {why}");
                    learnt.remove(name);
                    false
                }
            }
        });
        if tools.len() == before {
            return body;
        }
        serde_json::to_string(&message).unwrap_or(body)
    }

    async fn deliver(&self, text: String) {
        let frame = if text.len() > self.limit {
            InboundFrame::Oversize { limit: self.limit }
        } else {
            InboundFrame::Message(text)
        };
        let _ = self.inbound.send(frame).await;
    }

    /// Fails a request locally: it never got an answer from the peer.
    async fn fail(&self, id: &RequestId, reason: String) {
        let frame = InboundFrame::RequestFailed {
            id: id.clone(),
            reason,
        };
        let _ = self.inbound.send(frame).await;
    }

    /// Fails a request that could not be sent: an authorization failure
    /// reaches the caller as `Error::Auth`, anything else as a transport
    /// error.
    async fn fail_send(&self, id: &RequestId, error: SendError) {
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

    fn remember_session(&self, response: &reqwest::Response) {
        if let Some(id) = response
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            *lock(&self.session_id) = Some(id.to_string());
        }
    }
}

/// The revision a request's `_meta` names, if any: a 2026-07-28 request
/// carries it, a session's request does not.
fn claimed_version(params: Option<&serde_json::value::RawValue>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow)]
        meta: Option<&'a serde_json::value::RawValue>,
    }
    #[derive(serde::Deserialize)]
    struct Claim {
        #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
        version: Option<String>,
    }
    let Params { meta } = serde_json::from_str(params?.get()).ok()?;
    serde_json::from_str::<Claim>(meta?.get()).ok()?.version
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

/// Whether `text` is a `notifications/cancelled` for an open 2026-07-28
/// request; if so, that request's response stream is closed.
fn cancel_open_request(conn: &Conn, text: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Cancelled {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    let Ok(Inbound::Notification(n)) = decode(text) else {
        return false;
    };
    if n.method != methods::NOTIFICATIONS_CANCELLED {
        return false;
    }
    let Some(Cancelled { request_id }) = n
        .params
        .and_then(|p| serde_json::from_str::<Cancelled>(p.get()).ok())
    else {
        return false;
    };
    match lock(&conn.open_requests).remove(&request_id) {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    }
}

/// Sends a 2026-07-28 request: no session, its own headers. An error
/// without an id (a server that could not tell which request) is the answer
/// to this one: its code says whether the server speaks the revision. The
/// caller cancelling it closes the response stream.
async fn send_modern(
    conn: &Arc<Conn>,
    request: &Outgoing,
    headers: &[(String, String)],
    text: &str,
) {
    let cancel = CancellationToken::new();
    lock(&conn.open_requests).insert(request.id.clone(), cancel.clone());
    tokio::select! {
        () = send_modern_once(conn, request, headers, text) => {}
        () = cancel.cancelled() => {}
    }
    lock(&conn.open_requests).remove(&request.id);
}

async fn send_modern_once(
    conn: &Arc<Conn>,
    request: &Outgoing,
    headers: &[(String, String)],
    text: &str,
) {
    let id = &request.id;
    let response = match conn.post_with(text, Some(headers)).await {
        Ok(r) => r,
        Err(e) => return conn.fail_send(id, e).await,
    };
    let status = response.status();
    if !status.is_success() {
        let body = response.text().await.unwrap_or_default();
        if let Ok(Inbound::Response(r)) = decode(&body) {
            if let (None, Err(e)) = (&r.id, &r.outcome) {
                return conn
                    .deliver(crate::jsonrpc::encode_error(Some(id), e))
                    .await;
            }
        }
        return forward_error(conn, id, status, body).await;
    }
    read_answer(conn, id, Answer::of(false, request.is_tools_list), response).await;
}

/// How to treat the answer to one request.
#[derive(Clone, Copy)]
struct Answer {
    /// An `initialize` result names the session's revision.
    initialize: bool,
    /// A 2026-07-28 `tools/list` result declares tool headers.
    tools_list: bool,
}

impl Answer {
    fn of(initialize: bool, tools_list: bool) -> Self {
        Self {
            initialize,
            tools_list,
        }
    }
}

/// Passes on the server's JSON-RPC error for `id`, or describes the HTTP error.
async fn forward_error(conn: &Conn, id: &RequestId, status: StatusCode, body: String) {
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
async fn read_answer(
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
struct StreamCursor {
    last_event_id: Option<String>,
    retry: Option<Duration>,
}

/// Delivers an SSE stream's messages; returns whether the response to
/// `awaited` was among them.
async fn read_sse(
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

enum GetOutcome {
    Open(reqwest::Response),
    /// The server offers no GET stream (405 or 400).
    NotOffered,
    Failed,
}

async fn open_get(conn: &Conn, last_event_id: Option<&str>) -> GetOutcome {
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
async fn reinitialize(conn: &Arc<Conn>) -> std::result::Result<(), String> {
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
async fn listen(conn: Arc<Conn>, mut open: Option<reqwest::Response>) {
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

async fn delete_session(conn: &Conn) {
    if lock(&conn.session_id).is_none() {
        return;
    }
    // The current token, without starting an authorization at close.
    let token = match &conn.auth {
        Some(auth) => auth.token().await.ok().flatten(),
        None => None,
    };
    let request = conn
        .request(reqwest::Method::DELETE, token.as_ref(), false)
        .timeout(Duration::from_secs(2));
    match request.send().await {
        Ok(r) if r.status().is_success() || r.status() == StatusCode::METHOD_NOT_ALLOWED => {}
        Ok(r) => tracing::debug!("DELETE of the session got HTTP {}", r.status()),
        Err(e) => tracing::debug!("DELETE of the session failed: {e}"),
    }
}
