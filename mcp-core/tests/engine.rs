//! Client ↔ server over the in-memory pair: every method, cancellation,
//! progress, timeouts, concurrency, capability gating and bad input.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::schema::*;
use mcp_core::server::{Json, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use mcp_core::session::{RequestOptions, SessionConfig};
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
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

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    millis: u64,
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

struct Unfinished(Arc<AtomicUsize>, bool);

impl Unfinished {
    fn finish(mut self) {
        self.1 = false;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn test_server(cancelled: Arc<AtomicUsize>) -> Server {
    Server::builder("test-server", "0.1.0")
        .instructions("be nice")
        .page_size(2)
        .tool(
            ToolDef::new("add", "Adds two integers", |a: AddArgs, _cx| async move {
                Ok::<_, String>(Json(Sum { sum: a.a + a.b }))
            })
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "fail",
                "Always fails",
                |_: Map<String, Value>, _cx| async move { Err::<String, _>("it broke") },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "sleep",
                "Sleeps, reporting progress",
                move |a: SleepArgs, cx| {
                    // Counts runs that did not finish: cancellation drops the future.
                    let unfinished = Unfinished(cancelled.clone(), true);
                    async move {
                        for i in 0..4u32 {
                            cx.progress(f64::from(i), Some(4.0), None).await.ok();
                            tokio::time::sleep(Duration::from_millis(a.millis / 4)).await;
                        }
                        unfinished.finish();
                        Ok::<_, String>("slept".to_string())
                    }
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "log",
                "Logs at every level",
                |_: Map<String, Value>, cx| async move {
                    for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error] {
                        cx.log(level, Some("test"), json!(format!("{level}")))
                            .await
                            .ok();
                    }
                    Ok::<_, String>("logged")
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
                        10,
                        vec![SamplingMessage::new(
                            SamplingMessageContent::TextContent(TextContent::new("hi")),
                            Role::User,
                        )],
                    );
                    let result = cx.create_message(params).await.map_err(|e| e.to_string())?;
                    Ok::<_, String>(format!("model {} said something", result.model))
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "roots",
                "Lists the client's roots",
                |_: Map<String, Value>, cx| async move {
                    let roots = cx.list_roots().await.map_err(|e| e.to_string())?;
                    Ok::<_, String>(
                        roots
                            .roots
                            .into_iter()
                            .map(|r| r.uri)
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                },
            )
            .unwrap(),
        )
        .resource(
            ResourceDef::new("test://static", "static", |uri, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    Some("text/plain".into()),
                    "hello",
                ))
            })
            .mime_type("text/plain"),
        )
        .resource_template(
            ResourceTemplateDef::new("test://items/{id}", "item", |uri, vars, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    None,
                    format!("item {}", vars["id"]),
                ))
            })
            .unwrap(),
        )
        .prompt(
            PromptDef::new("greet", |args, _cx| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::new(
                    ContentBlock::text(format!("Hello {}", args["name"])),
                    Role::User,
                )]))
            })
            .description("Greets")
            .argument("name", "who", true),
        )
        .completion(|params, _cx| async move {
            let values = ["alpha", "beta", "alpine"]
                .into_iter()
                .filter(|v| v.starts_with(&params.argument.value))
                .map(String::from)
                .collect();
            Ok(CompleteResultCompletion::new(values))
        })
        .build()
}

async fn connect(server: &Server) -> (Client, mcp_core::server::ServerSession) {
    let (a, b) = memory_pair();
    let session = server.serve(b).unwrap();
    let client = Client::builder("test-client", "0.1.0")
        .negotiation(Negotiation::Legacy)
        .on_sampling(false, |_params, _cx| async move {
            Ok(CreateMessageResult::new(
                CreateMessageResultContent::TextContent(TextContent::new("hello")),
                "test-model",
                Role::Assistant,
            ))
        })
        .roots(vec![Root::new("file:///tmp")])
        .connect(a)
        .await
        .unwrap();
    (client, session)
}

#[tokio::test]
async fn handshake_and_capabilities() {
    let server = test_server(Arc::default());
    let (client, session) = connect(&server).await;
    assert_eq!(client.server_info().name, "test-server");
    assert_eq!(client.instructions(), Some("be nice"));
    assert_eq!(client.protocol_version(), mcp_core::ProtocolVersion::LATEST);
    let caps = client.server_capabilities();
    assert!(caps.tools.is_some() && caps.resources.is_some() && caps.prompts.is_some());
    assert!(caps.logging.is_some() && caps.completions.is_some());
    // Empty-object capabilities are sent as `{}`, not dropped.
    let json = serde_json::to_value(caps).unwrap();
    assert_eq!(json["logging"], json!({}));
    assert_eq!(session.client_info().unwrap().name, "test-client");
    client.ping().await.unwrap();
}

#[tokio::test]
async fn tools_list_paginates_and_calls_validate() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let first = client.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 2);
    assert!(first.next_cursor.is_some());
    let all = client.list_all_tools().await.unwrap();
    let names: Vec<_> = all.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "fail", "sleep", "log", "sample", "roots"]);
    let add = &all[0];
    assert!(
        add.output_schema.is_some(),
        "Json<T> output gives an outputSchema"
    );

    let result = client
        .call_tool("add", Some(obj(json!({"a": 2, "b": 3}))))
        .await
        .unwrap();
    assert!(!result.is_error());
    assert_eq!(result.structured_content.unwrap()["sum"], json!(5));

    // Schema validation failures are tool errors the model can read (SEP-1303).
    let bad = client
        .call_tool("add", Some(obj(json!({"a": "two"}))))
        .await
        .unwrap();
    assert!(bad.is_error());
    let text = bad.content[0].as_text().unwrap();
    assert!(
        text.contains("Invalid arguments") && text.contains("\"b\""),
        "{text}"
    );

    let failed = client.call_tool("fail", None).await.unwrap();
    assert!(failed.is_error());
    assert_eq!(failed.content[0].as_text(), Some("it broke"));

    let unknown = client.call_tool("nope", None).await.unwrap_err();
    assert!(
        matches!(&unknown, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{unknown}"
    );

    let bad_cursor = client.list_tools(Some("zzz".into())).await.unwrap_err();
    assert!(
        matches!(&bad_cursor, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{bad_cursor}"
    );
}

#[tokio::test]
async fn resources_templates_and_subscriptions() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "test://static");
    let templates = client.list_all_resource_templates().await.unwrap();
    assert_eq!(templates[0].uri_template, "test://items/{id}");

    let read = client.read_resource("test://static").await.unwrap();
    let ReadResourceResultContentsItem::TextResourceContents(text) = &read.contents[0] else {
        panic!()
    };
    assert_eq!(text.text, "hello");
    let item = client.read_resource("test://items/42").await.unwrap();
    let ReadResourceResultContentsItem::TextResourceContents(text) = &item.contents[0] else {
        panic!()
    };
    assert_eq!(text.text, "item 42");
    let missing = client.read_resource("test://missing").await.unwrap_err();
    assert!(
        matches!(&missing, Error::Rpc(e) if e.code == ErrorCode::RESOURCE_NOT_FOUND),
        "{missing}"
    );

    let mut notifications = client.notifications();
    client.subscribe("test://static").await.unwrap();
    assert_eq!(server.notify_resource_updated("test://static").await, 1);
    assert_eq!(server.notify_resource_updated("test://other").await, 0);
    let n = tokio::time::timeout(Duration::from_secs(5), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(n, ServerNotification::ResourceUpdated(u) if u.params.uri == "test://static"));
    client.unsubscribe("test://static").await.unwrap();
    assert_eq!(server.notify_resource_updated("test://static").await, 0);
}

#[tokio::test]
async fn prompts_completion_and_list_changed() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let prompts = client.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greet");
    let args = [("name".to_string(), "Ada".to_string())]
        .into_iter()
        .collect();
    let got = client.get_prompt("greet", Some(args)).await.unwrap();
    assert_eq!(got.messages[0].content.as_text(), Some("Hello Ada"));
    let missing = client.get_prompt("greet", None).await.unwrap_err();
    assert!(
        matches!(&missing, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{missing}"
    );

    let completion = client
        .complete(CompleteRequestParams::new(
            CompleteRequestParamsArgument::new("name", "al"),
            CompleteRequestParamsRef::PromptReference(PromptReference {
                type_: PromptReferenceType,
                ..PromptReference::new("greet")
            }),
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["alpha", "alpine"]);

    let mut notifications = client.notifications();
    server
        .add_tool(
            ToolDef::raw("late", json!({"type": "object"}), |_, _| async {
                CallToolResult::text("late")
            })
            .unwrap(),
        )
        .await
        .unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), notifications.recv())
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(n, ServerNotification::ToolListChanged(_)), "{n:?}");
    assert!(
        client
            .list_all_tools()
            .await
            .unwrap()
            .iter()
            .any(|t| t.name == "late")
    );
    assert!(server.remove_tool("late").await);
}

#[tokio::test]
async fn logging_honours_set_level() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let mut notifications = client.notifications();
    client.set_logging_level(LoggingLevel::Info).await.unwrap();
    client.call_tool("log", None).await.unwrap();
    let mut levels = Vec::new();
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(300), notifications.recv()).await
    {
        if let ServerNotification::LoggingMessage(m) = n {
            levels.push(m.params.level);
        }
    }
    assert_eq!(levels, [LoggingLevel::Info, LoggingLevel::Error]);
}

#[tokio::test]
async fn server_asks_the_client_for_sampling_and_roots() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let sampled = client.call_tool("sample", None).await.unwrap();
    assert_eq!(
        sampled.content[0].as_text(),
        Some("model test-model said something")
    );
    let roots = client.call_tool("roots", None).await.unwrap();
    assert_eq!(roots.content[0].as_text(), Some("file:///tmp"));
}

#[tokio::test]
async fn capability_gating_on_both_sides() {
    let server = test_server(Arc::default());
    let (a, b) = memory_pair();
    let _session = server.serve(b).unwrap();
    // This client declares neither sampling nor roots.
    let client = Client::builder("bare", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let sampled = client.call_tool("sample", None).await.unwrap();
    assert!(sampled.is_error());
    let text = sampled.content[0].as_text().unwrap();
    assert!(text.contains("sampling"), "{text}");

    // A server without prompts: the client refuses before sending.
    let bare = Server::builder("bare", "1").build();
    let (a, b) = memory_pair();
    let _s = bare.serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let err = client.list_prompts(None).await.unwrap_err();
    assert!(
        matches!(err, Error::CapabilityNotSupported { ref capability, .. } if capability == "prompts"),
        "{err}"
    );
    // And the server answers method-not-found if asked anyway.
    let raw = client
        .peer()
        .request_raw("prompts/list", &json!({}), RequestOptions::default())
        .await
        .unwrap_err();
    assert!(
        matches!(raw, Error::Rpc(ref e) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{raw}"
    );
}

#[tokio::test]
async fn progress_is_delivered_and_cancellation_reaches_the_handler() {
    let cancelled = Arc::new(AtomicUsize::new(0));
    let server = test_server(cancelled.clone());
    let (client, _session) = connect(&server).await;

    let seen = Arc::new(AtomicUsize::new(0));
    let counter = seen.clone();
    let options = RequestOptions::default().on_progress(move |_| {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let params = CallToolRequestParams {
        arguments: Some(obj(json!({"millis": 80}))),
        ..CallToolRequestParams::new("sleep")
    };
    let done = client
        .call_tool_with(params.clone(), options)
        .await
        .unwrap();
    assert_eq!(done.content[0].as_text(), Some("slept"));
    assert_eq!(seen.load(Ordering::SeqCst), 4);

    // Dropping the call sends notifications/cancelled; the handler sees it.
    let long = CallToolRequestParams {
        arguments: Some(obj(json!({"millis": 20_000}))),
        ..params.clone()
    };
    let call = client.call_tool_with(long.clone(), RequestOptions::default());
    let _ = tokio::time::timeout(Duration::from_millis(100), call).await;
    wait_for(|| cancelled.load(Ordering::SeqCst) == 1).await;

    // A timeout cancels too, and says so.
    let err = client
        .call_tool_with(
            long,
            RequestOptions::default().timeout(Duration::from_millis(100)),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Timeout { .. }), "{err}");
    wait_for(|| cancelled.load(Ordering::SeqCst) == 2).await;
    // The session is still fine.
    client.ping().await.unwrap();
}

async fn wait_for(cond: impl Fn() -> bool) {
    for _ in 0..500 {
        if cond() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("condition not reached in 5 s");
}

#[tokio::test]
async fn slow_requests_do_not_block_others() {
    let server = test_server(Arc::default());
    let (client, _session) = connect(&server).await;
    let client = Arc::new(client);
    let slow = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("sleep", Some(obj(json!({"millis": 1000}))))
                .await
        })
    };
    let started = std::time::Instant::now();
    for _ in 0..20 {
        client.ping().await.unwrap();
        client
            .call_tool("add", Some(obj(json!({"a": 1, "b": 1}))))
            .await
            .unwrap();
    }
    assert!(
        started.elapsed() < Duration::from_millis(900),
        "fast calls waited for the slow one"
    );
    assert!(!slow.await.unwrap().unwrap().is_error());
}

#[tokio::test]
async fn concurrency_limit_gives_a_clear_error() {
    let server = Server::builder("s", "1")
        .session_config(SessionConfig::default().max_concurrent_requests(1))
        .tool(
            ToolDef::new("sleep", "", |a: SleepArgs, _cx| async move {
                tokio::time::sleep(Duration::from_millis(a.millis)).await;
                Ok::<_, String>("ok")
            })
            .unwrap(),
        )
        .build();
    let (a, b) = memory_pair();
    let _session = server.serve(b).unwrap();
    let client = Arc::new(
        Client::builder("c", "1")
            .negotiation(Negotiation::Legacy)
            .connect(a)
            .await
            .unwrap(),
    );
    let busy = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("sleep", Some(obj(json!({"millis": 500}))))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    let err = client
        .call_tool("sleep", Some(obj(json!({"millis": 1}))))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Rpc(e) if e.code == ErrorCode::SERVER_ERROR && e.message.contains("limit 1")),
        "{err}"
    );
    busy.await.unwrap().unwrap();
}

#[tokio::test]
async fn closing_fails_pending_calls_at_once() {
    let server = test_server(Arc::default());
    let (client, session) = connect(&server).await;
    let client = Arc::new(client);
    let pending = {
        let client = client.clone();
        tokio::spawn(async move {
            client
                .call_tool("sleep", Some(obj(json!({"millis": 60_000}))))
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    session.close().await;
    let err = tokio::time::timeout(Duration::from_secs(2), pending)
        .await
        .unwrap()
        .unwrap()
        .unwrap_err();
    assert!(matches!(err, Error::ConnectionClosed(_)), "{err}");
    let err = client.ping().await.unwrap_err();
    assert!(matches!(err, Error::ConnectionClosed(_)), "{err}");
}

/// A raw peer speaking JSON text to a server, for bad-input tests.
struct RawPeer {
    to_server: tokio::sync::mpsc::Sender<InboundFrame>,
    from_server: tokio::sync::mpsc::Receiver<OutboundMessage>,
}

impl RawPeer {
    fn serve(server: &Server) -> (Self, mcp_core::server::ServerSession) {
        let (in_tx, in_rx) = tokio::sync::mpsc::channel(64);
        let (out_tx, out_rx) = tokio::sync::mpsc::channel(64);
        let handle = TransportHandle {
            inbound: in_rx,
            outbound: out_tx,
            close: Default::default(),
            done: Default::default(),
        };
        let session = server.serve(handle).unwrap();
        (
            Self {
                to_server: in_tx,
                from_server: out_rx,
            },
            session,
        )
    }

    async fn send(&self, frame: InboundFrame) {
        self.to_server.send(frame).await.unwrap();
    }

    async fn text(&self, text: &str) {
        self.send(InboundFrame::Message(text.to_string())).await;
    }

    async fn reply(&mut self) -> Value {
        let m = tokio::time::timeout(Duration::from_secs(5), self.from_server.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(m.kind, OutboundKind::Response);
        serde_json::from_str(&m.text).unwrap()
    }

    async fn expect_error(&mut self, text: &str, code: i64) -> Value {
        self.text(text).await;
        let reply = self.reply().await;
        assert_eq!(reply["error"]["code"], json!(code), "{text} → {reply}");
        reply
    }
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

#[tokio::test]
async fn bad_input_gets_the_right_errors_and_the_session_survives() {
    let server = test_server(Arc::default());
    let (mut peer, _session) = RawPeer::serve(&server);

    // Before initialize: only ping works.
    peer.text(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#)
        .await;
    assert_eq!(peer.reply().await["result"], json!({}));
    let e = peer
        .expect_error(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#, -32600)
        .await;
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{e}"
    );

    peer.text(INIT).await;
    let init = peer.reply().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    peer.expect_error(INIT, -32600).await;
    peer.text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;

    peer.expect_error("{not json", -32700).await;
    peer.expect_error("[1,2]", -32600).await;
    peer.expect_error(r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, -32600)
        .await;
    peer.expect_error(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, -32600)
        .await;
    peer.expect_error(r#"{"jsonrpc":"2.0","id":4,"method":"no/such"}"#, -32601)
        .await;
    peer.expect_error(
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"nome":"add"}}"#,
        -32602,
    )
    .await;
    peer.expect_error(r#"{"jsonrpc":"2.0","id":6,"method":"tools/call"}"#, -32602)
        .await;
    peer.expect_error(
        r#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":5}}"#,
        -32602,
    )
    .await;
    peer.send(InboundFrame::Oversize { limit: 10 }).await;
    assert_eq!(peer.reply().await["error"]["code"], json!(-32600));
    peer.send(InboundFrame::InvalidUtf8).await;
    assert_eq!(peer.reply().await["error"]["code"], json!(-32700));

    // Notifications and stray responses get no answer; the next request does.
    peer.text(r#"{"jsonrpc":"2.0","method":"notifications/unknown"}"#)
        .await;
    peer.text(r#"{"jsonrpc":"2.0","id":999,"result":{}}"#).await;
    peer.text(r#"{"jsonrpc":"2.0","id":"str-id","method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}"#)
        .await;
    let ok = peer.reply().await;
    assert_eq!(ok["id"], json!("str-id"));
    assert_eq!(ok["result"]["structuredContent"]["sum"], json!(3));
}

#[tokio::test]
async fn older_protocol_versions_are_negotiated() {
    let server = test_server(Arc::default());
    for (asked, answered) in [
        ("2024-11-05", "2024-11-05"),
        ("2025-06-18", "2025-06-18"),
        ("1999-01-01", "2025-11-25"),
        // 2026-07-28 has no `initialize`: asked for in one, the latest
        // revision that has it is answered.
        ("2026-07-28", "2025-11-25"),
    ] {
        let (mut peer, _session) = RawPeer::serve(&server);
        peer.text(&INIT.replace("2025-11-25", asked)).await;
        assert_eq!(peer.reply().await["result"]["protocolVersion"], answered);
    }
}

#[tokio::test]
async fn the_method_table_gates_requests_by_revision() {
    // The server offers tasks; a 2025-06-18 session has no tasks methods,
    // a 2025-11-25 one has.
    let server = Server::builder("tasks", "1")
        .tasks(mcp_core::tasks::TaskConfig::default())
        .build();
    let list = r#"{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}"#;
    let (mut old, _s1) = RawPeer::serve(&server);
    old.text(&INIT.replace("2025-11-25", "2025-06-18")).await;
    old.reply().await;
    let reply = old.expect_error(list, -32601).await;
    assert_eq!(reply["id"], json!(1));
    let (mut new, _s2) = RawPeer::serve(&server);
    new.text(INIT).await;
    new.reply().await;
    new.text(list).await;
    assert!(new.reply().await["result"]["tasks"].is_array());
}

/// Implements prompts but declares only tools: the dispatch answers
/// method-not-found for prompts before the handler is reached.
struct Undeclared(Arc<AtomicUsize>);

#[async_trait::async_trait]
impl mcp_core::server::ServerHandler for Undeclared {
    fn info(&self) -> mcp_core::server::ServerInfo {
        mcp_core::server::ServerInfo {
            implementation: Implementation::new("undeclared", "1"),
            capabilities: ServerCapabilities {
                tools: Some(ServerCapabilitiesTools::new()),
                ..ServerCapabilities::new()
            },
            instructions: None,
        }
    }

    async fn list_prompts(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: mcp_core::server::Context,
    ) -> Result<ListPromptsResult, RpcError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(ListPromptsResult::new(Vec::new()))
    }
}

#[tokio::test]
async fn undeclared_capabilities_are_refused_before_the_handler() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (a, b) = memory_pair();
    let _session = mcp_core::server::serve(
        Arc::new(Undeclared(calls.clone())),
        b,
        SessionConfig::default(),
    )
    .unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let raw = client
        .peer()
        .request_raw("prompts/list", &json!({}), RequestOptions::default())
        .await;
    assert!(
        matches!(raw, Err(Error::Rpc(ref e)) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{raw:?}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // The typed method refuses before sending, naming the capability.
    let typed = client.list_prompts(None).await.unwrap_err();
    assert!(
        matches!(typed, Error::CapabilityNotSupported { ref capability, .. } if capability == "prompts"),
        "{typed}"
    );
}

#[tokio::test]
async fn a_client_refuses_a_server_version_it_does_not_speak() {
    // A fake server answering initialize with an unknown version.
    let (client_end, server_end) = memory_pair();
    let mut handle = server_end.start().unwrap();
    tokio::spawn(async move {
        while let Some(InboundFrame::Message(text)) = handle.inbound.recv().await {
            let v: Value = serde_json::from_str(&text).unwrap();
            if v["method"] == "initialize" {
                let reply = json!({"jsonrpc":"2.0","id":v["id"],"result":{
                    "protocolVersion":"1999-01-01","capabilities":{},"serverInfo":{"name":"old","version":"1"}}});
                let m = OutboundMessage {
                    text: reply.to_string(),
                    kind: OutboundKind::Response,
                    related: None,
                };
                handle.outbound.send(m).await.unwrap();
            }
        }
    });
    let err = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(client_end)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ProtocolVersion(m) if m.contains("1999-01-01")),
        "{err}"
    );
}

#[tokio::test]
async fn rpc_errors_from_handlers_keep_code_and_data() {
    let server = Server::builder("s", "1")
        .resource(ResourceDef::new("x://err", "err", |_uri, _cx| async {
            Err(RpcError::new(ErrorCode(-32042), "need a URL elicitation")
                .with_data(json!({"k": 1})))
        }))
        .build();
    let (a, b) = memory_pair();
    let _session = server.serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let err = client.read_resource("x://err").await.unwrap_err();
    let Error::Rpc(e) = err else { panic!("{err}") };
    assert_eq!((e.code, e.data), (ErrorCode(-32042), Some(json!({"k": 1}))));
}

#[tokio::test]
async fn a_panicking_handler_answers_internal_error_and_the_session_goes_on() {
    let at_once = ToolDef::new(
        "panic_now",
        "Panics when called",
        |_: Map<String, Value>, _cx| async move {
            if true {
                panic!("boom at once");
            }
            Ok::<_, String>("unreachable")
        },
    )
    .unwrap();
    let later = ToolDef::new(
        "panic_later",
        "Panics after waiting",
        |_: Map<String, Value>, _cx| async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if true {
                panic!("boom later");
            }
            Ok::<_, String>("unreachable")
        },
    )
    .unwrap();
    let server = Server::builder("panics", "1")
        .tool(at_once)
        .tool(later)
        .build();
    let (client, _session) = connect(&server).await;
    for name in ["panic_now", "panic_later", "panic_now"] {
        let err = tokio::time::timeout(Duration::from_secs(5), client.call_tool(name, None))
            .await
            .expect("a panicking handler is answered, not left hanging")
            .unwrap_err();
        let Error::Rpc(e) = &err else {
            panic!("{name}: {err}")
        };
        assert_eq!(e.code, ErrorCode::INTERNAL_ERROR, "{name}");
        assert!(!e.message.contains("boom"), "the panic stays in the log");
        client.ping().await.unwrap();
    }
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
}
