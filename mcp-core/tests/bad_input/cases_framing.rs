//! The table, part one: lifecycle before `initialize`, framing and JSON,
//! batches, and ids.

use mcp_core::transport::DEFAULT_MAX_MESSAGE_SIZE;
use serde_json::{Value, json};

use crate::{
    Answer, Case, Http, Input, PING, Phase, SLOW, Stdio, bytes, deep, empty, error, http, msg,
    result,
};

pub(crate) fn cases() -> Vec<Case> {
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
    ]
}
