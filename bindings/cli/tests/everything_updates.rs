//! `test_update_resource` reaches every subscriber of its URI in the
//! process: a 2025-11-25 session that sent `resources/subscribe` and a
//! 2026-07-28 `subscriptions/listen` stream, each served by its own
//! everything server instance, told by a call made on a third one; a
//! session subscribed to another URI is not told.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use mcp_cli::everything::{WATCHED_RESOURCE, everything_server};
use mcp_core::ProtocolVersion;
use mcp_core::client::Client;
use mcp_core::schema::ServerNotification;
use mcp_core::server::ServerSession;
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(10);

/// A 2025-11-25 session (`resources/subscribe`), or, with `None`, a client
/// that speaks the newest revision both sides do.
async fn session(version: Option<ProtocolVersion>) -> (Client, ServerSession) {
    let (a, b) = memory_pair();
    let server = everything_server().serve(b).unwrap();
    let mut builder = Client::builder("updates-test", "1");
    if let Some(version) = version {
        builder = builder.protocol_version(version);
    }
    (builder.connect(a).await.unwrap(), server)
}

const SESSION: Option<ProtocolVersion> = Some(ProtocolVersion::V2025_11_25);

/// A raw 2026-07-28 listener on its own server instance.
async fn listen(uri: &str) -> (TransportHandle, ServerSession) {
    let (client, end) = memory_pair();
    let server = everything_server().serve(end).unwrap();
    let mut handle = client.start().unwrap();
    let request = json!({"jsonrpc": "2.0", "id": "listen-1", "method": "subscriptions/listen",
        "params": {"notifications": {"resourceSubscriptions": [uri]}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let message = OutboundMessage {
        text: request.to_string(),
        kind: OutboundKind::Request,
        related: None,
    };
    handle.outbound.send(message).await.unwrap();
    let ack = next(&mut handle).await;
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    (handle, server)
}

async fn next(handle: &mut TransportHandle) -> Value {
    let frame = tokio::time::timeout(WAIT, handle.inbound.recv())
        .await
        .expect("a message in time")
        .unwrap();
    let InboundFrame::Message(text) = frame else {
        panic!("{frame:?}")
    };
    serde_json::from_str(&text).unwrap()
}

async fn updated(rx: &mut tokio::sync::broadcast::Receiver<ServerNotification>) -> String {
    loop {
        let n = tokio::time::timeout(WAIT, rx.recv())
            .await
            .unwrap()
            .unwrap();
        if let ServerNotification::ResourceUpdated(u) = n {
            return u.params.uri;
        }
    }
}

#[tokio::test]
async fn every_subscriber_of_the_uri_is_told_in_both_revisions() {
    let (subscriber, _s1) = session(SESSION).await;
    let mut subscribed = subscriber.notifications();
    subscriber.subscribe(WATCHED_RESOURCE).await.unwrap();
    let (other, _s2) = session(SESSION).await;
    let mut other_rx = other.notifications();
    other.subscribe("test://static-text").await.unwrap();
    let (mut listener, _s3) = listen(WATCHED_RESOURCE).await;

    // Called on yet another instance (per request, 2026-07-28), with the
    // default URI.
    let (caller, _s4) = session(None).await;
    let result = caller
        .call_tool("test_update_resource", None)
        .await
        .unwrap();
    let text = serde_json::to_value(&result).unwrap()["content"][0]["text"].clone();
    assert!(text.as_str().unwrap().contains(WATCHED_RESOURCE), "{text}");

    assert_eq!(updated(&mut subscribed).await, WATCHED_RESOURCE);
    let n = next(&mut listener).await;
    assert_eq!(n["method"], "notifications/resources/updated", "{n}");
    assert_eq!(n["params"]["uri"], WATCHED_RESOURCE);
    assert_eq!(
        n["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "listen-1"
    );

    // Another URI reaches its subscriber only.
    let args = serde_json::from_value(json!({"uri": "test://static-text"})).unwrap();
    caller
        .call_tool("test_update_resource", Some(args))
        .await
        .unwrap();
    assert_eq!(updated(&mut other_rx).await, "test://static-text");
    subscriber.unsubscribe(WATCHED_RESOURCE).await.unwrap();
    caller
        .call_tool("test_update_resource", None)
        .await
        .unwrap();
    let n = next(&mut listener).await;
    assert_eq!(n["params"]["uri"], WATCHED_RESOURCE, "{n}");
    // The unsubscribed session heard nothing more (the listen's delivery of
    // the same update has arrived, so the session's would have too).
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        subscribed.try_recv().is_err(),
        "an unsubscribed session is not told"
    );
}
