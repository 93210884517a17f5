//! Our client ↔ our server over Streamable HTTP on 127.0.0.1, and the
//! server's HTTP rules checked with raw requests.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::*;
use mcp_core::server::{Json, PromptDef, ResourceDef, Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn server() -> Server {
    Server::builder("http-test", "1.0.0")
        .tool(
            ToolDef::new("add", "Adds", |a: AddArgs, _cx| async move {
                Ok::<_, String>(Json(Sum { sum: a.a + a.b }))
            })
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "progress",
                "Reports progress then answers",
                |_: Map<String, Value>, cx| async move {
                    for i in 0..3 {
                        cx.progress(f64::from(i), Some(3.0), None).await.ok();
                    }
                    Ok::<_, String>("done")
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "reconnect",
                "Closes its stream, then answers",
                |_: Map<String, Value>, cx| async move {
                    cx.close_stream().await.ok();
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    Ok::<_, String>("after reconnect")
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "slow",
                "Answers after a minute, unless cancelled",
                |_: Map<String, Value>, _cx| async move {
                    tokio::time::sleep(Duration::from_secs(60)).await;
                    Ok::<_, String>("late")
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "sample",
                "Asks the client's model",
                |_: Map<String, Value>, cx| async move {
                    let params = CreateMessageRequestParams::new(
                        5,
                        vec![SamplingMessage::new(
                            SamplingMessageContent::TextContent(TextContent::new("hi")),
                            Role::User,
                        )],
                    );
                    let r = cx.create_message(params).await.map_err(|e| e.to_string())?;
                    Ok::<_, String>(r.model)
                },
            )
            .unwrap(),
        )
        .resource(ResourceDef::new("test://r", "r", |uri, _cx| async move {
            Ok(ReadResourceResult::text(uri, None, "resource text"))
        }))
        .prompt(PromptDef::new("p", |_args, _cx| async move {
            Ok(GetPromptResult::new(vec![PromptMessage::new(
                ContentBlock::text("prompt text"),
                Role::User,
            )]))
        }))
        .build()
}

async fn start(config: HttpServerConfig) -> (SocketAddr, StreamableHttpServer) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(server(), config);
    tokio::spawn(http.clone().serve(listener));
    (addr, http)
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

async fn client(addr: SocketAddr) -> Client {
    Client::builder("http-client", "1")
        .negotiation(Negotiation::Legacy)
        .on_sampling(false, |_p, _cx| async move {
            Ok(CreateMessageResult::new(
                CreateMessageResultContent::TextContent(TextContent::new("x")),
                "m-1",
                Role::Assistant,
            ))
        })
        .connect(StreamableHttpClient::new(url(addr)))
        .await
        .unwrap()
}

#[tokio::test]
async fn every_method_over_http() {
    let (addr, _http) = start(HttpServerConfig::default()).await;
    let client = client(addr).await;
    assert_eq!(client.server_info().name, "http-test");
    client.ping().await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 5);
    let r = client
        .call_tool("add", Some(obj(json!({"a": 20, "b": 22}))))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["sum"], json!(42));
    let bad = client
        .call_tool("add", Some(obj(json!({"a": 1}))))
        .await
        .unwrap();
    assert!(bad.is_error());
    assert_eq!(
        client.list_all_resources().await.unwrap()[0].uri,
        "test://r"
    );
    let read = client.read_resource("test://r").await.unwrap();
    assert!(
        matches!(&read.contents[0], ReadResourceResultContentsItem::TextResourceContents(t) if t.text == "resource text")
    );
    client.subscribe("test://r").await.unwrap();
    client.unsubscribe("test://r").await.unwrap();
    assert_eq!(client.list_all_prompts().await.unwrap()[0].name, "p");
    assert_eq!(
        client.get_prompt("p", None).await.unwrap().messages.len(),
        1
    );
    client.set_logging_level(LoggingLevel::Debug).await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn progress_and_server_requests_travel_on_the_request_stream() {
    let (addr, _http) = start(HttpServerConfig::default()).await;
    let client = client(addr).await;
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let params = CallToolRequestParams {
        arguments: None,
        ..CallToolRequestParams::new("progress")
    };
    let options = mcp_core::session::RequestOptions::default().on_progress(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let r = client.call_tool_with(params, options).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("done"));
    assert_eq!(seen.load(Ordering::SeqCst), 3);
    let sampled = client.call_tool("sample", None).await.unwrap();
    assert_eq!(sampled.content[0].as_text(), Some("m-1"));
}

#[tokio::test]
async fn a_stream_closed_by_the_server_is_resumed() {
    let config = HttpServerConfig::default().sse_retry(Duration::from_millis(50));
    let (addr, _http) = start(config).await;
    let client = client(addr).await;
    let r = client.call_tool("reconnect", None).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("after reconnect"));
}

#[tokio::test]
async fn concurrent_requests_share_a_session() {
    let (addr, http) = start(HttpServerConfig::default()).await;
    let client = Arc::new(client(addr).await);
    let calls: Vec<_> = (0..16)
        .map(|i| {
            let client = client.clone();
            tokio::spawn(async move {
                client
                    .call_tool("add", Some(obj(json!({"a": i, "b": 1}))))
                    .await
            })
        })
        .collect();
    for (i, call) in calls.into_iter().enumerate() {
        let r = call.await.unwrap().unwrap();
        assert_eq!(r.structured_content.unwrap()["sum"], json!(i + 1));
    }
    assert_eq!(http.session_count(), 1);
}

#[tokio::test]
async fn a_restarted_server_makes_the_client_reinitialize() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = tokio_util::sync::CancellationToken::new();
    let first = tokio::spawn(
        StreamableHttpServer::new(server(), HttpServerConfig::default())
            .serve_until(listener, stop.clone()),
    );
    let client = client(addr).await;
    client.ping().await.unwrap();
    // The server restarts and forgets every session.
    stop.cancel();
    let _ = first.await;
    let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
    let second = StreamableHttpServer::new(server(), HttpServerConfig::default());
    tokio::spawn(second.clone().serve(listener));
    let r = client
        .call_tool("add", Some(obj(json!({"a": 1, "b": 2}))))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["sum"], json!(3));
    assert_eq!(second.session_count(), 1);
}

#[tokio::test]
async fn idle_sessions_are_reaped() {
    let config = HttpServerConfig::default().idle_timeout(Duration::from_millis(200));
    let (addr, http) = start(config).await;
    Raw::new(addr).initialize().await;
    assert_eq!(http.session_count(), 1);
    for _ in 0..100 {
        if http.session_count() == 0 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the idle session was not reaped");
}

#[tokio::test]
async fn json_and_stateless_modes() {
    let (addr, _http) = start(HttpServerConfig::default().json_response(true)).await;
    let client = client(addr).await;
    let r = client
        .call_tool("add", Some(obj(json!({"a": 2, "b": 2}))))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["sum"], json!(4));

    let (addr, http) = start(HttpServerConfig::default().stateless(true)).await;
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(StreamableHttpClient::new(url(addr)))
        .await
        .unwrap();
    let r = client
        .call_tool("add", Some(obj(json!({"a": 3, "b": 3}))))
        .await
        .unwrap();
    assert_eq!(r.structured_content.unwrap()["sum"], json!(6));
    assert_eq!(http.session_count(), 0);
    // A raw request without initialize works in stateless mode.
    let raw = reqwest::Client::new()
        .post(url(addr))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 200);
    assert!(raw.text().await.unwrap().contains("\"add\""));
    // Nor GET streams nor sessions to delete: 405, allowing POST only.
    for method in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let response = reqwest::Client::new()
            .request(method.clone(), url(addr))
            .header("accept", "text/event-stream")
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 405, "{method}");
        assert_eq!(response.headers()["allow"], "POST", "{method}");
        let body: serde_json::Value =
            serde_json::from_str(&response.text().await.unwrap()).unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("stateless"), "{method}: {message}");
    }
}

/// Raw HTTP: the rules of the transport itself.
struct Raw {
    http: reqwest::Client,
    url: String,
}

impl Raw {
    fn new(addr: SocketAddr) -> Self {
        Self {
            http: reqwest::Client::new(),
            url: url(addr),
        }
    }

    fn post(&self, body: &str) -> reqwest::RequestBuilder {
        self.http
            .post(&self.url)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string())
    }

    async fn initialize(&self) -> String {
        let r = self
            .post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        let id = r.headers()["mcp-session-id"].to_str().unwrap().to_string();
        assert!(
            id.len() >= 32 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
            "{id}"
        );
        id
    }
}

#[tokio::test]
async fn http_rules() {
    let (addr, http) = start(HttpServerConfig::default().max_body_size(1024)).await;
    let raw = Raw::new(addr);
    let ping = r#"{"jsonrpc":"2.0","id":5,"method":"ping"}"#;

    // No session id on a non-initialize request → 400; unknown id → 404.
    assert_eq!(raw.post(ping).send().await.unwrap().status(), 400);
    let unknown = raw
        .post(ping)
        .header("mcp-session-id", "nope")
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);

    let session = raw.initialize().await;
    let notify = raw
        .post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(notify.status(), 202);
    let ok = raw
        .post(ping)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(ok.headers()["content-type"], "application/json");

    // Protocol version header: missing is fine, unknown is 400.
    let bad_version = raw
        .post(ping)
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "1999-01-01")
        .send()
        .await
        .unwrap();
    assert_eq!(bad_version.status(), 400);

    // DNS rebinding: a foreign Host or Origin is refused.
    let evil = raw
        .post(ping)
        .header("host", "evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(evil.status(), 403);
    let evil_origin = raw
        .post(ping)
        .header("mcp-session-id", &session)
        .header("origin", "http://evil.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(evil_origin.status(), 403);

    // Body limit, content type, accept, bad JSON.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":"{}"}}}}"#,
        "a".repeat(2000)
    );
    assert_eq!(
        raw.post(&big)
            .header("mcp-session-id", &session)
            .send()
            .await
            .unwrap()
            .status(),
        413
    );
    let text_plain = raw
        .http
        .post(&raw.url)
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "text/plain")
        .header("mcp-session-id", &session)
        .body(ping);
    assert_eq!(text_plain.send().await.unwrap().status(), 415);
    let no_accept = raw
        .http
        .post(&raw.url)
        .header("accept", "text/html")
        .header("content-type", "application/json")
        .header("mcp-session-id", &session)
        .body(ping);
    assert_eq!(no_accept.send().await.unwrap().status(), 406);
    let garbage = raw
        .post("{oops")
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(garbage.status(), 400);
    let body: Value = serde_json::from_str(&garbage.text().await.unwrap()).unwrap();
    assert_eq!(body["error"]["code"], json!(-32700));

    // GET needs Accept: text/event-stream.
    let get = raw
        .http
        .get(&raw.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(get.status(), 406);

    // DELETE ends the session; it is then unknown.
    let deleted = raw
        .http
        .delete(&raw.url)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 200);
    let gone = raw
        .post(ping)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(gone.status(), 404);
    assert_eq!(http.session_count(), 0);
}

#[tokio::test]
async fn a_cancelled_request_ends_its_post_and_the_session_goes_on() {
    let (addr, _http) = start(HttpServerConfig::default()).await;
    let raw = Raw::new(addr);
    let session = raw.initialize().await;
    let call =
        r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow","arguments":{}}}"#;
    let post = raw.post(call).header("mcp-session-id", &session).send();
    let pending = tokio::spawn(async move {
        let response = post.await.unwrap();
        (response.status(), response.text().await.unwrap())
    });
    // Let the request reach its handler, then cancel it.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let cancel = raw
        .post(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"test"}}"#)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(cancel.status(), 202);
    let (status, body) = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .expect("the POST of a cancelled request must end")
        .unwrap();
    assert_eq!(status, 200);
    assert!(
        !body.contains("late"),
        "a cancelled request is not answered: {body}"
    );
    // The id is free again and the session answers.
    let ping = raw
        .post(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#)
        .header("mcp-session-id", &session)
        .send()
        .await
        .unwrap();
    assert_eq!(ping.status(), 200);
    assert!(ping.text().await.unwrap().contains(r#""id":7"#));
}

/// Sets its flag when dropped: a handler's future holding one shows that it
/// was cancelled (dropped before it finished).
struct SetOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Starts a server with one tool, `wait`, that never answers; returns the
/// flag its future sets when dropped.
async fn start_waiting(
    config: HttpServerConfig,
) -> (SocketAddr, Arc<std::sync::atomic::AtomicBool>) {
    let dropped = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = dropped.clone();
    let wait = ToolDef::new(
        "wait",
        "Never answers",
        move |_: Map<String, Value>, _cx| {
            let guard = SetOnDrop(flag.clone());
            async move {
                std::future::pending::<()>().await;
                drop(guard);
                Ok::<_, String>("never")
            }
        },
    )
    .unwrap();
    let server = Server::builder("wait", "1").tool(wait).build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(StreamableHttpServer::new(server, config).serve(listener));
    (addr, dropped)
}

/// Sends a `tools/call` of `wait` on a raw connection, then closes it.
async fn call_then_disconnect(addr: SocketAddr, session: &str) {
    use tokio::io::AsyncWriteExt;
    let body =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nmcp-session-id: {session}\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(tcp);
}

#[tokio::test]
async fn a_client_that_disconnects_cancels_its_request_when_asked() {
    for cancel in [true, false] {
        let config = HttpServerConfig::default().cancel_on_disconnect(cancel);
        let (addr, dropped) = start_waiting(config).await;
        let raw = Raw::new(addr);
        let session = raw.initialize().await;
        call_then_disconnect(addr, &session).await;
        let mut waited = 0;
        let limit = if cancel { 3000 } else { 500 };
        while !dropped.load(Ordering::SeqCst) && waited < limit {
            tokio::time::sleep(Duration::from_millis(20)).await;
            waited += 20;
        }
        assert_eq!(
            dropped.load(Ordering::SeqCst),
            cancel,
            "cancel_on_disconnect({cancel}): was the handler cancelled?"
        );
        // The session is still usable, and the request id is free again
        // once the request ended.
        let ping = raw
            .post(r#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
            .header("mcp-session-id", &session)
            .send()
            .await
            .unwrap();
        assert_eq!(ping.status(), 200, "cancel_on_disconnect({cancel})");
    }
}

#[tokio::test]
async fn session_limit_gives_503() {
    let (addr, _http) = start(HttpServerConfig::default().max_sessions(1)).await;
    let raw = Raw::new(addr);
    raw.initialize().await;
    let second = raw
        .post(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(second.status(), 503);
}

#[tokio::test]
async fn an_unreachable_server_is_a_transport_error_not_a_peer_answer() {
    // Nothing listens on port 9 of loopback.
    let err = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(StreamableHttpClient::new("http://127.0.0.1:9/mcp"))
        .await
        .unwrap_err();
    assert!(matches!(err, mcp_core::Error::Transport(_)), "{err}");
}

#[tokio::test]
async fn the_server_stops_gracefully_with_sessions_open() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let shutdown = tokio_util::sync::CancellationToken::new();
    let served = tokio::spawn(
        StreamableHttpServer::new(server(), HttpServerConfig::default())
            .serve_until(listener, shutdown.clone()),
    );
    // A connected client holds its GET stream open.
    let client = client(addr).await;
    client.ping().await.unwrap();
    shutdown.cancel();
    let stopped = tokio::time::timeout(Duration::from_secs(5), served).await;
    assert!(
        matches!(stopped, Ok(Ok(Ok(())))),
        "the server did not stop: {stopped:?}"
    );
    assert!(client.ping().await.is_err());
}
