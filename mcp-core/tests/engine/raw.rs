//! Raw JSON-RPC text against a server (bad input, protocol-version
//! negotiation, the method table by revision), and a client meeting a
//! server version it does not speak.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::server::Server;
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::{Value, json};

use crate::test_server;

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
