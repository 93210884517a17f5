//! Requests of revision 2026-07-28, which stand alone: no `initialize`, the
//! revision and the client's capabilities in every request's `_meta`. Served
//! by the same server, on the same connection, as 2025-11-25 sessions; every
//! answer is checked against the exact 2026-07-28 types.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use mcp_core::schema::v2026_07_28 as v2026;
use serde_json::{Value, json};

use common::stream::Stream;

/// A client end over the in-memory pair that sends raw JSON and reads raw
/// answers.
struct Raw(Stream);

impl Raw {
    fn serve() -> Self {
        Self(Stream::memory())
    }

    fn serve_this(server: &mcp_core::server::Server) -> Self {
        Self(Stream::serving(server.clone()))
    }

    async fn send(&mut self, message: Value) {
        self.0.send(message.to_string().as_bytes()).await;
    }

    /// The next message from the server.
    async fn next(&mut self) -> Value {
        self.0.recv().await
    }

    async fn call(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        loop {
            let m = self.next().await;
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
        }
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
    })
}

fn with_meta(mut params: Value) -> Value {
    params["_meta"] = meta();
    params
}

fn result(reply: &Value) -> Value {
    assert!(reply.get("error").is_none(), "an error: {reply}");
    reply["result"].clone()
}

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply}"))
}

#[tokio::test]
async fn discover_and_results_follow_the_2026_schema() {
    let mut raw = Raw::serve();
    let discover = result(&raw.call(1, "server/discover", with_meta(json!({}))).await);
    let typed: v2026::DiscoverResult = serde_json::from_value(discover.clone()).unwrap();
    assert!(typed.supported_versions.iter().any(|v| v == "2026-07-28"));
    assert!(typed.supported_versions.iter().any(|v| v == "2025-11-25"));
    assert!(
        discover["capabilities"].get("tasks").is_none(),
        "{discover}"
    );
    assert_eq!(
        discover["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "bad-input-server"
    );

    let list = result(&raw.call(2, "tools/list", with_meta(json!({}))).await);
    let typed: v2026::ListToolsResult = serde_json::from_value(list.clone()).unwrap();
    assert!(!typed.tools.is_empty());
    assert_eq!(list["resultType"], "complete");
    assert!(
        list["ttlMs"].is_u64() && list["cacheScope"].is_string(),
        "{list}"
    );

    let call = result(
        &raw.call(
            3,
            "tools/call",
            with_meta(json!({"name": "add_numbers", "arguments": {"a": 2, "b": 3}})),
        )
        .await,
    );
    let typed: v2026::CallToolResult = serde_json::from_value(call.clone()).unwrap();
    assert_eq!(typed.content.len(), 1);
    // Only cacheable results carry caching hints.
    assert!(call.get("ttlMs").is_none(), "{call}");

    let read = result(
        &raw.call(
            4,
            "resources/read",
            with_meta(json!({"uri": "test://static-text"})),
        )
        .await,
    );
    let _: v2026::ReadResourceResult = serde_json::from_value(read).unwrap();
}

#[tokio::test]
async fn methods_and_metadata_get_the_2026_errors() {
    let mut raw = Raw::serve();
    // Methods 2026-07-28 removed.
    for (id, method) in [(10, "ping"), (11, "initialize"), (12, "logging/setLevel")] {
        let reply = raw
            .call(id, method, with_meta(json!({"level": "info"})))
            .await;
        assert_eq!(error_code(&reply), -32601, "{method}: {reply}");
    }
    // Metadata missing or incomplete.
    let reply = raw.call(20, "server/discover", json!({})).await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
    let reply = raw
        .call(
            21,
            "server/discover",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        )
        .await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
    // A revision not served per request.
    let reply = raw
        .call(
            22,
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "v999.0.0",
                             "io.modelcontextprotocol/clientCapabilities": {}}}),
        )
        .await;
    assert_eq!(error_code(&reply), -32022, "{reply}");
    assert_eq!(reply["error"]["data"]["requested"], "v999.0.0");
    let typed: v2026::UnsupportedProtocolVersionError = serde_json::from_value(reply).unwrap();
    assert!(typed.error.data.supported.iter().any(|v| v == "2026-07-28"));
    // A missing resource is -32602 with the uri (2025-11-25 says -32002).
    let reply = raw
        .call(
            23,
            "resources/read",
            with_meta(json!({"uri": "test://missing"})),
        )
        .await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["uri"], "test://missing");
}

#[tokio::test]
async fn a_2025_session_on_the_same_connection_is_unchanged() {
    let mut raw = Raw::serve();
    // A stateless request first, then a session.
    result(&raw.call(1, "tools/list", with_meta(json!({}))).await);
    let init = raw
        .call(
            2,
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "old", "version": "1"}}),
        )
        .await;
    assert_eq!(result(&init)["protocolVersion"], "2025-11-25");
    raw.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    let list = result(&raw.call(3, "tools/list", json!({})).await);
    assert!(list.get("resultType").is_none(), "{list}");
    assert!(list.get("ttlMs").is_none(), "{list}");
    let reply = raw
        .call(4, "resources/read", json!({"uri": "test://missing"}))
        .await;
    assert_eq!(error_code(&reply), -32002, "{reply}");
    let pong = raw.call(5, "ping", json!({})).await;
    assert_eq!(result(&pong), json!({}));
}

/// `tools/call test_sampling` of the test server, under 2026-07-28, with
/// the given client capabilities and round fields.
fn sampling_call(caps: Value, round: Value) -> Value {
    let mut params = json!({"name": "test_sampling", "arguments": {"prompt": "hi"}});
    params["_meta"] = meta();
    params["_meta"]["io.modelcontextprotocol/clientCapabilities"] = caps;
    if let (Value::Object(p), Value::Object(r)) = (&mut params, round) {
        p.extend(r);
    }
    params
}

#[tokio::test]
async fn a_handler_that_asks_gets_an_input_required_round() {
    let mut raw = Raw::serve();
    let caps = json!({"sampling": {}});
    let first = result(
        &raw.call(1, "tools/call", sampling_call(caps.clone(), json!({})))
            .await,
    );
    let typed: v2026::InputRequiredResult = serde_json::from_value(first.clone()).unwrap();
    let requests = typed.input_requests.unwrap();
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(
        serde_json::to_value(request).unwrap()["method"],
        "sampling/createMessage"
    );
    let state = first["requestState"].as_str().unwrap().to_string();
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "pong"},
                        "model": "model-from-the-retry", "stopReason": "endTurn"});

    // The retry completes with the answer, and the handler sees it.
    let retry = json!({"inputResponses": {key.as_str(): answer}, "requestState": state});
    let done = result(
        &raw.call(2, "tools/call", sampling_call(caps.clone(), retry))
            .await,
    );
    let typed: v2026::CallToolResult = serde_json::from_value(done.clone()).unwrap();
    assert_ne!(typed.is_error, Some(true), "{done}");
    assert!(done.to_string().contains("model-from-the-retry"), "{done}");

    // A changed state is refused, never used.
    let tampered =
        json!({"inputResponses": {key.as_str(): answer}, "requestState": format!("{state}x")});
    let reply = raw
        .call(3, "tools/call", sampling_call(caps.clone(), tampered))
        .await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
    assert_eq!(reply["error"]["data"]["reason"], "invalid_request_state");

    // A state made for another request (other arguments) is refused too.
    let mut other = sampling_call(caps.clone(), json!({"requestState": state}));
    other["arguments"] = json!({"prompt": "something else"});
    let reply = raw.call(4, "tools/call", other).await;
    assert_eq!(error_code(&reply), -32602, "{reply}");

    // An answer that is not a result of the question's kind is invalid
    // params, and nothing completes.
    let bad = json!({"inputResponses": {key.as_str(): 12345}});
    let reply = raw.call(5, "tools/call", sampling_call(caps, bad)).await;
    assert_eq!(error_code(&reply), -32602, "{reply}");
}

#[tokio::test]
async fn a_question_the_client_cannot_answer_is_32021() {
    let mut raw = Raw::serve();
    let reply = raw
        .call(1, "tools/call", sampling_call(json!({}), json!({})))
        .await;
    assert_eq!(error_code(&reply), -32021, "{reply}");
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    let _: v2026::MissingRequiredClientCapabilityError = serde_json::from_value(reply).unwrap();
}

#[tokio::test]
async fn subscriptions_listen_streams_tagged_changes_until_cancelled() {
    let server = common::test_server();
    let mut raw = Raw::serve_this(&server);
    let mut params =
        with_meta(json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}));
    params["_meta"]["io.modelcontextprotocol/clientInfo"] =
        json!({"name": "listener", "version": "1"});
    raw.send(json!({"jsonrpc": "2.0", "id": "sub-1", "method": "subscriptions/listen", "params": params}))
        .await;
    // The acknowledgement comes first, names what is honoured (this server
    // has no prompts) and carries the subscription id.
    let ack = raw.next().await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    let _: v2026::SubscriptionsAcknowledgedNotification = serde_json::from_value(ack).unwrap();

    // A change of the tool list arrives, tagged; one of another kind not.
    server.remove_tool("add_numbers").await;
    let changed = raw.next().await;
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    assert_eq!(
        changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub-1"
    );

    // Cancelling ends the stream: nothing more arrives for it, and other
    // requests are answered.
    raw.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                    "params": {"requestId": "sub-1"}}),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    server.remove_tool("test_sampling").await;
    raw.send(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list", "params": with_meta(json!({}))}),
    )
    .await;
    let next = raw.next().await;
    assert_eq!(next["id"], 9, "a change reached a cancelled listen: {next}");
}
