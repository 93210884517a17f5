//! Bad input of the 2026-07-28 surface — requests that stand alone, their
//! `_meta`, input-required rounds and the tasks extension, and the
//! Streamable HTTP header rules (SEP-2243) — as one table run over stdio (a
//! real `mcp serve everything`), the in-memory pair and Streamable HTTP.
//! `bad_input.rs` is the table of the 2025-11-25 surface.
//!
//! Each case gives its request, the answer on the stream transports and the
//! answer over HTTP (status, and the JSON-RPC message when there is one).
//! After every case the same server must still answer a 2026-07-28
//! `server/discover` and `tools/call`.
//!
//! The codes are the spec's: -32602 for missing or malformed `_meta` (HTTP
//! 400), -32022 with `data.supported`/`data.requested` for a revision not
//! served per request (400), -32020 for headers that disagree with the body
//! or are missing (400), -32601 for a method the revision does not have
//! (HTTP 404), -32021 with `data.requiredCapabilities` for a missing client
//! capability (400), -32602 with `data.reason` for a `requestState` that this
//! server did not seal for this request, 405 for GET and DELETE, 431 for
//! oversized headers, 202 for a notification. An expired `requestState` is
//! refused the same way; it cannot be made from outside (the key is the
//! process's), so the unit tests of `request_state.rs` cover it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

mod common;

use std::process::Stdio as Piped;

use common::{WAIT, mcp_binary, test_server};
use mcp_core::server::ServerSession;
use mcp_core::transport::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

// ---------------------------------------------------------------------------
// The table

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Via {
    Stdio,
    Memory,
    Http,
}
use Via::{Http, Memory, Stdio};

enum Input {
    /// One message.
    Message(Value),
    /// `first` (which must answer with an input-required result), then the
    /// message `then` makes of its `requestState`.
    Retry {
        first: Value,
        then: fn(&str) -> Value,
    },
}

enum Answer {
    /// An error with this code for this id, whose error object passes the check.
    Error(i64, &'static str, fn(&Value) -> bool),
    /// A result for this id that passes the check.
    Result(&'static str, fn(&Value) -> bool),
    /// No JSON-RPC answer to check (HTTP: the status says it all).
    Nothing,
}

/// How the HTTP request of a case differs from the standard one (POST with
/// `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method` and `Mcp-Name` as the
/// body says).
#[derive(Default)]
struct Head {
    method: Option<&'static str>,
    without: &'static [&'static str],
    set: &'static [(&'static str, &'static str)],
    /// A header with a value of this many bytes.
    huge: Option<(&'static str, usize)>,
}

struct Case {
    name: &'static str,
    only: &'static [Via],
    input: Input,
    stream: Answer,
    head: Head,
    status: u16,
    http: Answer,
}

const V: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": V,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
    })
}

/// A request with the standard `_meta` and `params` added to it.
fn request(id: &str, method: &str, mut params: Value) -> Value {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A request with exactly this `_meta`.
fn with_meta(id: &str, method: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {"_meta": meta}})
}

fn sampling(id: &str, prompt: &str) -> Value {
    request(
        id,
        "tools/call",
        json!({"name": "test_sampling", "arguments": {"prompt": prompt}}),
    )
}

fn any(_: &Value) -> bool {
    true
}

fn unsupported_version(e: &Value) -> bool {
    e["data"]["supported"]
        .as_array()
        .is_some_and(|s| s.contains(&json!(V)) && s.contains(&json!("2025-11-25")))
        && e["data"]["requested"].is_string()
}

fn bad_state(e: &Value) -> bool {
    e["data"]["reason"] == "invalid_request_state"
}

fn needs_tasks(e: &Value) -> bool {
    e["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"] == json!({})
}

fn asks_again(r: &Value) -> bool {
    r["resultType"] == "input_required"
        && r["inputRequests"]["sampling-0"]["method"] == "sampling/createMessage"
        && r["requestState"].is_string()
}

fn error(code: i64, id: &'static str) -> Answer {
    Answer::Error(code, id, any)
}

fn cases() -> Vec<Case> {
    let all: &[Via] = &[];
    let case = |name, input: Value, stream: Answer, status, http: Answer| Case {
        name,
        only: all,
        input: Input::Message(input),
        stream,
        head: Head::default(),
        status,
        http,
    };
    let http_only = |name, input: Value, head: Head, status, http: Answer| Case {
        name,
        only: &[Http],
        input: Input::Message(input),
        stream: Answer::Nothing,
        head,
        status,
        http,
    };
    let list = |id| request(id, "tools/list", json!({}));
    vec![
        // `_meta`
        case(
            "_meta that is not an object",
            json!({"jsonrpc": "2.0", "id": "m1", "method": "tools/list", "params": {"_meta": 5}}),
            error(-32602, "m1"),
            400,
            error(-32602, "m1"),
        ),
        case(
            "_meta without a protocol version",
            with_meta(
                "m2",
                "tools/list",
                json!({"io.modelcontextprotocol/clientCapabilities": {}}),
            ),
            error(-32602, "m2"),
            400,
            error(-32602, "m2"),
        ),
        case(
            "a protocol version that is not a string",
            with_meta(
                "m3",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": 20260728,
                       "io.modelcontextprotocol/clientCapabilities": {}}),
            ),
            error(-32602, "m3"),
            400,
            error(-32602, "m3"),
        ),
        Case {
            name: "an unknown protocol version",
            only: all,
            input: Input::Message(with_meta(
                "m4",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": "2099-01-01",
                       "io.modelcontextprotocol/clientCapabilities": {}}),
            )),
            stream: Answer::Error(-32022, "m4", unsupported_version),
            head: Head {
                set: &[("mcp-protocol-version", "2099-01-01")],
                ..Head::default()
            },
            status: 400,
            http: Answer::Error(-32022, "m4", unsupported_version),
        },
        Case {
            name: "a revision with sessions, claimed per request",
            only: all,
            input: Input::Message(with_meta(
                "m5",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25",
                       "io.modelcontextprotocol/clientCapabilities": {}}),
            )),
            stream: Answer::Error(-32022, "m5", unsupported_version),
            // Over HTTP the header names 2026-07-28: they disagree first.
            head: Head::default(),
            status: 400,
            http: error(-32020, "m5"),
        },
        case(
            "no client capabilities",
            with_meta(
                "m6",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": V}),
            ),
            error(-32602, "m6"),
            400,
            error(-32602, "m6"),
        ),
        case(
            "client capabilities that are not an object",
            with_meta(
                "m7",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": V,
                       "io.modelcontextprotocol/clientCapabilities": []}),
            ),
            error(-32602, "m7"),
            400,
            error(-32602, "m7"),
        ),
        case(
            "client info that is not an implementation",
            with_meta(
                "m8",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": V,
                       "io.modelcontextprotocol/clientCapabilities": {},
                       "io.modelcontextprotocol/clientInfo": 5}),
            ),
            error(-32602, "m8"),
            400,
            error(-32602, "m8"),
        ),
        case(
            "a log level that does not exist",
            with_meta(
                "m9",
                "tools/list",
                json!({"io.modelcontextprotocol/protocolVersion": V,
                       "io.modelcontextprotocol/clientCapabilities": {},
                       "io.modelcontextprotocol/logLevel": "loud"}),
            ),
            error(-32602, "m9"),
            400,
            error(-32602, "m9"),
        ),
        // Methods the revision does not have.
        case(
            "an unknown method",
            request("u1", "tools/frobnicate", json!({})),
            error(-32601, "u1"),
            404,
            error(-32601, "u1"),
        ),
        case(
            "ping, which 2026-07-28 no longer has",
            request("u2", "ping", json!({})),
            error(-32601, "u2"),
            404,
            error(-32601, "u2"),
        ),
        case(
            "tasks/result, which the tasks extension dropped",
            request("u3", "tasks/result", json!({"taskId": "t"})),
            error(-32601, "u3"),
            404,
            error(-32601, "u3"),
        ),
        // Params.
        Case {
            name: "params that are a string",
            only: all,
            input: Input::Message(
                json!({"jsonrpc": "2.0", "id": "p1", "method": "tools/list", "params": "x"}),
            ),
            // Refused for its shape before anything else on a stream; over
            // HTTP the header claims 2026-07-28 and no metadata can be read.
            stream: error(-32602, "p1"),
            head: Head::default(),
            status: 400,
            http: error(-32602, "p1"),
        },
        case(
            "tools/call arguments that are not an object",
            request(
                "p2",
                "tools/call",
                json!({"name": "add_numbers", "arguments": [1, 2]}),
            ),
            error(-32602, "p2"),
            200,
            error(-32602, "p2"),
        ),
        // Input-required rounds.
        case(
            "a requestState this server did not seal",
            request(
                "r1",
                "tools/call",
                json!({"name": "test_sampling", "arguments": {"prompt": "a"}, "requestState": "forged"}),
            ),
            Answer::Error(-32602, "r1", bad_state),
            200,
            Answer::Error(-32602, "r1", bad_state),
        ),
        Case {
            name: "a requestState tampered with",
            only: all,
            input: Input::Retry {
                first: sampling("r2a", "a"),
                then: |state| {
                    let mut tampered = state.to_string();
                    let last = tampered
                        .pop()
                        .map_or('A', |c| if c == 'A' { 'B' } else { 'A' });
                    tampered.push(last);
                    request(
                        "r2",
                        "tools/call",
                        json!({"name": "test_sampling", "arguments": {"prompt": "a"}, "requestState": tampered}),
                    )
                },
            },
            stream: Answer::Error(-32602, "r2", bad_state),
            head: Head::default(),
            status: 200,
            http: Answer::Error(-32602, "r2", bad_state),
        },
        Case {
            name: "a requestState of another request",
            only: all,
            input: Input::Retry {
                first: sampling("r3a", "a"),
                then: |state| {
                    request(
                        "r3",
                        "tools/call",
                        json!({"name": "test_sampling", "arguments": {"prompt": "other"}, "requestState": state}),
                    )
                },
            },
            stream: Answer::Error(-32602, "r3", bad_state),
            head: Head::default(),
            status: 200,
            http: Answer::Error(-32602, "r3", bad_state),
        },
        case(
            "inputResponses that are not an object",
            request(
                "r4",
                "tools/call",
                json!({"name": "test_sampling", "arguments": {"prompt": "a"}, "inputResponses": [1]}),
            ),
            error(-32602, "r4"),
            200,
            error(-32602, "r4"),
        ),
        Case {
            name: "an input response of an unknown resultType, which answers nothing",
            only: all,
            input: Input::Retry {
                first: sampling("r5a", "a"),
                then: |state| {
                    request(
                        "r5",
                        "tools/call",
                        json!({"name": "test_sampling", "arguments": {"prompt": "a"}, "requestState": state,
                               "inputResponses": {"sampling-0": {"resultType": "bogus"}}}),
                    )
                },
            },
            // Not an input response of any kind: invalid params.
            stream: error(-32602, "r5"),
            head: Head::default(),
            status: 200,
            http: error(-32602, "r5"),
        },
        Case {
            name: "an input response under a key nobody asked",
            only: all,
            input: Input::Retry {
                first: sampling("r6a", "a"),
                then: |state| {
                    request(
                        "r6",
                        "tools/call",
                        json!({"name": "test_sampling", "arguments": {"prompt": "a"}, "requestState": state,
                               "inputResponses": {"never-asked": {"role": "assistant", "model": "m",
                                   "content": {"type": "text", "text": "hi"}}}}),
                    )
                },
            },
            // Ignored: the question is asked again, with a fresh state.
            stream: Answer::Result("r6", asks_again),
            head: Head::default(),
            status: 200,
            http: Answer::Result("r6", asks_again),
        },
        // The tasks extension.
        case(
            "the legacy task field on a tool call",
            request(
                "t0",
                "tools/call",
                json!({"name": "add_numbers", "arguments": {"a": 1, "b": 2}, "task": {"ttl": 5}}),
            ),
            Answer::Result("t0", |r| {
                r["resultType"] == "complete" && r["content"][0]["text"] == "3"
            }),
            200,
            Answer::Result("t0", |r| {
                r["resultType"] == "complete" && r["content"][0]["text"] == "3"
            }),
        ),
        case(
            "tasks/get without declaring the tasks extension",
            request("t1", "tasks/get", json!({"taskId": "t"})),
            Answer::Error(-32021, "t1", needs_tasks),
            400,
            Answer::Error(-32021, "t1", needs_tasks),
        ),
        case(
            "tasks/update of an unknown task",
            request(
                "t2",
                "tasks/update",
                json!({"taskId": "t", "inputResponses": {},
                       "_meta": {"io.modelcontextprotocol/protocolVersion": V,
                                 "io.modelcontextprotocol/clientCapabilities": {
                                     "extensions": {"io.modelcontextprotocol/tasks": {}}}}}),
            ),
            error(-32602, "t2"),
            200,
            error(-32602, "t2"),
        ),
        case(
            "tasks/cancel without a task id",
            request(
                "t3",
                "tasks/cancel",
                json!({"_meta": {"io.modelcontextprotocol/protocolVersion": V,
                                 "io.modelcontextprotocol/clientCapabilities": {
                                     "extensions": {"io.modelcontextprotocol/tasks": {}}}}}),
            ),
            error(-32602, "t3"),
            200,
            error(-32602, "t3"),
        ),
        // Streamable HTTP headers (SEP-2243).
        http_only(
            "no MCP-Protocol-Version header",
            list("h1"),
            Head {
                without: &["mcp-protocol-version"],
                ..Head::default()
            },
            400,
            error(-32020, "h1"),
        ),
        http_only(
            "an MCP-Protocol-Version header that differs from _meta",
            list("h2"),
            Head {
                set: &[("mcp-protocol-version", "2099-01-01")],
                ..Head::default()
            },
            400,
            error(-32020, "h2"),
        ),
        http_only(
            "no Mcp-Method header",
            list("h3"),
            Head {
                without: &["mcp-method"],
                ..Head::default()
            },
            400,
            error(-32020, "h3"),
        ),
        http_only(
            "an Mcp-Method header naming another method",
            list("h4"),
            Head {
                set: &[("mcp-method", "prompts/list")],
                ..Head::default()
            },
            400,
            error(-32020, "h4"),
        ),
        http_only(
            "no Mcp-Name header on tools/call",
            request(
                "h5",
                "tools/call",
                json!({"name": "add_numbers", "arguments": {"a": 1, "b": 2}}),
            ),
            Head {
                without: &["mcp-name"],
                ..Head::default()
            },
            400,
            error(-32020, "h5"),
        ),
        http_only(
            "an Mcp-Name header naming another tool",
            request(
                "h6",
                "tools/call",
                json!({"name": "add_numbers", "arguments": {"a": 1, "b": 2}}),
            ),
            Head {
                set: &[("mcp-name", "test_sampling")],
                ..Head::default()
            },
            400,
            error(-32020, "h6"),
        ),
        http_only(
            "an Mcp-Name header on tasks/get naming another task",
            request(
                "h7",
                "tasks/get",
                json!({"taskId": "t",
                       "_meta": {"io.modelcontextprotocol/protocolVersion": V,
                                 "io.modelcontextprotocol/clientCapabilities": {
                                     "extensions": {"io.modelcontextprotocol/tasks": {}}}}}),
            ),
            Head {
                set: &[("mcp-name", "another-task")],
                ..Head::default()
            },
            400,
            error(-32020, "h7"),
        ),
        http_only(
            "an oversized Mcp-Param header",
            request(
                "h8",
                "tools/call",
                json!({"name": "add_numbers", "arguments": {"a": 1, "b": 2}}),
            ),
            Head {
                huge: Some(("mcp-param-a", 40 * 1024)),
                ..Head::default()
            },
            431,
            Answer::Nothing,
        ),
        http_only(
            "a notification without Mcp-Method",
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": "gone", "_meta": meta()}}),
            Head {
                without: &["mcp-method"],
                ..Head::default()
            },
            202,
            Answer::Nothing,
        ),
        http_only(
            "GET naming 2026-07-28",
            list("h9"),
            Head {
                method: Some("GET"),
                ..Head::default()
            },
            405,
            Answer::Nothing,
        ),
        http_only(
            "DELETE naming 2026-07-28",
            list("h10"),
            Head {
                method: Some("DELETE"),
                ..Head::default()
            },
            405,
            Answer::Nothing,
        ),
    ]
}

fn check(case: &str, answer: &Answer, message: Option<&Value>) {
    match (answer, message) {
        (Answer::Error(code, id, check), Some(m)) => {
            assert_eq!(m["error"]["code"], *code, "{case}: {m}");
            assert_eq!(m["id"], *id, "{case}: {m}");
            assert!(check(&m["error"]), "{case}: {m}");
        }
        (Answer::Result(id, check), Some(m)) => {
            assert!(m.get("error").is_none(), "{case}: {m}");
            assert_eq!(m["id"], *id, "{case}: {m}");
            assert!(check(&m["result"]), "{case}: {m}");
        }
        (Answer::Nothing, _) => {}
        (_, None) => panic!("{case}: no answer"),
    }
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
        stdin: ChildStdin,
        stdout: tokio::io::Lines<BufReader<ChildStdout>>,
    },
    Memory {
        ours: TransportHandle,
        _server: ServerSession,
    },
}

impl Stream {
    async fn stdio() -> Self {
        let binary = tokio::task::spawn_blocking(mcp_binary).await.unwrap();
        let mut child = tokio::process::Command::new(binary)
            .args(["serve", "everything"])
            .stdin(Piped::piped())
            .stdout(Piped::piped())
            .stderr(Piped::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
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

    async fn send(&mut self, message: &Value) {
        let text = message.to_string();
        match self {
            Self::Stdio { stdin, .. } => {
                stdin.write_all(text.as_bytes()).await.unwrap();
                stdin.write_all(b"\n").await.unwrap();
                stdin.flush().await.unwrap();
            }
            Self::Memory { ours, .. } => {
                let m = OutboundMessage {
                    text,
                    kind: OutboundKind::Request,
                    related: None,
                };
                ours.outbound.send(m).await.unwrap();
            }
        }
    }

    /// The next message with an id (notifications are skipped).
    async fn answer(&mut self) -> Value {
        loop {
            let text = match self {
                Self::Stdio { stdout, .. } => tokio::time::timeout(WAIT, stdout.next_line())
                    .await
                    .expect("an answer in time")
                    .unwrap()
                    .expect("the server is still there"),
                Self::Memory { ours, .. } => {
                    match tokio::time::timeout(WAIT, ours.inbound.recv())
                        .await
                        .expect("an answer in time")
                        .expect("the server is still there")
                    {
                        InboundFrame::Message(text) => text,
                        other => panic!("not a message: {other:?}"),
                    }
                }
            };
            let m: Value = serde_json::from_str(&text).unwrap();
            if m.get("id").is_some() {
                return m;
            }
        }
    }

    async fn call(&mut self, message: &Value) -> Value {
        self.send(message).await;
        let answer = self.answer().await;
        assert_eq!(answer["id"], message["id"], "answers come in order here");
        answer
    }

    async fn close(self) {
        if let Self::Stdio {
            mut child, stdin, ..
        } = self
        {
            drop(stdin);
            let _ = tokio::time::timeout(WAIT, child.wait()).await;
            let _ = child.kill().await;
        }
    }
}

/// What a first round's answer hands on.
fn state_of(answer: &Value) -> String {
    assert_eq!(answer["result"]["resultType"], "input_required", "{answer}");
    answer["result"]["requestState"]
        .as_str()
        .expect("a requestState")
        .to_string()
}

fn alive_requests(n: usize) -> [Value; 2] {
    [
        request(&format!("alive-d{n}"), "server/discover", json!({})),
        request(
            &format!("alive-c{n}"),
            "tools/call",
            json!({"name": "add_numbers", "arguments": {"a": 2, "b": 3}}),
        ),
    ]
}

fn assert_alive(case: &str, answers: &[Value]) {
    assert!(
        answers[0]["result"]["supportedVersions"].is_array(),
        "{case}: {}",
        answers[0]
    );
    assert_eq!(
        answers[1]["result"]["content"][0]["text"], "5",
        "{case}: {}",
        answers[1]
    );
}

async fn run_stream(mut stream: Stream, via: Via) {
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&via) {
            continue;
        }
        let message = match &case.input {
            Input::Message(m) => m.clone(),
            Input::Retry { first, then } => then(&state_of(&stream.call(first).await)),
        };
        let answer = stream.call(&message).await;
        check(case.name, &case.stream, Some(&answer));
        let mut alive = Vec::new();
        for request in alive_requests(n) {
            alive.push(stream.call(&request).await);
        }
        assert_alive(case.name, &alive);
        ran += 1;
    }
    assert!(ran >= 20, "{via:?}: only {ran} cases ran");
    stream.close().await;
}

#[tokio::test]
async fn bad_2026_input_over_stdio() {
    run_stream(Stream::stdio().await, Stdio).await;
}

#[tokio::test]
async fn bad_2026_input_in_memory() {
    run_stream(Stream::memory(), Memory).await;
}

// ---------------------------------------------------------------------------
// Streamable HTTP

/// The standard headers of a stateless POST of `body`.
fn standard_headers(body: &Value) -> Vec<(String, String)> {
    let mut headers = vec![
        ("content-type".into(), "application/json".into()),
        (
            "accept".into(),
            "application/json, text/event-stream".into(),
        ),
        ("mcp-protocol-version".into(), V.into()),
    ];
    if let Some(method) = body["method"].as_str() {
        headers.push(("mcp-method".into(), method.into()));
    }
    let params = &body["params"];
    let name = params["name"]
        .as_str()
        .or(params["uri"].as_str())
        .or(params["taskId"].as_str());
    if let Some(name) = name {
        headers.push(("mcp-name".into(), name.into()));
    }
    headers
}

async fn send_http(addr: std::net::SocketAddr, body: &Value, head: &Head) -> (u16, Option<Value>) {
    let mut headers = standard_headers(body);
    headers.retain(|(name, _)| !head.without.contains(&name.as_str()));
    for (name, value) in head.set {
        headers.retain(|(n, _)| n != name);
        headers.push(((*name).into(), (*value).into()));
    }
    if let Some((name, bytes)) = head.huge {
        headers.push((name.into(), "a".repeat(bytes)));
    }
    let method = head.method.unwrap_or("POST");
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/mcp");
    let mut request = match method {
        "GET" => client.get(url),
        "DELETE" => client.delete(url),
        _ => client.post(url).body(body.to_string()),
    };
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = tokio::time::timeout(WAIT, request.send())
        .await
        .expect("an HTTP answer in time")
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = common::answer_json(&text);
    (status, serde_json::from_str(json).ok())
}

#[tokio::test]
async fn bad_2026_input_over_streamable_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = StreamableHttpServer::new(test_server(), HttpServerConfig::default());
    tokio::spawn(server.serve(listener));
    let mut ran = 0;
    for (n, case) in cases().iter().enumerate() {
        if !case.only.is_empty() && !case.only.contains(&Http) {
            continue;
        }
        let message = match &case.input {
            Input::Message(m) => m.clone(),
            Input::Retry { first, then } => {
                let (status, answer) = send_http(addr, first, &Head::default()).await;
                assert_eq!(status, 200, "{}", case.name);
                then(&state_of(&answer.unwrap()))
            }
        };
        let (status, answer) = send_http(addr, &message, &case.head).await;
        assert_eq!(status, case.status, "{}: {answer:?}", case.name);
        check(case.name, &case.http, answer.as_ref());
        let mut alive = Vec::new();
        for request in alive_requests(n) {
            let (status, answer) = send_http(addr, &request, &Head::default()).await;
            assert_eq!(status, 200, "{}", case.name);
            alive.push(answer.unwrap());
        }
        assert_alive(case.name, &alive);
        ran += 1;
    }
    assert!(ran >= 30, "only {ran} cases ran");
}

/// JSON-RPC: `params` that is neither an object nor an array is an error on
/// every method the table has, `ping` and `initialize` included (-32602, or
/// -32600 for a message that is not a valid request), before a session and
/// in one; the server goes on.
#[tokio::test]
async fn params_neither_object_nor_array_on_every_method() {
    use mcp_core::schema::{Direction, METHOD_TABLE};
    let mut stream = Stream::memory();
    let methods: Vec<&str> = METHOD_TABLE
        .iter()
        .filter(|m| !m.notification && m.direction != Direction::ServerToClient)
        .map(|m| m.name)
        .chain(
            mcp_core::extensions::EXTENSION_METHOD_TABLE
                .iter()
                .map(|m| m.name),
        )
        .collect();
    assert!(methods.contains(&"ping") && methods.contains(&"tools/call"));
    let initialize = json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}});
    for phase in ["before initialize", "in a session"] {
        if phase == "in a session" {
            assert!(stream.call(&initialize).await.get("result").is_some());
        }
        for (i, method) in methods.iter().enumerate() {
            for params in [json!(5), json!("x"), json!(true), Value::Null] {
                let id = format!("{phase}-{i}-{params}");
                let message =
                    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
                let answer = stream.call(&message).await;
                let code = answer["error"]["code"].as_i64();
                assert!(
                    matches!(code, Some(-32602 | -32600)),
                    "{phase}: {method} with params {params}: {answer}"
                );
            }
        }
        // Still serving: per request before the handshake, the session after.
        let alive = if phase == "in a session" {
            json!({"jsonrpc": "2.0", "id": "alive", "method": "ping"})
        } else {
            request("alive", "server/discover", json!({}))
        };
        let alive = stream.call(&alive).await;
        assert!(alive["result"].is_object(), "{alive}");
    }
    stream.close().await;
}
