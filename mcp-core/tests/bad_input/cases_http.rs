//! The table, part three: Streamable HTTP only — headers, sessions, methods
//! and sizes of the HTTP requests themselves.

use mcp_core::http::DEFAULT_MAX_HEADER_SIZE;
use serde_json::json;

use crate::{
    Answer, Case, Http, Input, PING, Phase, empty, get_head, http, pad, post_head, result,
};

pub(crate) fn cases() -> Vec<Case> {
    use Phase::Ready;
    vec![
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
