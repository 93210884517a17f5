//! Bad input of the 2026-07-28 surface — requests that stand alone, their
//! `_meta`, input-required rounds and the tasks extension, and the
//! Streamable HTTP header rules (SEP-2243) — as one table run over stdio (a
//! real `mcp serve everything`), the in-memory pair and Streamable HTTP.
//! `bad_input/` is the table of the 2025-11-25 surface.
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

mod cases;
#[path = "../common/mod.rs"]
mod common;
mod http;
mod stream;

use serde_json::{Value, json};

use cases::cases;

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
