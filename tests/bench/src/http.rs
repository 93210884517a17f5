//! A minimal HTTP/1.1 client for the benchmark: keep-alive connections with
//! TCP_NODELAY, one request at a time per connection, bodies with
//! Content-Length or chunked, and SSE answers parsed into their message.
//! The same code drives our Streamable HTTP server and the axum floor.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::{
    ECHO_TEXT, INITIALIZED, PROTOCOL_VERSION, STATELESS_VERSION, initialize_request,
    write_call_request, write_stateless_call_request,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::Error;
use crate::stats::Run;
use crate::stdio::contains;

/// Longest wait for one response.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(10);

/// What a target's answers are: JSON bodies or event streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answers {
    Json,
    /// Asked for with `Accept: text/event-stream` alone: a server that may
    /// answer either way (ours, by default) answers a single response with
    /// JSON when the client accepts JSON.
    Sse,
}

/// Where requests go, and with which headers.
#[derive(Debug)]
pub struct Target {
    pub addr: SocketAddr,
    answers: Answers,
    session: Option<String>,
    /// Calls stand alone (2026-07-28): no session, the revision in `_meta`
    /// and in the headers.
    stateless: bool,
    /// `POST /mcp HTTP/1.1` and the fixed headers, without Content-Length.
    head: String,
}

impl Target {
    /// A target without a session (the floor, or before `initialize`).
    pub fn new(addr: SocketAddr, answers: Answers) -> Self {
        Self {
            addr,
            answers,
            session: None,
            stateless: false,
            head: head(addr, answers, None),
        }
    }

    /// A target whose `tools/call` requests stand alone (2026-07-28): the
    /// headers `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` the
    /// revision requires, no session.
    pub fn stateless(addr: SocketAddr, answers: Answers) -> Self {
        let mut head = head(addr, answers, None);
        head.push_str(&format!(
            "MCP-Protocol-Version: {STATELESS_VERSION}\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
        ));
        Self {
            addr,
            answers,
            session: None,
            stateless: true,
            head,
        }
    }

    /// A target for the open session `session`.
    pub fn for_session(addr: SocketAddr, answers: Answers, session: &str) -> Self {
        Self {
            addr,
            answers,
            session: Some(session.to_string()),
            stateless: false,
            head: head(addr, answers, Some(session)),
        }
    }

    /// The same requests (headers, session id and bodies) sent to `addr`:
    /// how a floor is fed the bytes this target gets.
    pub fn same_requests_to(&self, addr: SocketAddr) -> Self {
        match (&self.session, self.stateless) {
            (_, true) => Self::stateless(addr, self.answers),
            (Some(session), false) => Self::for_session(addr, self.answers, session),
            (None, false) => Self::new(addr, self.answers),
        }
    }

    /// The session's id, if the target has one.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Opens an MCP session: `initialize` (its answer must carry
    /// `Mcp-Session-Id`), then `notifications/initialized`.
    pub async fn with_session(
        addr: SocketAddr,
        answers: Answers,
        conn: &mut Conn,
    ) -> Result<Self, Error> {
        let session = open_session(&Self::new(addr, answers), conn).await?;
        Ok(Self::for_session(addr, answers, &session))
    }
}

fn head(addr: SocketAddr, answers: Answers, session: Option<&str>) -> String {
    let accept = match answers {
        Answers::Json => "application/json, text/event-stream",
        Answers::Sse => "text/event-stream",
    };
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: {accept}\r\n"
    );
    if let Some(session) = session {
        head.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL_VERSION}\r\n"
        ));
    }
    head
}

/// `initialize` + `notifications/initialized` on `conn`; returns the
/// session id.
pub async fn open_session(target: &Target, conn: &mut Conn) -> Result<String, Error> {
    let answer = conn.post(target, initialize_request(0).as_bytes()).await?;
    if answer.status != 200 {
        return Err(format!("initialize: HTTP {}", answer.status).into());
    }
    let session = answer
        .session_id
        .ok_or("initialize: no Mcp-Session-Id in the answer")?;
    if !contains(conn.message(), b"\"result\"") {
        return Err(format!(
            "initialize failed: {}",
            String::from_utf8_lossy(conn.message())
        )
        .into());
    }
    let with_session = Target::for_session(target.addr, target.answers, &session);
    let ack = conn.post(&with_session, INITIALIZED.as_bytes()).await?;
    if ack.status != 202 {
        return Err(format!("notifications/initialized: HTTP {}", ack.status).into());
    }
    Ok(session)
}

/// What the driver needs from a response head.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub session_id: Option<String>,
    pub sse: bool,
}

/// One keep-alive connection.
#[derive(Debug)]
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    request: Vec<u8>,
    body: Vec<u8>,
    /// Where the JSON-RPC message is in `body` (all of it for JSON; the
    /// last event's data for SSE).
    message: (usize, usize),
}

impl Conn {
    pub async fn connect(addr: SocketAddr) -> Result<Self, Error> {
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Self {
            stream,
            buf: vec![0; 16 * 1024],
            start: 0,
            end: 0,
            request: Vec::with_capacity(1024),
            body: Vec::with_capacity(4096),
            message: (0, 0),
        })
    }

    /// The JSON-RPC message of the last answer.
    pub fn message(&self) -> &[u8] {
        &self.body[self.message.0..self.message.1]
    }

    /// POSTs `body` and reads the whole answer.
    pub async fn post(&mut self, target: &Target, body: &[u8]) -> Result<Answer, Error> {
        self.request.clear();
        self.request.extend_from_slice(target.head.as_bytes());
        self.request
            .extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        self.request.extend_from_slice(body);
        match tokio::time::timeout(RESPONSE_TIMEOUT, self.exchange()).await {
            Ok(answer) => answer,
            Err(_) => Err("no answer within 10 s".into()),
        }
    }

    /// A `tools/call` with id `id`; fails unless the answer is a result.
    /// Returns whether it was an event stream.
    pub async fn call(&mut self, target: &Target, id: u64) -> Result<bool, Error> {
        let mut body = Vec::with_capacity(256);
        if target.stateless {
            write_stateless_call_request(&mut body, id);
        } else {
            write_call_request(&mut body, id);
        }
        let answer = self.post(target, &body).await?;
        if answer.status != 200 || !contains(self.message(), b"\"result\"") {
            return Err(format!(
                "tools/call: HTTP {}: {}",
                answer.status,
                String::from_utf8_lossy(&self.body)
            )
            .into());
        }
        Ok(answer.sse)
    }

    /// A call whose answer is checked in full: the echo came back, as the
    /// kind of answer the target is meant to give.
    pub async fn verify_call(&mut self, target: &Target) -> Result<(), Error> {
        let sse = self.call(target, 1).await?;
        if sse != (target.answers == Answers::Sse) {
            return Err(format!(
                "expected {:?} answers, got {}",
                target.answers,
                if sse { "an event stream" } else { "JSON" }
            )
            .into());
        }
        let response: serde_json::Value = serde_json::from_slice(self.message())?;
        if response["result"]["content"][0]["text"] != ECHO_TEXT {
            return Err(format!("wrong echo: {response}").into());
        }
        Ok(())
    }

    /// A `ping` with id `id`; fails unless the answer is a result.
    pub async fn ping(&mut self, target: &Target, id: u64) -> Result<(), Error> {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
        let answer = self.post(target, body.as_bytes()).await?;
        if answer.status != 200 || !contains(self.message(), b"\"result\"") {
            return Err(format!(
                "ping: HTTP {}: {}",
                answer.status,
                String::from_utf8_lossy(&self.body)
            )
            .into());
        }
        Ok(())
    }

    /// `DELETE` of the target's session; returns the HTTP status.
    pub async fn delete(&mut self, target: &Target) -> Result<u16, Error> {
        let session = target.session().ok_or("DELETE needs a session")?;
        self.request.clear();
        self.request.extend_from_slice(
            format!(
                "DELETE /mcp HTTP/1.1\r\nHost: {}\r\nMcp-Session-Id: {session}\r\n\
                 Mcp-Protocol-Version: {PROTOCOL_VERSION}\r\nContent-Length: 0\r\n\r\n",
                target.addr
            )
            .as_bytes(),
        );
        match tokio::time::timeout(RESPONSE_TIMEOUT, self.exchange()).await {
            Ok(answer) => Ok(answer?.status),
            Err(_) => Err("no answer to DELETE within 10 s".into()),
        }
    }

    /// Opens the session's GET stream on this connection, which then
    /// belongs to the stream: the answer must be an event stream, and its
    /// first event (the priming event) is read.
    pub async fn open_stream(&mut self, target: &Target) -> Result<(), Error> {
        let session = target.session().ok_or("a GET stream needs a session")?;
        self.request.clear();
        self.request.extend_from_slice(
            format!(
                "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\
                 Mcp-Session-Id: {session}\r\nMcp-Protocol-Version: {PROTOCOL_VERSION}\r\n\r\n",
                target.addr
            )
            .as_bytes(),
        );
        let open = async {
            self.stream.write_all(&self.request).await?;
            let (status, head) = self.read_head().await?;
            if status != 200 || !head.sse || !head.chunked {
                return Err(
                    format!("GET stream: HTTP {status}, not a chunked event stream").into(),
                );
            }
            let size = self.read_chunk_size().await?;
            self.body.clear();
            self.read_body(size).await?;
            self.read_line().await?;
            Ok::<_, Error>(())
        };
        match tokio::time::timeout(RESPONSE_TIMEOUT, open).await {
            Ok(opened) => opened,
            Err(_) => Err("no GET stream within 10 s".into()),
        }
    }

    /// Whether the server still holds this connection open, without
    /// waiting: anything it sent (events of a stream) is read and dropped.
    pub fn still_open(&mut self) -> bool {
        let mut sink = [0u8; 4096];
        loop {
            match self.stream.try_read(&mut sink) {
                Ok(0) => return false,
                Ok(_) => {}
                Err(e) => return e.kind() == std::io::ErrorKind::WouldBlock,
            }
        }
    }

    async fn exchange(&mut self) -> Result<Answer, Error> {
        self.stream.write_all(&self.request).await?;
        let (status, head) = self.read_head().await?;
        self.body.clear();
        if let Some(length) = head.content_length {
            self.read_body(length).await?;
        } else if head.chunked {
            loop {
                let size = self.read_chunk_size().await?;
                if size == 0 {
                    // No trailers are sent: the last chunk ends with CRLF.
                    self.read_line().await?;
                    break;
                }
                self.read_body(size).await?;
                self.read_line().await?;
            }
        }
        self.message = if head.sse {
            last_event_data(&self.body)
        } else {
            (0, self.body.len())
        };
        Ok(Answer {
            status,
            session_id: head.session_id,
            sse: head.sse,
        })
    }

    /// Reads more into the buffer; fails at end of stream.
    async fn fill(&mut self) -> Result<(), Error> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else {
                self.buf.resize(self.buf.len() * 2, 0);
            }
        }
        let n = self.stream.read(&mut self.buf[self.end..]).await?;
        if n == 0 {
            return Err("the server closed the connection".into());
        }
        self.end += n;
        Ok(())
    }

    async fn read_head(&mut self) -> Result<(u16, Head), Error> {
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some(at) = pending.windows(4).position(|w| w == b"\r\n\r\n") {
                let parsed = parse_head(&pending[..at]);
                self.start += at + 4;
                return parsed;
            }
            self.fill().await?;
        }
    }

    async fn read_line(&mut self) -> Result<(usize, usize), Error> {
        loop {
            let pending = &self.buf[self.start..self.end];
            if let Some(at) = pending.windows(2).position(|w| w == b"\r\n") {
                let line = (self.start, self.start + at);
                self.start += at + 2;
                return Ok(line);
            }
            self.fill().await?;
        }
    }

    async fn read_chunk_size(&mut self) -> Result<usize, Error> {
        let (from, to) = self.read_line().await?;
        let line = std::str::from_utf8(&self.buf[from..to])?;
        let hex = line.split(';').next().unwrap_or("").trim();
        Ok(usize::from_str_radix(hex, 16)?)
    }

    async fn read_body(&mut self, mut length: usize) -> Result<(), Error> {
        while length > 0 {
            if self.start == self.end {
                self.fill().await?;
            }
            let take = length.min(self.end - self.start);
            self.body
                .extend_from_slice(&self.buf[self.start..self.start + take]);
            self.start += take;
            length -= take;
        }
        Ok(())
    }
}

#[derive(Debug, Default)]
struct Head {
    content_length: Option<usize>,
    chunked: bool,
    sse: bool,
    session_id: Option<String>,
}

fn parse_head(head: &[u8]) -> Result<(u16, Head), Error> {
    let text = std::str::from_utf8(head)?;
    let mut lines = text.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("bad status line {status_line:?}"))?;
    let mut parsed = Head::default();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            parsed.content_length = Some(value.parse()?);
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            parsed.chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("content-type") {
            parsed.sse = value.starts_with("text/event-stream");
        } else if name.eq_ignore_ascii_case("mcp-session-id") {
            parsed.session_id = Some(value.to_string());
        }
    }
    Ok((status, parsed))
}

/// The data of the last event with data in an SSE body (`data:` lines of one
/// event joined are not needed: JSON text is one line).
fn last_event_data(body: &[u8]) -> (usize, usize) {
    let mut found = (0, 0);
    let mut at = 0;
    for line in body.split(|&b| b == b'\n') {
        let line_start = at;
        at += line.len() + 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let Some(data) = line.strip_prefix(b"data:") {
            let skip = usize::from(data.first() == Some(&b' '));
            let from = line_start + 5 + skip;
            if line.len() > 5 + skip {
                found = (from, line_start + line.len());
            }
        }
    }
    found
}

/// `connections` connections, each doing sequential calls for `duration`.
pub async fn closed_loop(
    target: &Arc<Target>,
    conns: Vec<Conn>,
    duration: Duration,
) -> Result<(Run, Vec<Conn>), Error> {
    let start = Instant::now();
    let deadline = start + duration;
    let mut tasks = Vec::with_capacity(conns.len());
    for (k, mut conn) in conns.into_iter().enumerate() {
        let target = target.clone();
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(16 * 1024);
            let mut id = (k as u64 + 1) * 1_000_000_000;
            loop {
                let sent = Instant::now();
                if sent >= deadline {
                    break;
                }
                id += 1;
                conn.call(&target, id).await?;
                latencies.push(sent.elapsed().as_nanos() as u64);
            }
            Ok::<_, Error>((conn, latencies))
        }));
    }
    let mut run = Run::default();
    let mut back = Vec::with_capacity(tasks.len());
    for task in tasks {
        let (conn, latencies) = task.await.map_err(|e| e.to_string())??;
        run.count += latencies.len() as u64;
        run.latencies_ns.extend(latencies);
        back.push(conn);
    }
    run.elapsed = start.elapsed();
    Ok((run, back))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_message_in_an_event_stream() {
        let body = b"id: 1/0\nretry: 1000\ndata:\n\nevent: message\nid: 1/1\ndata: {\"a\":1}\n\n";
        let (from, to) = last_event_data(body);
        assert_eq!(&body[from..to], b"{\"a\":1}");
    }

    #[test]
    fn parses_heads() {
        let (status, head) = parse_head(
            b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nmcp-session-id: ab\r\ntransfer-encoding: chunked",
        )
        .unwrap();
        assert_eq!(status, 200);
        assert!(head.sse && head.chunked);
        assert_eq!(head.session_id.as_deref(), Some("ab"));
    }
}
