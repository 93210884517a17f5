//! The table, part two: in an initialized session — responses and
//! notifications, the `jsonrpc` member, methods, params, unknown fields,
//! lifecycle, and capabilities not negotiated.

use serde_json::{Value, json};

use crate::{
    Answer, Case, Http, INITIALIZE, Memory, Phase, any, empty, error, http, msg, result,
    tool_error, tool_ok,
};

pub(crate) fn cases() -> Vec<Case> {
    use Phase::Ready;
    let null = Value::Null;
    let long_uri = format!(
        r#"{{"jsonrpc":"2.0","id":"uri","method":"resources/read","params":{{"uri":"test://template/{}/dat"}}}}"#,
        "a".repeat(1 << 20)
    );
    vec![
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
    ]
}
