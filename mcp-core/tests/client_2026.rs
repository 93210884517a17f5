//! The client at 2026-07-28: negotiation (auto, legacy, pinned; the probe's
//! fallbacks), per-request metadata, the input-required loop with the same
//! handlers as 2025-11-25 server requests, and bad answers from servers
//! (each a clear error, never a hang).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_core::client::{Client, ClientBuilder, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::{CreateMessageResult, CreateMessageResultContent, Role, TextContent};
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::{
    ChildProcess, InboundFrame, OutboundKind, OutboundMessage, Transport, memory_pair,
};
use serde_json::{Value, json};

fn args(v: Value) -> Option<serde_json::Map<String, Value>> {
    v.as_object().cloned()
}

/// A client whose model answers every sampling request as `model-x`,
/// counting the requests.
fn sampling_client(count: Arc<AtomicUsize>) -> ClientBuilder {
    Client::builder("client-2026-test", "1.0.0").on_sampling(false, move |_params, _cx| {
        count.fetch_add(1, Ordering::SeqCst);
        async move {
            Ok(CreateMessageResult::new(
                CreateMessageResultContent::TextContent(TextContent::new("hi")),
                "model-x",
                Role::Assistant,
            ))
        }
    })
}

fn text_of(result: &mcp_core::schema::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test]
async fn auto_speaks_2026_with_our_server_and_answers_input_rounds() {
    let (a, b) = memory_pair();
    let _server = common::test_server().serve(b).unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let client = sampling_client(count.clone()).connect(a).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let discover = client.discover_result().expect("a discover result");
    assert!(
        discover
            .supported_versions
            .iter()
            .any(|v| v == "2026-07-28")
    );
    assert_eq!(client.server_info().name, "bad-input-server");
    assert!(client.server_capabilities().tools.is_some());

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "add_numbers"));
    let sum = client
        .call_tool("add_numbers", args(json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert_eq!(text_of(&sum), "5");
    // The tool asks for sampling: an input-required round answered by the
    // same handler a 2025-11-25 server request would reach.
    let sampled = client
        .call_tool("test_sampling", args(json!({"prompt": "hello"})))
        .await
        .unwrap();
    assert_eq!(text_of(&sampled), "model-x");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn legacy_and_pinned_initialize() {
    let (a, b) = memory_pair();
    let _server = common::test_server().serve(b).unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let client = sampling_client(count.clone())
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert!(client.discover_result().is_none());
    let sampled = client
        .call_tool("test_sampling", args(json!({"prompt": "hello"})))
        .await
        .unwrap();
    assert_eq!(text_of(&sampled), "model-x");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    client.close().await;

    let (a, b) = memory_pair();
    let _server = common::test_server().serve(b).unwrap();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_06_18)
        .connect(a)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_06_18);
    client.close().await;

    let (a, b) = memory_pair();
    let _server = common::test_server().serve(b).unwrap();
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .connect(a)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    client.close().await;
}

#[tokio::test]
async fn auto_over_http_then_sessions_still_work() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(common::test_server(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    let url = format!("http://{addr}/mcp");

    let count = Arc::new(AtomicUsize::new(0));
    let client = sampling_client(count.clone())
        .connect(StreamableHttpClient::new(&url))
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let sampled = client
        .call_tool("test_sampling", args(json!({"prompt": "hello"})))
        .await
        .unwrap();
    assert_eq!(text_of(&sampled), "model-x");
    let read = client.read_resource("test://static-text").await.unwrap();
    assert_eq!(read.contents.len(), 1);
    client.close().await;

    let legacy = sampling_client(count.clone())
        .negotiation(Negotiation::Legacy)
        .connect(StreamableHttpClient::new(&url))
        .await
        .unwrap();
    assert_eq!(legacy.protocol_version(), ProtocolVersion::V2025_11_25);
    let sampled = legacy
        .call_tool("test_sampling", args(json!({"prompt": "hello"})))
        .await
        .unwrap();
    assert_eq!(text_of(&sampled), "model-x");
    assert_eq!(count.load(Ordering::SeqCst), 2);
    legacy.close().await;
}

/// A scripted server on the far end of an in-memory pair: `answer` gets
/// each request (method, params) and returns the JSON-RPC `result` or
/// `error` object to send, or `None` to stay silent.
fn scripted(answer: impl Fn(&str, &Value) -> Option<Value> + Send + 'static) -> impl Transport {
    let (a, b) = memory_pair();
    let mut handle = b.start().unwrap();
    tokio::spawn(async move {
        while let Some(frame) = handle.inbound.recv().await {
            let InboundFrame::Message(text) = frame else {
                break;
            };
            let message: Value = serde_json::from_str(&text).unwrap();
            let (Some(id), Some(method)) = (message.get("id"), message["method"].as_str()) else {
                continue;
            };
            let Some(reply) = answer(method, &message["params"]) else {
                continue;
            };
            let mut response = json!({"jsonrpc": "2.0", "id": id});
            if reply.get("code").is_some() {
                response["error"] = reply;
            } else {
                response["result"] = reply;
            }
            let out = OutboundMessage {
                text: response.to_string(),
                kind: OutboundKind::Response,
                related: None,
            };
            if handle.outbound.send(out).await.is_err() {
                break;
            }
        }
    });
    a
}

fn init_result() -> Value {
    json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
           "serverInfo": {"name": "old", "version": "1"}})
}

fn discover_result() -> Value {
    json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
           "capabilities": {"tools": {}}, "ttlMs": 0, "cacheScope": "private",
           "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "new", "version": "1"}}})
}

#[tokio::test]
async fn an_older_server_gets_initialize_after_the_probe() {
    // Refuses the probe as an unknown method.
    let transport = scripted(|method, _| match method {
        "server/discover" => Some(json!({"code": -32601, "message": "Method not found"})),
        "initialize" => Some(init_result()),
        _ => Some(json!({"tools": []})),
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    assert_eq!(client.server_info().name, "old");
    client.close().await;

    // Ignores the probe: the probe's timeout, then initialize.
    let transport = scripted(|method, _| match method {
        "initialize" => Some(init_result()),
        _ => None,
    });
    let client = Client::builder("c", "1")
        .probe_timeout(Duration::from_millis(200))
        .connect(transport)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.close().await;
}

#[tokio::test]
async fn unsupported_version_retries_with_a_common_one_or_fails_clearly() {
    // -32022 naming only an older revision: initialize.
    let transport = scripted(|method, _| match method {
        "server/discover" => Some(json!({"code": -32022, "message": "Unsupported",
            "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}})),
        "initialize" => Some(init_result()),
        _ => None,
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.close().await;

    // -32022 naming nothing this client speaks: a clear error.
    let transport = scripted(|method, _| match method {
        "server/discover" => Some(json!({"code": -32022, "message": "Unsupported",
            "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}})),
        _ => None,
    });
    let error = Client::builder("c", "1")
        .connect(transport)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("no revision in common"), "{error}");
    assert!(error.contains("2099-01-01"), "{error}");

    // Pinned to 2026-07-28 against an older server: a clear error.
    let transport = scripted(|method, _| match method {
        "server/discover" => Some(json!({"code": -32601, "message": "Method not found"})),
        _ => Some(init_result()),
    });
    let error = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2026_07_28)
        .connect(transport)
        .await
        .unwrap_err()
        .to_string();
    assert!(error.contains("does not speak 2026-07-28"), "{error}");
}

fn elicit_request() -> Value {
    json!({"method": "elicitation/create", "params": {"message": "ok?",
        "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}})
}

#[tokio::test]
async fn input_rounds_echo_state_and_are_bounded() {
    // Round 1 asks; round 2 must carry the answer and the exact state.
    let seen = Arc::new(std::sync::Mutex::new(Vec::<Value>::new()));
    let log = seen.clone();
    let transport = scripted(move |method, params| match method {
        "server/discover" => Some(discover_result()),
        "tools/call" if params.get("inputResponses").is_none() => {
            log.lock().unwrap().push(params.clone());
            Some(json!({"resultType": "input_required",
                "inputRequests": {"q": elicit_request()}, "requestState": "s\u{e9}\"1"}))
        }
        "tools/call" => {
            log.lock().unwrap().push(params.clone());
            Some(json!({"resultType": "complete", "content": [{"type": "text", "text": "done"}]}))
        }
        _ => None,
    });
    let client = Client::builder("c", "1")
        .on_elicitation(false, |_p, _cx| async {
            Ok(mcp_core::schema::ElicitResult::new(
                mcp_core::schema::ElicitResultAction::Accept,
            ))
        })
        .connect(transport)
        .await
        .unwrap();
    assert_eq!(client.server_info().name, "new");
    let result = client.call_tool("t", args(json!({}))).await.unwrap();
    assert_eq!(text_of(&result), "done");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[1]["requestState"], "s\u{e9}\"1");
    assert_eq!(seen[1]["inputResponses"]["q"]["action"], "accept");
    let meta = &seen[1]["_meta"];
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"]["elicitation"].is_object());
    assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "c");
    client.close().await;

    // A server that never stops asking: bounded.
    let transport = scripted(|method, _| match method {
        "server/discover" => Some(discover_result()),
        _ => Some(json!({"resultType": "input_required", "requestState": "again"})),
    });
    let client = Client::builder("c", "1")
        .max_input_rounds(3)
        .connect(transport)
        .await
        .unwrap();
    let error = client.call_tool("t", None).await.unwrap_err().to_string();
    assert!(error.contains("after 3 rounds"), "{error}");
    client.close().await;

    // A server that refuses the state it sealed (expired, say) when the
    // client retries: the call ends with the server's error.
    let transport = scripted(|method, params| match method {
        "server/discover" => Some(discover_result()),
        "tools/call" if params.get("requestState").is_none() => Some(
            json!({"resultType": "input_required", "inputRequests": {"q": elicit_request()},
                   "requestState": "sealed"}),
        ),
        _ => Some(json!({"code": -32602, "message": "requestState expired"})),
    });
    let client = Client::builder("c", "1")
        .on_elicitation(false, |_p, _cx| async {
            Ok(mcp_core::schema::ElicitResult::new(
                mcp_core::schema::ElicitResultAction::Accept,
            ))
        })
        .connect(transport)
        .await
        .unwrap();
    let error = tokio::time::timeout(Duration::from_secs(10), client.call_tool("t", None))
        .await
        .expect("no hang")
        .unwrap_err();
    assert!(
        matches!(&error, mcp_core::Error::Rpc(e) if e.code.0 == -32602),
        "{error:?}"
    );
    assert!(
        error.to_string().contains("requestState expired"),
        "{error}"
    );
    client.close().await;
}

#[tokio::test]
async fn malformed_answers_are_clear_errors() {
    let transport = scripted(|method, params| match method {
        "server/discover" => Some(discover_result()),
        "tools/call" => Some(match params["name"].as_str() {
            Some("empty") => json!({"resultType": "input_required"}),
            Some("bad_request") => json!({"resultType": "input_required",
                "inputRequests": {"q": {"method": "nope/nope"}}}),
            Some("unknown_kind") => json!({"resultType": "maybe_later"}),
            // Elicitation this client does not offer.
            _ => json!({"resultType": "input_required", "inputRequests": {"q": elicit_request()}}),
        }),
        "tools/list" => Some(json!({"resultType": "input_required", "requestState": "x"})),
        _ => None,
    });
    let client = Client::builder("c", "1").connect(transport).await.unwrap();
    for (tool, expected) in [
        ("empty", "neither inputRequests nor requestState"),
        ("bad_request", "malformed input-required result"),
        ("unknown_kind", "unknown resultType `maybe_later`"),
        ("unoffered", "could not give"),
    ] {
        let error = client.call_tool(tool, None).await.unwrap_err().to_string();
        assert!(error.contains(expected), "{tool}: {error}");
    }
    let error = client.list_tools(None).await.unwrap_err().to_string();
    assert!(error.contains("cannot ask"), "{error}");
    client.close().await;
}

/// An older stdio server that exits when its first request is not
/// `initialize` is started again and initialized.
#[tokio::test]
async fn a_server_that_exits_on_the_probe_is_started_again() {
    let dir = std::env::temp_dir().join(format!("mcp-probe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let marker = dir.join("probed");
    let _ = std::fs::remove_file(&marker);
    let script = format!(
        "if [ ! -e '{m}' ]; then read -r line; touch '{m}'; exit 1; fi; exec '{mcp}' serve everything",
        m = marker.display(),
        mcp = common::mcp_binary().display()
    );
    let transport = ChildProcess::new("sh").args(["-c", &script]);
    let client = Client::builder("c", "1")
        .protocol_version(ProtocolVersion::V2025_11_25)
        .negotiation(Negotiation::Auto)
        .connect(transport)
        .await
        .unwrap();
    assert!(marker.exists(), "the probe reached the first process");
    assert_eq!(client.protocol_version(), ProtocolVersion::V2025_11_25);
    client.list_tools(None).await.unwrap();
    client.close().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn list_results_are_cached_for_their_ttl_when_asked() {
    let requests = Arc::new(AtomicUsize::new(0));
    let server = |requests: Arc<AtomicUsize>| {
        scripted(move |method, params| match method {
            "server/discover" => Some(discover_result()),
            "tools/list" => {
                requests.fetch_add(1, Ordering::SeqCst);
                // The first page may be kept a minute; the second not at all.
                Some(match params.get("cursor") {
                    None => json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}],
                                   "nextCursor": "2", "ttlMs": 60000, "cacheScope": "private"}),
                    Some(_) => json!({"tools": [{"name": "b", "inputSchema": {"type": "object"}}],
                                      "ttlMs": 0, "cacheScope": "public"}),
                })
            }
            _ => None,
        })
    };
    let client = Client::builder("c", "1")
        .cache_lists()
        .connect(server(requests.clone()))
        .await
        .unwrap();
    for _ in 0..3 {
        let tools = client.list_all_tools().await.unwrap();
        assert_eq!(tools.len(), 2);
    }
    // The first page once, the uncacheable second page every time.
    assert_eq!(requests.load(Ordering::SeqCst), 1 + 3);
    client.close().await;

    // Not asked for: every call goes to the server.
    requests.store(0, Ordering::SeqCst);
    let client = Client::builder("c", "1")
        .connect(server(requests.clone()))
        .await
        .unwrap();
    for _ in 0..3 {
        client.list_all_tools().await.unwrap();
    }
    assert_eq!(requests.load(Ordering::SeqCst), 6);
    client.close().await;
}
