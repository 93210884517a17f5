//! The table: each case's request and its answers on the stream transports
//! and over Streamable HTTP.

use serde_json::{Value, json};

use crate::{
    Answer, Case, Head, Http, Input, V, Via, asks_again, bad_state, error, meta, needs_tasks,
    request, sampling, unsupported_version, with_meta,
};

pub(crate) fn cases() -> Vec<Case> {
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
