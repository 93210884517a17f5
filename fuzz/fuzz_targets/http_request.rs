//! One HTTP request, headers and body from the input, through the
//! Streamable HTTP server's axum router in process (`oneshot`), next to a
//! live initialized session. Any status the transport defines is fine; a
//! panic, a 5xx, or a JSON answer that is not JSON is not.
//!
//! Input: a method byte, a flags byte (which standard headers to send, the
//! session's real id and either protocol revision among them), extra header
//! lines up to a blank line (`\n\n`), then the body. The server has a tool
//! that asks the client (input-required rounds and their sealed
//! `requestState` under 2026-07-28) and one with `x-mcp-header` arguments
//! (`Mcp-Param-*` headers), so requests that stand alone reach every check
//! of that revision.

#![no_main]

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use axum::body::Body;
use http::{HeaderName, HeaderValue, Method, Request};
use http_body_util::BodyExt;
use libfuzzer_sys::fuzz_target;
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::ContentBlock;
use mcp_core::schema::{CallToolResult, GetPromptResult, PromptMessage, ReadResourceResult, Role};
use mcp_core::server::{PromptDef, ResourceTemplateDef, Server, ToolDef};
use serde_json::json;
use tower::ServiceExt;

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"1"}}}"#;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
    })
}

struct Fixture {
    server: StreamableHttpServer,
    router: axum::Router,
    session: Mutex<String>,
}

fn server() -> Server {
    let add = ToolDef::raw(
        "add",
        json!({"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}),
        |args, _cx| async move {
            let sum = args["a"].as_f64().unwrap_or(0.0) + args["b"].as_f64().unwrap_or(0.0);
            CallToolResult::text(sum.to_string())
        },
    )
    .expect("a valid tool");
    let template = ResourceTemplateDef::new("test://items/{id}{?q}", "item", |uri, vars, _cx| async move {
        Ok(ReadResourceResult::text(uri, None, format!("{vars:?}")))
    })
    .expect("a valid template");
    let headed = ToolDef::raw(
        "where",
        json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "count": {"type": "integer", "x-mcp-header": "Count"},
            "note": {"type": "string"}
        }}),
        |args, _cx| async move { CallToolResult::text(serde_json::Value::Object(args).to_string()) },
    )
    .expect("a valid tool");
    Server::builder("fuzz", "1")
        .tool(add)
        .tool(mcp_test_support::asking_tool())
        .tool(headed)
        .resource_template(template)
        .prompt(
            PromptDef::new("p", |_args, _cx| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::new(
                    ContentBlock::text("x"),
                    Role::User,
                )]))
            })
            .argument("a", "an argument", false),
        )
        .build()
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        runtime().block_on(async {
            let config = HttpServerConfig::default()
                .max_sessions(32)
                .max_body_size(64 * 1024)
                .idle_timeout(Duration::from_secs(2));
            let server = StreamableHttpServer::new(server(), config);
            let router = server.router();
            let session = initialize(&router).await;
            Fixture {
                server,
                router,
                session: Mutex::new(session),
            }
        })
    })
}

async fn initialize(router: &axum::Router) -> String {
    let request = Request::post("/")
        .header("host", "localhost")
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(Body::from(INITIALIZE))
        .expect("a request");
    let response = router.clone().oneshot(request).await.expect("infallible");
    response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string()
}

fuzz_target!(|data: &[u8]| {
    let [method, flags, rest @ ..] = data else {
        return;
    };
    let fixture = fixture();
    runtime().block_on(run(fixture, *method, *flags, rest));
});

async fn run(fixture: &Fixture, method: u8, flags: u8, rest: &[u8]) {
    // The session may have been deleted or reaped: open another.
    if fixture.server.session_count() == 0 {
        let session = initialize(&fixture.router).await;
        *fixture.session.lock().unwrap_or_else(|e| e.into_inner()) = session;
    }
    let session = fixture
        .session
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let method = match method % 8 {
        0..=4 => Method::POST,
        5 => Method::GET,
        6 => Method::DELETE,
        _ => Method::PUT,
    };
    let (extra, body) = match rest.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&rest[..i], &rest[i + 2..]),
        None => (&[][..], rest),
    };
    let standard: [(u8, &str, &str); 7] = [
        (0x01, "mcp-session-id", &session),
        (0x02, "mcp-protocol-version", "2025-11-25"),
        (0x04, "accept", "application/json, text/event-stream"),
        (0x08, "accept", "text/event-stream"),
        (0x10, "content-type", "application/json"),
        (0x20, "host", "localhost"),
        (0x40, "mcp-protocol-version", "2026-07-28"),
    ];
    let mut headers = Vec::new();
    for (bit, name, value) in standard {
        if flags & bit != 0
            && let Ok(value) = HeaderValue::from_str(value)
        {
            headers.push((HeaderName::from_static(name), value));
        }
    }
    for line in extra.split(|&b| b == b'\n') {
        let Some(colon) = line.iter().position(|&b| b == b':') else {
            continue;
        };
        let (name, value) = (&line[..colon], line[colon + 1..].trim_ascii());
        if let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(name), HeaderValue::from_bytes(value))
        {
            headers.push((name, value));
        }
    }
    let Some(answer) = send(fixture, &method, &headers, body.to_vec()).await else {
        return;
    };
    // Flag 0x80: an input-required answer is retried with the state the
    // server sealed (a real one, which no seed can hold) put into the body,
    // whose fuzzed `inputResponses` then reach the resumed handler.
    if flags & 0x80 == 0 {
        return;
    }
    let Some(state) = answer
        .as_ref()
        .and_then(|a| a.pointer("/result/requestState"))
        .and_then(|s| s.as_str())
    else {
        return;
    };
    let Ok(mut retry) = serde_json::from_slice::<serde_json::Value>(body) else {
        return;
    };
    if let Some(params) = retry.get_mut("params").and_then(|p| p.as_object_mut()) {
        params.insert("requestState".into(), state.into());
    }
    let Ok(retry) = serde_json::to_vec(&retry) else {
        return;
    };
    send(fixture, &method, &headers, retry).await;
}

/// Sends one request and checks its answer: `None` if it was not answered
/// in time, else the JSON-RPC message of a JSON answer, if any.
async fn send(
    fixture: &Fixture,
    method: &Method,
    headers: &[(HeaderName, HeaderValue)],
    body: Vec<u8>,
) -> Option<Option<serde_json::Value>> {
    let mut request = Request::builder().method(method.clone()).uri("/");
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let request = request.body(Body::from(body)).ok()?;
    let answer = tokio::time::timeout(
        Duration::from_millis(500),
        fixture.router.clone().oneshot(request),
    )
    .await;
    // A request whose answer is slow to come is not a bug in itself.
    let Ok(Ok(response)) = answer else {
        return None;
    };
    let status = response.status().as_u16();
    assert!(
        matches!(
            status,
            200 | 202 | 400 | 403 | 404 | 405 | 406 | 409 | 413 | 415 | 431 | 503
        ),
        "unexpected status {status}"
    );
    let json = response
        .headers()
        .get("content-type")
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    // Event streams may stay open (GET): read what comes at once.
    let collected =
        tokio::time::timeout(Duration::from_millis(50), response.into_body().collect()).await;
    let Ok(Ok(bytes)) = collected else {
        return Some(None);
    };
    if !json {
        return Some(None);
    }
    let text = bytes.to_bytes();
    let parsed = serde_json::from_slice::<serde_json::Value>(&text);
    assert!(parsed.is_ok(), "a JSON answer that is not JSON: {text:?}");
    Some(parsed.ok())
}
