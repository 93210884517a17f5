//! Every method: handshake, tools, resources, prompts, logging, the
//! server's requests to the client, and capability gating on both sides.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::ErrorCode;
use mcp_core::schema::*;
use mcp_core::server::{Server, ToolDef};
use mcp_core::session::RequestOptions;
use mcp_core::transport::memory_pair;
use serde_json::json;

use crate::{connect, obj, test_server};

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
