//! One table of bad input, run over every transport: stdio (a real
//! `mcp serve everything` process), the in-memory pair, and Streamable HTTP
//! (our server on 127.0.0.1, spoken to with raw HTTP/1.1 so that every byte
//! and header is exactly what the case says).
//!
//! Each case gives its input, the answer the stream transports (stdio,
//! in-memory) must give, and the answer Streamable HTTP must give (an HTTP
//! status, and the JSON-RPC message in the body). After every case the same
//! session (and, for stdio, the same process) must still answer `ping` and
//! `tools/list`, and nothing else may have arrived meanwhile. Every wait has
//! a time limit, so a hang fails instead of blocking the suite.
//!
//! The codes are the ones the specs prescribe: JSON-RPC 2.0 (-32700 parse
//! error, -32600 invalid request, -32601 method not found, -32602 invalid
//! params), MCP 2025-11-25 (-32002 resource not found; tool input validation
//! errors are tool results with `isError`, SEP-1303; batches are gone, so an
//! array is an invalid request) and its Streamable HTTP transport (400 for a
//! missing session id or a bad `MCP-Protocol-Version`, 404 for an unknown
//! session, 403 for a bad `Origin`). Where the spec prescribes nothing the
//! table pins down what we do, and says so.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

mod cases_framing;
mod cases_http;
mod cases_session;
#[path = "../common/mod.rs"]
mod common;
mod http;
mod stream;

use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// The table

/// The transport a case runs over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Stdio,
    Memory,
    Http,
}
use Via::{Http, Memory, Stdio};

/// When a case runs: before the handshake, or in an initialized session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    BeforeInit,
    Ready,
}

enum Input {
    /// One message: a line on stdio, a frame in memory, a POST body over HTTP.
    Message(Vec<u8>),
    /// `message`, sent while the slow request `slow` (id `"slow"`) is still
    /// in progress; the slow one is cancelled afterwards.
    WhileInFlight { slow: &'static str, message: String },
    /// HTTP only: a request line and header lines (`{addr}` and `{session}`
    /// are filled in) and a body.
    Http { head: Vec<Vec<u8>>, body: Vec<u8> },
}

/// The JSON-RPC answer expected.
enum Answer {
    /// An error with this code, answering this id (`null`: the id could not
    /// be read, or answering with it would be ambiguous).
    Error(i64, Value),
    /// HTTP errors: a JSON-RPC error without an id, any code, or no body
    /// (the transport spec prescribes the status only).
    AnyErrorWithoutId,
    /// A result for this id that passes the check.
    Result(Value, fn(&Value) -> bool),
    /// No answer at all (notifications, responses).
    Nothing,
}

struct HttpAnswer {
    status: u16,
    body: Answer,
}

struct Case {
    name: &'static str,
    phase: Phase,
    /// The transports the case applies to (empty: all).
    only: &'static [Via],
    input: Input,
    /// The answer on stdio and in memory.
    stream: Answer,
    /// The answer over Streamable HTTP.
    http: HttpAnswer,
}

fn msg(text: &str) -> Input {
    Input::Message(text.as_bytes().to_vec())
}

fn bytes(b: Vec<u8>) -> Input {
    Input::Message(b)
}

fn error(code: i64, id: Value) -> Answer {
    Answer::Error(code, id)
}

fn result(id: Value, check: fn(&Value) -> bool) -> Answer {
    Answer::Result(id, check)
}

fn http(status: u16, body: Answer) -> HttpAnswer {
    HttpAnswer { status, body }
}

fn empty(r: &Value) -> bool {
    *r == json!({})
}

fn any(_: &Value) -> bool {
    true
}

fn tool_ok(r: &Value) -> bool {
    r["content"].is_array() && r.get("isError").is_none_or(|e| *e == json!(false))
}

fn tool_error(r: &Value) -> bool {
    r["content"].is_array() && r["isError"] == json!(true)
}

fn initialized(r: &Value) -> bool {
    r["protocolVersion"] == "2025-11-25" && r["serverInfo"]["name"].is_string()
}

/// The standard headers of a POST in an initialized session, except those
/// named in `without`, plus `extra`.
fn post_head(without: &[&str], extra: &[&[u8]]) -> Vec<Vec<u8>> {
    let standard = [
        ("host", "Host: {addr}"),
        ("accept", "Accept: application/json, text/event-stream"),
        ("content-type", "Content-Type: application/json"),
        ("mcp-session-id", "Mcp-Session-Id: {session}"),
        ("mcp-protocol-version", "MCP-Protocol-Version: 2025-11-25"),
    ];
    let mut head = vec![b"POST /mcp HTTP/1.1".to_vec()];
    head.extend(
        standard
            .iter()
            .filter(|(name, _)| !without.contains(name))
            .map(|(_, line)| line.as_bytes().to_vec()),
    );
    head.extend(extra.iter().map(|l| l.to_vec()));
    head
}

fn get_head(accept: Option<&str>, extra: &[&[u8]]) -> Vec<Vec<u8>> {
    let mut head = vec![
        b"GET /mcp HTTP/1.1".to_vec(),
        b"Host: {addr}".to_vec(),
        b"Mcp-Session-Id: {session}".to_vec(),
        b"MCP-Protocol-Version: 2025-11-25".to_vec(),
    ];
    if let Some(accept) = accept {
        head.push(format!("Accept: {accept}").into_bytes());
    }
    head.extend(extra.iter().map(|l| l.to_vec()));
    head
}

const PING: &str = r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#;
const SLOW: &str = r#"{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"test_slow_task","arguments":{"seconds":5}}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bad-input","version":"1"}}}"#;

/// A header line of about `bytes` bytes.
fn pad(bytes: usize) -> String {
    format!("X-Pad: {}", "a".repeat(bytes))
}

fn deep(open: &str, close: &str, depth: usize) -> String {
    format!("{}1{}", open.repeat(depth), close.repeat(depth))
}

/// The whole table, in the order the cases run (one session goes through
/// all of them).
fn cases() -> Vec<Case> {
    [
        cases_framing::cases(),
        cases_session::cases(),
        cases_http::cases(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn check(name: &str, answer: &Answer, message: Option<&Value>) {
    match (answer, message) {
        (Answer::Error(code, id), Some(m)) => {
            assert_eq!(m["error"]["code"], json!(code), "{name}: {m}");
            assert!(m["error"]["message"].is_string(), "{name}: {m}");
            assert_eq!(m.get("id").unwrap_or(&Value::Null), id, "{name}: {m}");
            assert!(m.get("result").is_none(), "{name}: {m}");
        }
        (Answer::AnyErrorWithoutId, None) => {}
        (Answer::AnyErrorWithoutId, Some(m)) => {
            assert!(m["error"]["code"].is_i64(), "{name}: {m}");
            assert!(m.get("id").is_none_or(Value::is_null), "{name}: {m}");
        }
        (Answer::Result(id, ok), Some(m)) => {
            assert_eq!(&m["id"], id, "{name}: {m}");
            assert!(ok(&m["result"]), "{name}: unexpected result {m}");
        }
        (Answer::Nothing, None) => {}
        (_, m) => panic!("{name}: unexpected answer {m:?}"),
    }
}

const CANCEL_SLOW: &[u8] =
    br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"test"}}"#;
