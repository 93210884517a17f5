//! `subscriptions/listen` from the client (2026-07-28), in process and over
//! Streamable HTTP: the acknowledged filter, the notifications it asks for
//! (and none it did not), two listens side by side, a clean close, and the
//! method refused in a 2025-11-25 session.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_core::client::{Client, Negotiation, Subscription};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::{ServerNotification, SubscriptionFilter};
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::memory_pair;
use serde_json::{Map, Value};

const WATCHED: &str = "test://static-text";

fn filter() -> SubscriptionFilter {
    SubscriptionFilter {
        resource_subscriptions: Some(vec![WATCHED.into()]),
        tools_list_changed: Some(true),
        ..SubscriptionFilter::new()
    }
}

fn extra_tool(name: &str) -> ToolDef {
    ToolDef::new(
        name,
        "added later",
        |_: Map<String, Value>, _cx| async move { Ok::<_, String>("ok") },
    )
    .unwrap()
}

async fn next(sub: &mut Subscription) -> ServerNotification {
    tokio::time::timeout(common::WAIT, sub.next())
        .await
        .expect("a notification in time")
        .unwrap()
        .expect("the stream is open")
}

/// Asks for what `filter` names, checks the acknowledgement, and sees one
/// resource update and one tool-list change arrive, with an update of a
/// resource it did not ask for left out.
async fn listens_and_closes(client: &Client, server: &Server) {
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    let mut sub = client.listen(filter()).await.unwrap();
    assert_eq!(
        sub.honoured().resource_subscriptions.as_deref(),
        Some(&[WATCHED.to_string()][..])
    );
    assert_eq!(sub.honoured().tools_list_changed, Some(true));
    // A kind it did not ask for is not honoured.
    assert_eq!(sub.honoured().prompts_list_changed, None);

    // Not asked for: an update of another resource.
    server.notify_resource_updated("test://other").await;
    server.notify_resource_updated(WATCHED).await;
    match next(&mut sub).await {
        ServerNotification::ResourceUpdated(n) => assert_eq!(n.params.uri, WATCHED),
        other => panic!("expected resources/updated, got {other:?}"),
    }
    server.add_tool(extra_tool("later")).await.unwrap();
    match next(&mut sub).await {
        ServerNotification::ToolListChanged(_) => {}
        other => panic!("expected tools/list_changed, got {other:?}"),
    }

    // A second listen beside it gets its own id and its own frames.
    let mut only_tools = client
        .listen(SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::new()
        })
        .await
        .unwrap();
    assert_ne!(only_tools.id(), sub.id());
    server.notify_resource_updated(WATCHED).await;
    server.add_tool(extra_tool("later-still")).await.unwrap();
    assert!(matches!(
        next(&mut only_tools).await,
        ServerNotification::ToolListChanged(_)
    ));
    assert!(matches!(
        next(&mut sub).await,
        ServerNotification::ResourceUpdated(_)
    ));
    assert!(matches!(
        next(&mut sub).await,
        ServerNotification::ToolListChanged(_)
    ));

    // Closing ends the stream without ending the client.
    sub.close();
    drop(only_tools);
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "later-still"));
    // A new listen works after the others are gone.
    let again = client.listen(filter()).await.unwrap();
    server.notify_resource_updated(WATCHED).await;
    let mut again = again;
    assert!(matches!(
        next(&mut again).await,
        ServerNotification::ResourceUpdated(_)
    ));
}

#[tokio::test]
async fn listen_in_process() {
    let server = common::test_server();
    let (a, b) = memory_pair();
    let _session = server.serve(b).unwrap();
    let client = Client::builder("listen-test", "1.0.0")
        .connect(a)
        .await
        .unwrap();
    listens_and_closes(&client, &server).await;
    client.close().await;
}

#[tokio::test]
async fn listen_over_http() {
    let server = common::test_server();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(server.clone(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    let client = Client::builder("listen-test", "1.0.0")
        .connect(StreamableHttpClient::new(format!("http://{addr}/mcp")))
        .await
        .unwrap();
    listens_and_closes(&client, &server).await;
    client.close().await;
}

#[tokio::test]
async fn a_session_has_no_listen() {
    let (a, b) = memory_pair();
    let _session = common::test_server().serve(b).unwrap();
    let client = Client::builder("listen-test", "1.0.0")
        .negotiation(Negotiation::Legacy)
        .session_config(mcp_core::session::SessionConfig::default())
        .connect(a)
        .await
        .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(5), client.listen(filter()))
        .await
        .unwrap()
        .unwrap_err();
    assert!(e.to_string().contains("subscriptions/listen"), "{e}");
}
