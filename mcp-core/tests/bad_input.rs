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

mod common;

use std::net::SocketAddr;
use std::process::Stdio as Piped;

use common::{RawResponse, WAIT, mcp_binary, open_http, raw_http, test_server};
use mcp_core::server::ServerSession;
use mcp_core::transport::http::{DEFAULT_MAX_HEADER_SIZE, HttpServerConfig, StreamableHttpServer};
use mcp_core::transport::{
    DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, OutboundKind, OutboundMessage, Transport,
    TransportHandle, memory_pair,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

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

fn cases() -> Vec<Case> {
    use Phase::{BeforeInit, Ready};
    let null = Value::Null;
    let no_session = || http(400, Answer::AnyErrorWithoutId);
    let invalid_utf8 = [
        &br#"{"jsonrpc":"2.0","id":"u","method":"ping","params":{"x":""#[..],
        b"\xff\xfe",
        br#""}}"#,
    ]
    .concat();
    let oversize = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"ping","params":{{"pad":"{}"}}}}"#,
        "a".repeat(DEFAULT_MAX_MESSAGE_SIZE)
    );
    let long_uri = format!(
        r#"{{"jsonrpc":"2.0","id":"uri","method":"resources/read","params":{{"uri":"test://template/{}/dat"}}}}"#,
        "a".repeat(1 << 20)
    );
    vec![
        // --- Lifecycle, before `initialize` ------------------------------
        Case {
            name: "ping before initialize is answered (spec: pings are allowed)",
            phase: BeforeInit,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"b1","method":"ping"}"#),
            stream: result(json!("b1"), empty),
            // Streamable HTTP: any request but initialize needs a session.
            http: no_session(),
        },
        Case {
            name: "a request before initialize (ours: -32600; spec: SHOULD NOT send)",
            phase: BeforeInit,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"b2","method":"tools/list"}"#),
            stream: error(-32600, json!("b2")),
            http: no_session(),
        },
        Case {
            name: "initialized notification before initialize is ignored",
            phase: BeforeInit,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            stream: Answer::Nothing,
            http: no_session(),
        },
        Case {
            name: "initialize without clientInfo",
            phase: BeforeInit,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"b4","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}"#,
            ),
            stream: error(-32602, json!("b4")),
            http: http(200, error(-32602, json!("b4"))),
        },
        Case {
            name: "initialize without params",
            phase: BeforeInit,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"b5","method":"initialize"}"#),
            stream: error(-32602, json!("b5")),
            http: http(200, error(-32602, json!("b5"))),
        },
        Case {
            name: "initialize with params of the wrong type",
            phase: BeforeInit,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"b6","method":"initialize","params":"2025-11-25"}"#,
            ),
            stream: error(-32602, json!("b6")),
            http: http(200, error(-32602, json!("b6"))),
        },
        // --- Framing and JSON ---------------------------------------------
        Case {
            name: "invalid JSON",
            phase: Ready,
            only: &[],
            input: msg("{not json}"),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            name: "truncated JSON",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"t","method":"pi"#),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            name: "two messages in one frame",
            phase: Ready,
            only: &[],
            input: msg(&format!("{PING}{PING}")),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            // Not expressible in memory: frames there are Rust strings.
            name: "invalid UTF-8",
            phase: Ready,
            only: &[Stdio, Http],
            input: bytes(invalid_utf8),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            name: "a raw control character inside a string",
            phase: Ready,
            only: &[],
            input: msg("{\"jsonrpc\":\"2.0\",\"id\":\"z\u{0}\",\"method\":\"ping\"}"),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            name: "a byte order mark before the message",
            phase: Ready,
            only: &[],
            input: msg(&format!("\u{feff}{PING}")),
            stream: error(-32700, null.clone()),
            http: http(400, error(-32700, null.clone())),
        },
        Case {
            name: "a trailing carriage return is whitespace",
            phase: Ready,
            only: &[],
            input: msg(&format!("{PING}\r")),
            stream: result(json!("p"), empty),
            http: http(200, result(json!("p"), empty)),
        },
        Case {
            name: "an empty object",
            phase: Ready,
            only: &[],
            input: msg("{}"),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "JSON that is not an object",
            phase: Ready,
            only: &[],
            input: msg("42"),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "JSON null",
            phase: Ready,
            only: &[],
            input: msg("null"),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            // Refused with its id (read from the message's first bytes), so
            // the sender's call fails at once.
            name: "a message over the size limit (HTTP: 413)",
            phase: Ready,
            only: &[],
            input: msg(&oversize),
            stream: error(-32600, json!("big")),
            http: http(413, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "100k nested arrays",
            phase: Ready,
            only: &[],
            input: msg(&deep("[", "]", 100_000)),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "100k nested objects",
            phase: Ready,
            only: &[],
            input: msg(&deep(r#"{"a":"#, "}", 100_000).replacen("1", "{}", 1)),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "100k nested arrays in the params",
            phase: Ready,
            only: &[],
            input: msg(&format!(
                r#"{{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{{"name":"add_numbers","arguments":{{"a":{},"b":1}}}}}}"#,
                deep("[", "]", 100_000)
            )),
            stream: error(-32602, json!("deep")),
            http: http(200, error(-32602, json!("deep"))),
        },
        Case {
            name: "100k nested arrays in an unknown member",
            phase: Ready,
            only: &[],
            input: msg(&format!(
                r#"{{"jsonrpc":"2.0","id":"deep2","method":"ping","x":{}}}"#,
                deep("[", "]", 100_000)
            )),
            stream: result(json!("deep2"), empty),
            http: http(200, result(json!("deep2"), empty)),
        },
        // --- Batches (removed in 2025-06-18) ------------------------------
        Case {
            name: "a batch",
            phase: Ready,
            only: &[],
            input: msg(&format!("[{PING}]")),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "an empty batch",
            phase: Ready,
            only: &[],
            input: msg("[]"),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        // --- Ids ---------------------------------------------------------------
        Case {
            name: "null id (MCP: MUST NOT be null)",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "fractional id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "id written with an exponent",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":1e3,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "id just beyond i64 (documented gap: refused)",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "huge id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":1e400,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "boolean id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "object id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "the smallest i64 id is fine",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}"#),
            stream: result(json!(i64::MIN), empty),
            http: http(200, result(json!(i64::MIN), empty)),
        },
        Case {
            name: "an empty string id is fine",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"","method":"ping"}"#),
            stream: result(json!(""), empty),
            http: http(200, result(json!(""), empty)),
        },
        Case {
            // Answering with the id would look like the first request's answer.
            name: "a request reusing the id of one in progress",
            phase: Ready,
            only: &[],
            input: Input::WhileInFlight {
                slow: SLOW,
                message: r#"{"jsonrpc":"2.0","id":"slow","method":"tools/list"}"#.into(),
            },
            stream: error(-32600, null.clone()),
            // Over HTTP the answer has its own response: 409 names the id.
            http: http(409, error(-32600, json!("slow"))),
        },
        Case {
            name: "a ping reusing the id of a request in progress",
            phase: Ready,
            only: &[],
            input: Input::WhileInFlight {
                slow: SLOW,
                message: r#"{"jsonrpc":"2.0","id":"slow","method":"ping"}"#.into(),
            },
            stream: error(-32600, null.clone()),
            http: http(409, error(-32600, json!("slow"))),
        },
        // --- Responses and notifications -------------------------------------
        Case {
            name: "a response to an unknown id is dropped",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"nobody","result":{}}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        Case {
            name: "an error response to an unknown id is dropped",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":77,"error":{"code":-1,"message":"x"}}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        Case {
            name: "an error response with a null id is dropped",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        Case {
            name: "a result without an id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","result":{}}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        Case {
            name: "both result and error",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":5,"result":{},"error":{"code":1,"message":""}}"#),
            stream: error(-32600, json!(5)),
            http: http(400, error(-32600, json!(5))),
        },
        Case {
            // With an id it is a request, for a method that is no request.
            name: "a notification carrying an id",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"n1","method":"notifications/initialized"}"#),
            stream: error(-32601, json!("n1")),
            http: http(200, error(-32601, json!("n1"))),
        },
        Case {
            name: "a cancellation carrying an id",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"n2","method":"notifications/cancelled","params":{"requestId":"x"}}"#,
            ),
            stream: error(-32601, json!("n2")),
            http: http(200, error(-32601, json!("n2"))),
        },
        Case {
            name: "an unknown notification is ignored",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","method":"notifications/whatever","params":{"a":1}}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        Case {
            name: "a malformed cancellation is ignored",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}"#,
            ),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        Case {
            name: "a malformed progress notification is ignored",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","method":"notifications/progress","params":"x"}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        // --- The jsonrpc member --------------------------------------------------
        Case {
            name: "jsonrpc 1.0",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"1.0","id":"v1","method":"ping"}"#),
            stream: error(-32600, json!("v1")),
            http: http(400, error(-32600, json!("v1"))),
        },
        Case {
            name: "no jsonrpc member",
            phase: Ready,
            only: &[],
            input: msg(r#"{"id":"v2","method":"ping"}"#),
            stream: error(-32600, json!("v2")),
            http: http(400, error(-32600, json!("v2"))),
        },
        Case {
            name: "jsonrpc as a number",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":2.0,"id":"v3","method":"ping"}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        // --- Methods -------------------------------------------------------------
        Case {
            name: "an unknown method",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"m1","method":"no/such"}"#),
            stream: error(-32601, json!("m1")),
            http: http(200, error(-32601, json!("m1"))),
        },
        Case {
            name: "an empty method",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"m2","method":""}"#),
            stream: error(-32601, json!("m2")),
            http: http(200, error(-32601, json!("m2"))),
        },
        Case {
            name: "a method that is not a string",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"m3","method":7}"#),
            stream: error(-32600, null.clone()),
            http: http(400, error(-32600, null.clone())),
        },
        // --- Params --------------------------------------------------------------
        Case {
            name: "tools/call without params",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"a1","method":"tools/call"}"#),
            stream: error(-32602, json!("a1")),
            http: http(200, error(-32602, json!("a1"))),
        },
        Case {
            name: "tools/call with a name of the wrong type",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"a2","method":"tools/call","params":{"name":5}}"#),
            stream: error(-32602, json!("a2")),
            http: http(200, error(-32602, json!("a2"))),
        },
        Case {
            name: "resources/read with positional params that line up with its fields",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"p1","method":"resources/read","params":[null,"test://static-text"]}"#,
            ),
            stream: error(-32602, json!("p1")),
            http: http(200, error(-32602, json!("p1"))),
        },
        Case {
            name: "ping with params that are a number",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"p2","method":"ping","params":5}"#),
            stream: error(-32602, json!("p2")),
            http: http(200, error(-32602, json!("p2"))),
        },
        Case {
            name: "ping with params null",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"p3","method":"ping","params":null}"#),
            stream: error(-32602, json!("p3")),
            http: http(200, error(-32602, json!("p3"))),
        },
        Case {
            name: "a 2026-07-28 method in a 2025-11-25 session",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"p4","method":"server/discover","params":{}}"#),
            stream: error(-32601, json!("p4")),
            http: http(200, error(-32601, json!("p4"))),
        },
        Case {
            name: "tools/call with params as an array",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a3","method":"tools/call","params":["add_numbers"]}"#,
            ),
            stream: error(-32602, json!("a3")),
            http: http(200, error(-32602, json!("a3"))),
        },
        Case {
            name: "tools/call with params as a string",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a4","method":"tools/call","params":"add_numbers"}"#,
            ),
            stream: error(-32602, json!("a4")),
            http: http(200, error(-32602, json!("a4"))),
        },
        Case {
            name: "tools/call with arguments that are not an object",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a5","method":"tools/call","params":{"name":"add_numbers","arguments":[1,2]}}"#,
            ),
            stream: error(-32602, json!("a5")),
            http: http(200, error(-32602, json!("a5"))),
        },
        Case {
            name: "an unknown tool (spec: -32602)",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a6","method":"tools/call","params":{"name":"no_such_tool"}}"#,
            ),
            stream: error(-32602, json!("a6")),
            http: http(200, error(-32602, json!("a6"))),
        },
        Case {
            name: "tool arguments of the wrong type are a tool error (SEP-1303)",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a7","method":"tools/call","params":{"name":"add_numbers","arguments":{"a":"x","b":1}}}"#,
            ),
            stream: result(json!("a7"), tool_error),
            http: http(200, result(json!("a7"), tool_error)),
        },
        Case {
            name: "a missing tool argument is a tool error (SEP-1303)",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"a8","method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1}}}"#,
            ),
            stream: result(json!("a8"), tool_error),
            http: http(200, result(json!("a8"), tool_error)),
        },
        Case {
            name: "resources/read with a uri of the wrong type",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"r1","method":"resources/read","params":{"uri":5}}"#,
            ),
            stream: error(-32602, json!("r1")),
            http: http(200, error(-32602, json!("r1"))),
        },
        Case {
            name: "resources/read without a uri",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"r2","method":"resources/read","params":{}}"#),
            stream: error(-32602, json!("r2")),
            http: http(200, error(-32602, json!("r2"))),
        },
        Case {
            name: "an unknown resource (spec: -32002)",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"r3","method":"resources/read","params":{"uri":"test://nothing"}}"#,
            ),
            stream: error(-32002, json!("r3")),
            http: http(200, error(-32002, json!("r3"))),
        },
        Case {
            name: "a 1 MiB URI against a resource template is answered at once",
            phase: Ready,
            only: &[],
            input: msg(&long_uri),
            stream: error(-32002, json!("uri")),
            http: http(200, error(-32002, json!("uri"))),
        },
        Case {
            name: "logging/setLevel with an unknown level",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"l1","method":"logging/setLevel","params":{"level":"loud"}}"#,
            ),
            stream: error(-32602, json!("l1")),
            http: http(200, error(-32602, json!("l1"))),
        },
        // --- Unknown fields are accepted -------------------------------------------
        Case {
            name: "an unknown top-level member",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","id":"f1","method":"ping","x-vendor":{"a":[1]}}"#),
            stream: result(json!("f1"), empty),
            http: http(200, result(json!("f1"), empty)),
        },
        Case {
            name: "unknown members in params and _meta",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"f2","method":"tools/call","params":{"name":"add_numbers","arguments":{"a":1,"b":2},"x-vendor":true,"_meta":{"x-trace":"t"}}}"#,
            ),
            stream: result(json!("f2"), tool_ok),
            http: http(200, result(json!("f2"), tool_ok)),
        },
        Case {
            name: "unknown members in list params",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"f3","method":"tools/list","params":{"x-page":[1,2]}}"#,
            ),
            stream: result(json!("f3"), any),
            http: http(200, result(json!("f3"), any)),
        },
        // --- Lifecycle, initialized ---------------------------------------------
        Case {
            name: "a second initialize (ours: -32600)",
            phase: Ready,
            only: &[],
            input: msg(&INITIALIZE.replace("\"init\"", "\"i2\"")),
            stream: error(-32600, json!("i2")),
            http: http(200, error(-32600, json!("i2"))),
        },
        Case {
            name: "a second initialized notification is ignored",
            phase: Ready,
            only: &[],
            input: msg(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            stream: Answer::Nothing,
            http: http(202, Answer::Nothing),
        },
        // --- Capabilities not negotiated ------------------------------------------
        Case {
            // The everything server (stdio) declares every server capability.
            name: "prompts/list on a server without prompts",
            phase: Ready,
            only: &[Memory, Http],
            input: msg(r#"{"jsonrpc":"2.0","id":"c1","method":"prompts/list"}"#),
            stream: error(-32601, json!("c1")),
            http: http(200, error(-32601, json!("c1"))),
        },
        Case {
            name: "completion/complete on a server without completions",
            phase: Ready,
            only: &[Memory, Http],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"c2","method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":""}}}"#,
            ),
            stream: error(-32601, json!("c2")),
            http: http(200, error(-32601, json!("c2"))),
        },
        Case {
            // The client declared no sampling: the server must not ask.
            name: "a tool that needs sampling the client did not declare",
            phase: Ready,
            only: &[],
            input: msg(
                r#"{"jsonrpc":"2.0","id":"c3","method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"hi"}}}"#,
            ),
            stream: result(json!("c3"), tool_error),
            http: http(200, result(json!("c3"), tool_error)),
        },
        // --- Streamable HTTP only -----------------------------------------------------
        Case {
            name: "POST without Mcp-Session-Id (spec: 400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["mcp-session-id"], &[]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "POST with an unknown Mcp-Session-Id (spec: 404)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["mcp-session-id"], &[b"Mcp-Session-Id: 0123456789abcdef"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(404, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "Mcp-Session-Id that is not visible ASCII (400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["mcp-session-id"], &[b"Mcp-Session-Id: \xff\xfe"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "DELETE with an unknown Mcp-Session-Id (404)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: vec![
                    b"DELETE /mcp HTTP/1.1".to_vec(),
                    b"Host: {addr}".to_vec(),
                    b"Mcp-Session-Id: 0123456789abcdef".to_vec(),
                ],
                body: Vec::new(),
            },
            stream: Answer::Nothing,
            http: http(404, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "an unsupported MCP-Protocol-Version (spec: 400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(
                    &["mcp-protocol-version"],
                    &[b"MCP-Protocol-Version: 1999-01-01"],
                ),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "an empty MCP-Protocol-Version (spec: 400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["mcp-protocol-version"], &[b"MCP-Protocol-Version: "]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "an MCP-Protocol-Version that is not text (spec: 400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(
                    &["mcp-protocol-version"],
                    &[b"MCP-Protocol-Version: 2025-11-25\xff"],
                ),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "an unsupported MCP-Protocol-Version on GET (spec: 400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: {
                    let mut head = get_head(
                        Some("text/event-stream"),
                        &[b"MCP-Protocol-Version: 1999-01-01"],
                    );
                    head.remove(3);
                    head
                },
                body: Vec::new(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "a foreign Origin (spec: 403)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&[], &[b"Origin: http://evil.example"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(403, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "Origin null (403)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&[], &[b"Origin: null"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(403, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "a foreign Host (DNS rebinding: 403)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["host"], &[b"Host: evil.example:80"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(403, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "no Host (403)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["host"], &[]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(403, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "Content-Type text/plain (ours: 415)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["content-type"], &[b"Content-Type: text/plain"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(415, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "no Content-Type (ours: 415)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["content-type"], &[]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(415, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "POST without Accept (ours: 406)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["accept"], &[]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(406, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "POST accepting neither JSON nor SSE (ours: 406)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&["accept"], &[b"Accept: text/html"]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(406, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "GET without Accept (ours: 406)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: get_head(None, &[]),
                body: Vec::new(),
            },
            stream: Answer::Nothing,
            http: http(406, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "GET accepting only JSON (ours: 406)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: get_head(Some("application/json"), &[]),
                body: Vec::new(),
            },
            stream: Answer::Nothing,
            http: http(406, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "GET resuming an event id we never issued (400)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: get_head(Some("text/event-stream"), &[b"Last-Event-ID: nonsense"]),
                body: Vec::new(),
            },
            stream: Answer::Nothing,
            http: http(400, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "PUT (405)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: {
                    let mut head = post_head(&[], &[]);
                    head[0] = b"PUT /mcp HTTP/1.1".to_vec();
                    head
                },
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(405, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "header fields just under max_header_size are fine",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&[], &[pad(DEFAULT_MAX_HEADER_SIZE - 1024).as_bytes()]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(200, result(json!("p"), empty)),
        },
        Case {
            name: "header fields over max_header_size (431)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&[], &[pad(DEFAULT_MAX_HEADER_SIZE).as_bytes()]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(431, Answer::AnyErrorWithoutId),
        },
        Case {
            // hyper's HTTP/1 read buffer (about 400 KiB) ends the request
            // before our limit is looked at: 431, then the connection closes.
            name: "a request head over hyper's limit (431 from hyper)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: post_head(&[], &[pad(512 * 1024).as_bytes()]),
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(431, Answer::AnyErrorWithoutId),
        },
        Case {
            name: "over 100 header fields (431 from hyper)",
            phase: Ready,
            only: &[Http],
            input: Input::Http {
                head: {
                    let many: Vec<String> = (0..120).map(|i| format!("X-Field-{i}: {i}")).collect();
                    let many: Vec<&[u8]> = many.iter().map(|l| l.as_bytes()).collect();
                    post_head(&[], &many)
                },
                body: PING.into(),
            },
            stream: Answer::Nothing,
            http: http(431, Answer::AnyErrorWithoutId),
        },
    ]
}

// ---------------------------------------------------------------------------
// Stream transports: stdio and in-memory

#[allow(
    clippy::large_enum_variant,
    reason = "one per test, never moved around"
)]
enum Stream {
    Stdio {
        child: Child,
        stdin: Option<ChildStdin>,
        stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    },
    Memory {
        ours: TransportHandle,
        _server: ServerSession,
    },
}

impl Stream {
    async fn stdio() -> Self {
        let mut child = tokio::process::Command::new(mcp_binary())
            .args(["serve", "everything"])
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        Self::Stdio {
            child,
            stdin,
            stdout,
        }
    }

    fn memory() -> Self {
        let (ours, theirs) = memory_pair();
        let server = test_server().serve(theirs).unwrap();
        Self::Memory {
            ours: ours.start().unwrap(),
            _server: server,
        }
    }

    async fn send(&mut self, message: &[u8]) {
        match self {
            Self::Stdio { stdin, .. } => {
                let stdin = stdin.as_mut().unwrap();
                let mut line = message.to_vec();
                line.push(b'\n');
                tokio::time::timeout(WAIT, async {
                    stdin.write_all(&line).await.unwrap();
                    stdin.flush().await.unwrap();
                })
                .await
                .expect("the server reads its input");
            }
            Self::Memory { ours, .. } => {
                let text = String::from_utf8(message.to_vec()).expect("memory frames are text");
                let message = OutboundMessage {
                    text,
                    kind: OutboundKind::Request,
                    related: None,
                };
                ours.outbound.send(message).await.unwrap();
            }
        }
    }

    /// The next message from the server.
    async fn recv(&mut self) -> Value {
        let text = match self {
            Self::Stdio { stdout, .. } => tokio::time::timeout(WAIT, stdout.next_line())
                .await
                .expect("the server answers in time")
                .unwrap()
                .expect("the server is still running"),
            Self::Memory { ours, .. } => {
                match tokio::time::timeout(WAIT, ours.inbound.recv())
                    .await
                    .expect("the server answers in time")
                {
                    Some(InboundFrame::Message(text)) => text,
                    other => panic!("not a message: {other:?}"),
                }
            }
        };
        serde_json::from_str(&text).unwrap()
    }

    /// Reads messages until a response arrives; returns it and whatever
    /// else came first.
    async fn next_response(&mut self) -> (Value, Vec<Value>) {
        let mut others = Vec::new();
        for _ in 0..100 {
            let m = self.recv().await;
            if m.get("method").is_none() {
                return (m, others);
            }
            others.push(m);
        }
        panic!("no response among {others:?}")
    }

    /// Checks that the session answers `ping` (and, once initialized,
    /// `tools/list`); returns any other message that arrived meanwhile.
    async fn alive(&mut self, n: usize, phase: Phase) -> Vec<Value> {
        let ping = json!(format!("alive-{n}"));
        let list = json!(format!("alive-list-{n}"));
        self.send(
            json!({"jsonrpc": "2.0", "id": ping, "method": "ping"})
                .to_string()
                .as_bytes(),
        )
        .await;
        let mut waiting = vec![ping.clone()];
        if phase == Phase::Ready {
            self.send(
                json!({"jsonrpc": "2.0", "id": list, "method": "tools/list"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
            waiting.push(list.clone());
        }
        let mut stray = Vec::new();
        while !waiting.is_empty() {
            let (response, others) = self.next_response().await;
            stray.extend(others);
            match waiting.iter().position(|id| response["id"] == *id) {
                Some(i) => {
                    waiting.remove(i);
                    if response["id"] == ping {
                        assert_eq!(response["result"], json!({}), "{response}");
                    } else {
                        assert!(
                            response["result"]["tools"]
                                .as_array()
                                .is_some_and(|t| !t.is_empty()),
                            "{response}"
                        );
                    }
                }
                None => stray.push(response),
            }
        }
        stray
    }

    async fn initialize(&mut self) {
        self.send(INITIALIZE.as_bytes()).await;
        let (response, others) = self.next_response().await;
        assert!(others.is_empty(), "{others:?}");
        assert!(initialized(&response["result"]), "{response}");
        self.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }

    /// Ends the server: closes stdin (it exits on end of input), and kills
    /// it by its process id if it has not exited in time.
    async fn close(self) {
        if let Self::Stdio {
            mut child, stdin, ..
        } = self
        {
            drop(stdin);
            let exited = tokio::time::timeout(WAIT, child.wait()).await;
            if exited.is_err() {
                child.start_kill().unwrap();
                child.wait().await.unwrap();
                panic!("the server did not exit when its input ended");
            }
        }
    }
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

async fn run_stream(mut stream: Stream, transport: Via) {
    let cases = cases();
    let mut ran = 0;
    let mut initialized = false;
    for (n, case) in cases.iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&transport) {
            continue;
        }
        if case.phase == Phase::Ready && !initialized {
            stream.initialize().await;
            initialized = true;
        }
        let mut others = Vec::new();
        let in_flight = matches!(case.input, Input::WhileInFlight { .. });
        match &case.input {
            Input::Message(m) => stream.send(m).await,
            Input::WhileInFlight { slow, message } => {
                stream.send(slow.as_bytes()).await;
                stream.send(message.as_bytes()).await;
            }
            Input::Http { .. } => unreachable!("{}: HTTP only", case.name),
        }
        if !matches!(case.stream, Answer::Nothing) {
            let (response, before) = stream.next_response().await;
            others = before;
            check(case.name, &case.stream, Some(&response));
        }
        if in_flight {
            stream.send(CANCEL_SLOW).await;
        }
        let stray = stream.alive(n, case.phase).await;
        assert!(
            others.is_empty() && stray.is_empty(),
            "{transport:?} {}: unexpected messages {others:?} {stray:?}",
            case.name
        );
        ran += 1;
    }
    assert!(ran > 40, "{transport:?}: only {ran} cases ran");
    stream.close().await;
}

#[tokio::test]
async fn bad_input_over_stdio() {
    let binary = tokio::task::spawn_blocking(mcp_binary).await.unwrap();
    assert!(binary.exists());
    run_stream(Stream::stdio().await, Stdio).await;
}

#[tokio::test]
async fn bad_input_in_memory() {
    run_stream(Stream::memory(), Memory).await;
}

// ---------------------------------------------------------------------------
// Streamable HTTP

struct HttpConn {
    addr: SocketAddr,
    server: StreamableHttpServer,
    stop: CancellationToken,
    session: Option<String>,
}

impl HttpConn {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = StreamableHttpServer::new(test_server(), HttpServerConfig::default());
        let stop = CancellationToken::new();
        tokio::spawn(server.clone().serve_until(listener, stop.clone()));
        Self {
            addr,
            server,
            stop,
            session: None,
        }
    }

    /// Fills in `{addr}` and `{session}` and joins the lines.
    fn head(&self, lines: &[Vec<u8>]) -> Vec<u8> {
        let session = self.session.clone().unwrap_or_default();
        let mut head = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                head.extend_from_slice(b"\r\n");
            }
            let text = String::from_utf8_lossy(line);
            if text.contains('{') && line.is_ascii() {
                let filled = text
                    .replace("{addr}", &self.addr.to_string())
                    .replace("{session}", &session);
                head.extend_from_slice(filled.as_bytes());
            } else {
                head.extend_from_slice(line);
            }
        }
        head
    }

    fn standard_head(&self) -> Vec<u8> {
        let without: &[&str] = if self.session.is_some() {
            &[]
        } else {
            &["mcp-session-id", "mcp-protocol-version"]
        };
        self.head(&post_head(without, &[]))
    }

    async fn post(&self, body: &[u8]) -> RawResponse {
        raw_http(self.addr, &self.standard_head(), body)
            .await
            .expect("an HTTP response")
    }

    async fn initialize(&mut self) {
        let response = self.post(INITIALIZE.as_bytes()).await;
        assert_eq!(response.status, 200);
        assert!(initialized(&response.message().unwrap()["result"]));
        self.session = Some(response.header("mcp-session-id").unwrap().to_string());
        let ack = self
            .post(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        assert_eq!(ack.status, 202);
    }

    async fn alive(&self, n: usize) {
        let ping = self
            .post(
                json!({"jsonrpc": "2.0", "id": n, "method": "ping"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(ping.status, 200);
        assert_eq!(ping.message().unwrap()["result"], json!({}));
        let list = self
            .post(
                json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"})
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(list.status, 200);
        assert!(list.message().unwrap()["result"]["tools"].is_array());
        assert_eq!(self.server.session_count(), 1);
    }
}

#[tokio::test]
async fn bad_input_over_streamable_http() {
    let mut conn = HttpConn::start().await;
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&Http) {
            continue;
        }
        if case.phase == Phase::Ready && conn.session.is_none() {
            conn.initialize().await;
        }
        let mut slow_request = None;
        let response = match &case.input {
            Input::Message(body) => conn.post(body).await,
            Input::Http { head, body } => match raw_http(conn.addr, &conn.head(head), body).await {
                Some(response) => response,
                None => panic!("{}: the server closed the connection", case.name),
            },
            Input::WhileInFlight { slow, message } => {
                // With a progress token the slow request's response starts
                // (with its first progress event) once it is in progress;
                // the connection stays open until it is cancelled.
                let slow = slow.replace(
                    r#""arguments""#,
                    r#""_meta":{"progressToken":"slow"},"arguments""#,
                );
                let (tcp, status) =
                    open_http(conn.addr, &conn.standard_head(), slow.as_bytes()).await;
                assert_eq!(status, 200, "{}", case.name);
                slow_request = Some(tcp);
                conn.post(message.as_bytes()).await
            }
        };
        assert_eq!(
            response.status, case.http.status,
            "{}: {response:?}",
            case.name
        );
        let message = response.message();
        if matches!(case.http.body, Answer::Nothing) {
            assert!(response.body.is_empty(), "{}: {response:?}", case.name);
        }
        check(case.name, &case.http.body, message.as_ref());
        if let Some(slow) = slow_request {
            let cancelled = conn.post(CANCEL_SLOW).await;
            assert_eq!(cancelled.status, 202);
            drop(slow);
        }
        match case.phase {
            Phase::BeforeInit => {
                // Nothing before a successful initialize leaves a session.
                assert!(response.header("mcp-session-id").is_none(), "{}", case.name);
                assert_eq!(conn.server.session_count(), 0, "{}", case.name);
            }
            Phase::Ready => conn.alive(n).await,
        }
        ran += 1;
    }
    assert!(ran > 60, "only {ran} cases ran");
    conn.stop.cancel();
}
