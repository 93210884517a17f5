//! Forward compatibility and strictness of the generated types, on real
//! message shapes: properties a type does not name survive decode → encode
//! (the schema admits them), a whole-number float in an integer field reads
//! as the integer (JSON Schema counts it as one), and what is not an
//! integer still fails.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

use std::fmt::Debug;

use mcp_core::schema as n;
use mcp_core::schema::{v2025_11_25 as v25, v2026_07_28 as v26};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Decodes `input` as a `T` from text and from a `Value` and re-encodes it.
fn round_trip<T>(input: &Value) -> Result<Value, String>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let from_text: T =
        serde_json::from_str(&input.to_string()).map_err(|e| format!("from text: {e}"))?;
    let from_value: T =
        serde_json::from_value(input.clone()).map_err(|e| format!("from a Value: {e}"))?;
    assert_eq!(from_text, from_value, "text and Value decode differently");
    Ok(serde_json::to_value(&from_text).unwrap())
}

/// `(what, round trip through the type)`, for the same JSON.
type Reader = (&'static str, fn(&Value) -> Result<Value, String>);

/// Every reader must give `input` back unchanged.
fn assert_kept(input: &Value, readers: &[Reader]) {
    for (what, read) in readers {
        let back = read(input).unwrap_or_else(|e| panic!("{what}: rejected {input}: {e}"));
        assert_eq!(&back, input, "{what} changed the JSON");
    }
}

macro_rules! readers {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        [$((concat!(stringify!($module), "::", stringify!($ty)), round_trip::<$module::$ty> as fn(&Value) -> Result<Value, String>)),*]
    };
}

#[test]
fn vendor_keys_on_a_tool_survive() {
    let list = json!({
        "tools": [{
            "name": "search",
            "inputSchema": { "type": "object" },
            "x-vendor": { "rank": 3 },
            "annotations": { "readOnlyHint": true, "x-vendor-hint": "fast" },
            "icons": [{ "src": "https://example.com/i.png", "x-dpi": 2 }]
        }],
        "x-page-info": { "total": 1 }
    });
    assert_kept(&list, &readers![n::ListToolsResult, v25::ListToolsResult]);
    let mut v2026 = list.clone();
    v2026["resultType"] = json!("complete");
    v2026["ttlMs"] = json!(0);
    v2026["cacheScope"] = json!("public");
    assert_kept(&v2026, &readers![n::ListToolsResult, v26::ListToolsResult]);

    // The typed view: the vendor key sits in `extra`, the known ones do not.
    let result: n::ListToolsResult = serde_json::from_value(list).unwrap();
    let tool = &result.tools[0];
    assert_eq!(tool.extra.get("x-vendor"), Some(&json!({ "rank": 3 })));
    assert!(!tool.extra.contains_key("name"));
    assert_eq!(
        result.extra.get("x-page-info"),
        Some(&json!({ "total": 1 }))
    );
}

#[test]
fn unknown_result_keys_survive() {
    let result = json!({
        "content": [{ "type": "text", "text": "ok", "x-render": "markdown" }],
        "isError": false,
        "x-usage": { "tokens": 12 },
        "_meta": { "com.example/trace": "abc" }
    });
    assert_kept(&result, &readers![n::CallToolResult, v25::CallToolResult]);
    let via_union = n::ServerResult::from_value(n::ClientRequestMethod::CallTool, result.clone());
    assert_eq!(serde_json::to_value(via_union.unwrap()).unwrap(), result);

    let mut v2026 = result.clone();
    v2026["resultType"] = json!("complete");
    assert_kept(&v2026, &readers![n::CallToolResult, v26::CallToolResult]);
    let via_union =
        v26::ServerResult::from_value(v26::ClientRequestMethod::CallTool, v2026.clone()).unwrap();
    assert_eq!(serde_json::to_value(via_union).unwrap(), v2026);
}

#[test]
fn newer_capabilities_survive_an_older_type() {
    // `extensions` is 2026-07-28's; the 2025-11-25 types keep it unread.
    let capabilities = json!({
        "roots": { "listChanged": true, "x-batch": true },
        "extensions": { "io.modelcontextprotocol/ui": { "mimeTypes": ["text/html;profile=mcp-app"] } },
        "x-vendor": {}
    });
    assert_kept(
        &capabilities,
        &readers![
            n::ClientCapabilities,
            v25::ClientCapabilities,
            v26::ClientCapabilities
        ],
    );
    let old: v25::ClientCapabilities = serde_json::from_value(capabilities.clone()).unwrap();
    assert!(old.extra.contains_key("extensions"));
    let neutral: n::ClientCapabilities = serde_json::from_value(capabilities).unwrap();
    assert!(neutral.extensions.is_some(), "the neutral type reads it");

    let server = json!({ "tools": {}, "extensions": { "io.modelcontextprotocol/tasks": {} } });
    assert_kept(
        &server,
        &readers![
            n::ServerCapabilities,
            v25::ServerCapabilities,
            v26::ServerCapabilities
        ],
    );
}

#[test]
fn unknown_params_keys_survive_dispatch() {
    let request = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {
            "name": "a",
            "arguments": {},
            "x-vendor": 1,
            "_meta": { "progressToken": 7, "com.example/trace": "t" }
        },
        "x-envelope": true
    });
    assert_kept(
        &request,
        &readers![
            n::CallToolRequest,
            n::ClientRequest,
            n::JsonrpcMessage,
            v25::CallToolRequest,
            v25::ClientRequest
        ],
    );
    // The engine's path: the envelope is split off, params decoded by method.
    let params = serde_json::value::to_raw_value(&request["params"]).unwrap();
    let decoded = n::ClientRequest::from_parts(
        n::ClientRequestMethod::CallTool,
        n::RequestId::Integer(1),
        Some(&params),
    )
    .unwrap();
    let n::ClientRequest::CallTool(call) = decoded else {
        panic!("decoded as {decoded:?}");
    };
    assert_eq!(call.params.extra.get("x-vendor"), Some(&json!(1)));
    assert_eq!(
        serde_json::to_value(&call.params).unwrap(),
        request["params"]
    );
}

/// A 2026-07-28 request's reserved `_meta` keys stay in the params, except
/// in a decode whose caller reads them itself (the stateless server): that
/// decode takes them aside, as written, and only that decode.
#[test]
fn request_meta_keys_are_taken_aside_only_when_asked() {
    let params = json!({
        "name": "a",
        "arguments": {},
        "_meta": {
            "progressToken": 7,
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
            "io.modelcontextprotocol/clientInfo": { "name": "c", "version": "1" },
            "io.modelcontextprotocol/logLevel": "info",
            "io.modelcontextprotocol/related-task": { "taskId": "t" },
            "com.example/trace": "t"
        }
    });
    let raw = serde_json::value::to_raw_value(&params).unwrap();
    let decode_text = |raw: &serde_json::value::RawValue| {
        n::ClientRequest::from_parts(
            n::ClientRequestMethod::CallTool,
            n::RequestId::Integer(1),
            Some(raw),
        )
        .map(|request| {
            let n::ClientRequest::CallTool(call) = request else {
                panic!("decoded as {request:?}");
            };
            call.params.meta.unwrap()
        })
    };
    let decode = || decode_text(&raw).unwrap();
    let kept = decode();
    assert_eq!(
        serde_json::to_value(&kept).unwrap(),
        params["_meta"],
        "a plain decode keeps every key"
    );
    let (meta, taken) = n::with_request_meta_taken(decode);
    assert_eq!(meta.progress_token, Some(n::ProgressToken::Integer(7)));
    let mut left: Vec<&str> = meta.extra.keys().map(String::as_str).collect();
    left.sort_unstable();
    assert_eq!(
        left,
        ["com.example/trace", "io.modelcontextprotocol/related-task"],
        "only the keys the caller reads are taken aside"
    );
    let text =
        |v: &Option<Box<serde_json::value::RawValue>>| v.as_ref().map(|v| v.get().to_owned());
    assert_eq!(
        text(&taken.protocol_version).as_deref(),
        Some(r#""2026-07-28""#)
    );
    assert_eq!(
        text(&taken.client_capabilities).as_deref(),
        Some(r#"{"elicitation":{}}"#)
    );
    assert_eq!(
        text(&taken.client_info).as_deref(),
        Some(r#"{"name":"c","version":"1"}"#)
    );
    assert_eq!(text(&taken.log_level).as_deref(), Some(r#""info""#));
    // Nested: each call has its own; after: nothing is taken.
    let ((inner, inner_taken), outer_taken) =
        n::with_request_meta_taken(|| n::with_request_meta_taken(decode));
    assert_eq!(inner.extra.len(), 2);
    assert!(inner_taken.protocol_version.is_some());
    assert!(outer_taken.protocol_version.is_none());
    assert_eq!(decode(), kept);
    // A key written twice is an error of the decode that takes it, as a
    // duplicate field is.
    let twice = serde_json::value::RawValue::from_string(
        r#"{"name":"a","_meta":{"io.modelcontextprotocol/logLevel":"info","io.modelcontextprotocol/logLevel":"debug"}}"#
            .to_owned(),
    )
    .unwrap();
    let (decoded, _) = n::with_request_meta_taken(|| decode_text(&twice));
    let error = decoded.unwrap_err().to_string();
    assert!(error.contains("duplicate field"), "{error}");
    assert!(decode_text(&twice).is_ok(), "kept, the last one wins");
}

/// A member that holds the client's capabilities inline (`initialize`,
/// `subscriptions/listen`) is boxed, so that every request (a `tools/call`
/// moved from frame to frame) is not as large as that member.
#[test]
fn a_client_request_is_not_as_large_as_its_largest_member() {
    let capabilities = std::mem::size_of::<n::ClientCapabilities>();
    let request = std::mem::size_of::<n::ClientRequest>();
    assert!(
        request < capabilities,
        "ClientRequest is {request} bytes, ClientCapabilities {capabilities}"
    );
    assert!(request >= std::mem::size_of::<n::CallToolRequest>());
}

#[test]
fn a_field_wins_over_an_extra_key_of_its_name() {
    let mut tool = n::Tool::new(
        n::ObjectSchema::try_from(json!({ "type": "object" })).unwrap(),
        "real",
    );
    tool.extra.insert("name".into(), json!("shadow"));
    tool.extra.insert("x-vendor".into(), json!(1));
    let text = serde_json::to_string(&tool).unwrap();
    assert_eq!(text.matches("\"name\"").count(), 1, "{text}");
    let back: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(back["name"], "real");
    assert_eq!(back["x-vendor"], 1);
}

#[test]
fn duplicate_keys_are_refused() {
    let text = r#"{"name":"a","name":"b","inputSchema":{"type":"object"}}"#;
    let error = serde_json::from_str::<n::Tool>(text).unwrap_err();
    assert!(
        error.to_string().contains("duplicate field `name`"),
        "{error}"
    );
}

#[test]
fn whole_number_floats_read_as_integers() {
    // (reader, input with floats, what it must re-encode to)
    let cases: Vec<(Reader, Value, Value)> = vec![
        (
            readers![v26::ListToolsResult][0],
            json!({ "resultType": "complete", "tools": [], "ttlMs": 60000.0, "cacheScope": "public" }),
            json!({ "resultType": "complete", "tools": [], "ttlMs": 60000, "cacheScope": "public" }),
        ),
        (
            readers![n::ListToolsResult][0],
            json!({ "tools": [], "ttlMs": 60000.0 }),
            json!({ "tools": [], "ttlMs": 60000 }),
        ),
        (
            readers![n::CreateMessageRequestParams][0],
            json!({ "messages": [], "maxTokens": 100.0 }),
            json!({ "messages": [], "maxTokens": 100 }),
        ),
        (
            readers![v25::TaskMetadata][0],
            json!({ "ttl": 30000.0 }),
            json!({ "ttl": 30000 }),
        ),
        (
            readers![n::Task][0],
            json!({ "taskId": "t", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
                    "ttl": -0.0, "pollInterval": 5e3 }),
            json!({ "taskId": "t", "status": "working", "createdAt": "c", "lastUpdatedAt": "u",
                    "ttl": 0, "pollInterval": 5000 }),
        ),
        (
            readers![v26::HeaderMismatchError][0],
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32020.0, "message": "m" } }),
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32020, "message": "m" } }),
        ),
        (
            readers![n::ErrorObject][0],
            json!({ "code": -32602.0, "message": "m" }),
            json!({ "code": -32602, "message": "m" }),
        ),
    ];
    for ((what, read), input, expected) in cases {
        let back = read(&input).unwrap_or_else(|e| panic!("{what}: rejected {input}: {e}"));
        assert_eq!(back, expected, "{what}");
        // Integers, not `60000.0` (`Value` equality tells them apart too).
        assert!(!has_float(&back), "{what}: {back}");
    }
}

fn has_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64(),
        Value::Array(items) => items.iter().any(has_float),
        Value::Object(map) => map.values().any(has_float),
        _ => false,
    }
}

#[test]
fn what_is_not_an_integer_is_refused() {
    let cases: Vec<(Reader, Value, &str)> = vec![
        (
            readers![n::CreateMessageRequestParams][0],
            json!({ "messages": [], "maxTokens": 1.5 }),
            "floating point `1.5`, expected an integer",
        ),
        (
            readers![v26::ListToolsResult][0],
            json!({ "resultType": "complete", "tools": [], "ttlMs": -1.0, "cacheScope": "public" }),
            "invalid value",
        ),
        (
            readers![v26::ListToolsResult][0],
            json!({ "resultType": "complete", "tools": [], "ttlMs": -1, "cacheScope": "public" }),
            "invalid value",
        ),
        (
            readers![n::ErrorObject][0],
            json!({ "code": 1e300, "message": "m" }),
            "invalid value",
        ),
        (
            readers![n::ErrorObject][0],
            json!({ "code": "-32602", "message": "m" }),
            "expected an integer",
        ),
        (
            readers![v26::HeaderMismatchError][0],
            json!({ "jsonrpc": "2.0", "id": 1, "error": { "code": -32021.0, "message": "m" } }),
            "invalid value",
        ),
    ];
    for ((what, read), input, needle) in cases {
        let error = read(&input).expect_err(&format!("{what} accepted {input}"));
        assert!(error.contains(needle), "{what}: {error}");
    }
}

/// A request's params decoded where they stand in the message (one pass,
/// as the Streamable HTTP server reads a request) read exactly as the same
/// params handed over raw: the same request or the same error, for every
/// client method, and the bytes counted are the params' own.
#[test]
fn params_decoded_where_they_stand_read_as_raw_params_do() {
    let samples = [
        "{}",
        r#"{"name":"echo","arguments":{"text":"hi","n":[1,2.5,null]},"_meta":{"progressToken":"p"}}"#,
        r#" { "uri" : "file:///a\"b" , "x-vendor" : { "deep" : [ { } ] } } "#,
        r#"{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
        r#"{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"v"}}"#,
        r#"{"taskId":"t","cursor":"c","level":"info"}"#,
        r#"{"name":5}"#,
        r#"{"name":"a","name":"b"}"#,
        r#"{"name":"a","arguments":{"x":}}"#,
    ];
    for method in n::ClientRequestMethod::ALL.iter().copied() {
        for params in samples {
            let raw: Result<Box<serde_json::value::RawValue>, _> = serde_json::from_str(params);
            let id = n::RequestId::Integer(3);
            let text = format!("{params},\"id\":3}}");
            let at_once = n::ClientRequest::from_params_text(method, id.clone(), &text);
            let Ok(raw) = raw else {
                assert!(at_once.is_err(), "{method} {params}: not JSON, yet read");
                continue;
            };
            let from_raw = n::ClientRequest::from_parts(method, id, Some(&raw));
            match (from_raw, at_once) {
                (Ok(expected), Ok((request, used))) => {
                    assert_eq!(*request, expected, "{method} {params}");
                    assert_eq!(&text[..used], params.trim_end(), "{method} {params}");
                    // The token read from the decoded params, where they
                    // have a typed `_meta`, is the one sent.
                    let sent = params
                        .contains("progressToken")
                        .then(|| n::ProgressToken::String("p".into()));
                    if let Some(token) = request.progress_token() {
                        assert_eq!(token.cloned(), sent, "{method} {params}");
                    }
                }
                // The same error; where it is told differs by the blanks
                // a raw value leaves out.
                (Err(expected), Err(e)) => {
                    let what = |e: serde_json::Error| {
                        let text = e.to_string();
                        text.split(" at line ").next().map(str::to_owned)
                    };
                    assert_eq!(what(e), what(expected), "{method} {params}");
                }
                (raw, at_once) => panic!("{method} {params}: {raw:?} but {at_once:?}"),
            }
        }
    }
    let (call, _) = n::ClientRequest::from_params_text(
        n::ClientRequestMethod::CallTool,
        n::RequestId::Integer(1),
        samples[1],
    )
    .unwrap();
    assert_eq!(
        call.progress_token(),
        Some(Some(&n::ProgressToken::String("p".into())))
    );
}
