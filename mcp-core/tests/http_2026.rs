//! Streamable HTTP for 2026-07-28 requests on the same endpoint as
//! 2025-11-25 sessions: the header rules (SEP-2243) with their statuses, and
//! the endpoint still serving sessions afterwards.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::net::SocketAddr;

use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use reqwest::StatusCode;
use serde_json::{Value, json};

async fn start() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(common::test_server(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    addr
}

fn meta(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A POST with the given headers (name, value) and body; the status and the
/// JSON body (from a JSON answer, or the last `data:` line of an SSE one).
async fn post(addr: SocketAddr, headers: &[(&str, &str)], body: Value) -> (StatusCode, Value) {
    post_text(addr, headers, &body.to_string()).await
}

/// A 2025-11-25 `initialize` POST: the response, with its session id.
async fn initialize(addr: SocketAddr) -> reqwest::Response {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "old", "version": "1"}}});
    reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(init.to_string())
        .send()
        .await
        .unwrap()
}

fn call(id: i64, name: &str, version: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": {"a": 1, "b": 2}, "_meta": meta(version)}})
}

const V: (&str, &str) = ("mcp-protocol-version", "2026-07-28");

#[tokio::test]
async fn headers_must_agree_with_the_body() {
    let addr = start().await;
    let method = ("mcp-method", "tools/call");
    let name = ("mcp-name", "add_numbers");

    let (status, body) = post(
        addr,
        &[V, method, name],
        call(1, "add_numbers", "2026-07-28"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["result"]["resultType"], "complete", "{body}");

    // Each rule broken in turn: 400 and -32020, the id echoed.
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[V, ("mcp-method", "tools/list"), name],
            "Mcp-Method names another method",
        ),
        (&[V, name], "no Mcp-Method"),
        (
            &[V, method, ("mcp-name", "other")],
            "Mcp-Name names another tool",
        ),
        (&[V, method], "no Mcp-Name"),
        (
            &[V, ("mcp-method", "TOOLS/CALL"), name],
            "values are case-sensitive",
        ),
    ];
    for (id, (headers, why)) in (2..).zip(cases) {
        let (status, body) = post(addr, headers, call(id, "add_numbers", "2026-07-28")).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{why}: {body}");
        assert_eq!(body["error"]["code"], -32020, "{why}: {body}");
        assert_eq!(body["id"], id, "{why}: {body}");
    }
    // Header names are case-insensitive.
    let (status, body) = post(
        addr,
        &[V, ("MCP-METHOD", "tools/call"), ("Mcp-Name", "add_numbers")],
        call(9, "add_numbers", "2026-07-28"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn versions_metadata_and_methods_get_their_statuses() {
    let addr = start().await;
    let method = ("mcp-method", "tools/call");
    let name = ("mcp-name", "add_numbers");
    // The header and `_meta` disagree: -32020, checked before support.
    let (status, body) = post(addr, &[V, method, name], call(1, "add_numbers", "v999")).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32020))
    );
    // Both name an unknown revision: -32022 with what is supported.
    let (status, body) = post(
        addr,
        &[("mcp-protocol-version", "v999"), method, name],
        call(2, "add_numbers", "v999"),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32022))
    );
    assert_eq!(body["error"]["data"]["requested"], "v999");
    // No metadata: -32602.
    let bare = json!({"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}});
    let (status, body) = post(addr, &[V, ("mcp-method", "server/discover")], bare).await;
    assert_eq!(
        (status, body["error"]["code"].clone()),
        (StatusCode::BAD_REQUEST, json!(-32602))
    );
    // Methods 2026-07-28 does not have: 404 and -32601.
    for (id, m) in [(4, "ping"), (5, "initialize"), (6, "no/such/method")] {
        let body = json!({"jsonrpc": "2.0", "id": id, "method": m, "params": {"_meta": meta("2026-07-28")}});
        let (status, reply) = post(addr, &[V, ("mcp-method", m)], body).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{m}: {reply}");
        assert_eq!(reply["error"]["code"], -32601, "{m}: {reply}");
    }
    // A notification is accepted and needs no headers beyond the revision.
    let note =
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}});
    let (status, _) = post(addr, &[V], note).await;
    assert_eq!(status, StatusCode::ACCEPTED);
    // No GET stream and nothing to delete.
    let client = reqwest::Client::new();
    let get = client
        .get(format!("http://{addr}/mcp"))
        .header("accept", "text/event-stream")
        .header(V.0, V.1)
        .send()
        .await
        .unwrap();
    let delete = client
        .delete(format!("http://{addr}/mcp"))
        .header(V.0, V.1)
        .send()
        .await
        .unwrap();
    for response in [get, delete] {
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        // RFC 9110: a 405 lists what the resource allows.
        assert_eq!(response.headers()["allow"], "POST");
        let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("stand alone"), "{message}");
    }
}

#[tokio::test]
async fn rounds_and_sessions_share_the_endpoint() {
    let addr = start().await;
    let headers = [
        V,
        ("mcp-method", "tools/call"),
        ("mcp-name", "test_sampling"),
    ];
    let mut params =
        json!({"name": "test_sampling", "arguments": {"prompt": "p"}, "_meta": meta("2026-07-28")});
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = json!({"sampling": {}});
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params.clone()});
    let (status, first) = post(addr, &headers, body).await;
    assert_eq!(status, StatusCode::OK, "{first}");
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    // A tampered state is refused, in-band.
    params["requestState"] = json!(format!(
        "{}x",
        first["result"]["requestState"].as_str().unwrap()
    ));
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params});
    let (_, reply) = post(addr, &headers, body).await;
    assert_eq!(reply["error"]["code"], -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["reason"], "invalid_request_state");

    // A 2025-11-25 session on the same endpoint.
    let response = initialize(addr).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response.headers().contains_key("mcp-session-id"));
}

/// A server with one tool that marks two arguments `x-mcp-header`.
async fn start_with_header_tool() -> SocketAddr {
    use mcp_core::schema::CallToolResult;
    use mcp_core::server::{Server, ToolDef};
    let schema = json!({"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "note": {"type": "string"}
    }});
    let tool = ToolDef::raw("where", schema, |args, _| async move {
        CallToolResult::text(Value::Object(args).to_string())
    })
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = Server::builder("headers", "1").tool(tool).build();
    tokio::spawn(StreamableHttpServer::new(server, HttpServerConfig::default()).serve(listener));
    addr
}

#[tokio::test]
async fn mcp_param_headers_must_repeat_the_arguments() {
    let addr = start_with_header_tool().await;
    let call = |arguments: Value| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "where", "arguments": arguments,
                          "_meta": meta("2026-07-28")}})
    };
    let base = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "where"),
    ];
    let with = |extra: &[(&'static str, &'static str)]| {
        let mut headers = base.to_vec();
        headers.extend_from_slice(extra);
        headers
    };
    // Accepted: plain, Base64, integers compared as numbers, absent or null
    // arguments need no header, the name in Base64 too.
    for (headers, arguments) in [
        (
            with(&[("mcp-param-region", "eu"), ("mcp-param-count", "3")]),
            json!({"region": "eu", "count": 3}),
        ),
        (
            with(&[
                ("Mcp-Param-Region", "=?base64?ZXU=?="),
                ("mcp-param-count", "3.0"),
            ]),
            json!({"region": "eu", "count": 3}),
        ),
        (with(&[]), json!({"note": "n"})),
        (with(&[]), json!({"region": null})),
    ] {
        let (status, body) = post(addr, &headers, call(arguments.clone())).await;
        assert_eq!(status, StatusCode::OK, "{arguments} {body}");
        assert!(body["result"].is_object(), "{arguments} {body}");
    }
    let mut encoded_name = base.to_vec();
    encoded_name[2] = ("mcp-name", "=?base64?d2hlcmU=?=");
    let (status, body) = post(addr, &encoded_name, call(json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // Refused with -32020: missing, different, bad Base64 (padding,
    // characters), a literal that only looks encoded.
    for (headers, arguments) in [
        (with(&[]), json!({"region": "eu"})),
        (with(&[("mcp-param-region", "us")]), json!({"region": "eu"})),
        (with(&[("mcp-param-count", "4")]), json!({"count": 3})),
        (
            with(&[("mcp-param-region", "=?base64?ZXU?=")]),
            json!({"region": "eu"}),
        ),
        (
            with(&[("mcp-param-region", "=?base64?Z!!U=?=")]),
            json!({"region": "eu"}),
        ),
        (
            with(&[("mcp-param-region", "=?base64?ZXU=")]),
            json!({"region": "eu"}),
        ),
    ] {
        let (status, body) = post(addr, &headers, call(arguments.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{headers:?} {body}");
        assert_eq!(body["error"]["code"], -32020, "{headers:?} {body}");
    }
}

#[tokio::test]
async fn our_client_mirrors_what_the_server_checks() {
    use mcp_core::client::Client;
    let addr = start_with_header_tool().await;
    let client = Client::builder("t", "1")
        .connect(mcp_core::transport::http::StreamableHttpClient::new(
            format!("http://{addr}/mcp"),
        ))
        .await
        .unwrap();
    assert_eq!(client.protocol_version().as_str(), "2026-07-28");
    client.list_tools(None).await.unwrap();
    let args = json!({"region": "Zürich ", "count": 7})
        .as_object()
        .cloned()
        .unwrap();
    let result = client.call_tool("where", Some(args)).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
}

/// [`post`] of `body` as written.
async fn post_text(addr: SocketAddr, headers: &[(&str, &str)], body: &str) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_owned());
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    (
        status,
        serde_json::from_str(common::answer_json(&text)).unwrap_or(Value::Null),
    )
}

/// The server reads a plainly written request in one pass and anything else
/// the general way: whichever way a request is written (members in any
/// order, ids of either kind, escapes, blanks), in a session or standing
/// alone, it gets the same answer; and params that do not decode get the
/// same error either way.
#[tokio::test]
async fn a_request_is_read_alike_however_it_is_written() {
    let addr = start().await;
    let params = r#"{"name":"add_numbers","arguments":{"a":1,"b":2},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
    let bad = r#"{"name":"add_numbers","arguments":7,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#;
    let spellings = |params: &str| {
        [
            format!(r#"{{"jsonrpc":"2.0","id":"k","method":"tools/call","params":{params}}}"#),
            format!(r#"{{"method":"tools/call","params":{params},"jsonrpc":"2.0","id":"k"}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":"k","params":{params},"method":"tools/call"}}"#),
            format!(r#"{{"json\u0072pc":"2.0","id":"k","method":"tools/call","params":{params}}}"#),
            format!(
                "\n{{ \"jsonrpc\" : \"2.0\",\t\"id\" : \"k\" ,\r\n\"method\":\"tools/call\", \"params\" : {params} }}\n"
            ),
        ]
    };
    let stateless = [V, ("mcp-method", "tools/call"), ("mcp-name", "add_numbers")];
    let mut answers = Vec::new();
    for body in spellings(params) {
        let (status, answer) = post_text(addr, &stateless, &body).await;
        assert_eq!(status, StatusCode::OK, "{body}: {answer}");
        answers.push(answer);
    }
    assert_eq!(answers[0]["id"], "k", "{}", answers[0]);
    assert_eq!(
        answers[0]["result"]["resultType"], "complete",
        "{}",
        answers[0]
    );
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:#?}");
    let errors: Vec<Value> = futures::future::join_all(
        spellings(bad)
            .iter()
            .map(|body| post_text(addr, &stateless, body)),
    )
    .await
    .into_iter()
    .map(|(_, answer)| answer)
    .collect();
    assert_eq!(errors[0]["error"]["code"], -32602, "{}", errors[0]);
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:#?}");

    // The same in a 2025-11-25 session.
    let response = initialize(addr).await;
    let session = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let in_session = [
        ("mcp-session-id", session.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post_text(addr, &in_session, initialized).await;
    let params = r#"{"name":"add_numbers","arguments":{"a":1,"b":2}}"#;
    let mut answers = Vec::new();
    for body in spellings(params) {
        let (status, answer) = post_text(addr, &in_session, &body).await;
        assert_eq!(status, StatusCode::OK, "{body}: {answer}");
        answers.push(answer);
    }
    assert_eq!(answers[0]["id"], "k", "{}", answers[0]);
    assert!(answers[0]["result"]["content"].is_array(), "{}", answers[0]);
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:#?}");
    let mut errors = Vec::new();
    for body in spellings(r#"{"name":"add_numbers","arguments":7}"#) {
        errors.push(post_text(addr, &in_session, &body).await.1);
    }
    assert_eq!(errors[0]["error"]["code"], -32602, "{}", errors[0]);
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:#?}");
}
