//! The URL-mode elicitation loop (spec 2025-11-25): a tool answers -32042
//! listing a URL elicitation; the client shows it to the user, waits for
//! `notifications/elicitation/complete`, and retries.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::schema::*;
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::memory_pair;
use serde_json::json;

/// A tool that needs the user to authorize a third party first.
fn server(authorized: Arc<AtomicBool>) -> Server {
    let tool = ToolDef::fallible("fetch_private", json!({"type": "object"}), move |_, cx| {
        let authorized = authorized.clone();
        async move {
            if authorized.load(Ordering::SeqCst) {
                return Ok(CallToolResult::text("private data"));
            }
            let elicitation = ElicitRequestUrlParams {
                elicitation_id: Some("auth-1".into()),
                mode: ElicitRequestUrlParamsMode,
                ..ElicitRequestUrlParams::new(
                    "Authorize access to your files",
                    "https://example.com/authorize?state=xyz",
                )
            };
            // The out-of-band step finishes a moment later.
            let (authorized, done) = (authorized.clone(), cx.clone());
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(100)).await;
                authorized.store(true, Ordering::SeqCst);
                done.notify_elicitation_complete("auth-1").await.unwrap();
            });
            Err(RpcError::url_elicitation_required(
                "This request requires authorization.",
                &[elicitation],
            ))
        }
    })
    .unwrap();
    Server::builder("url", "1").tool(tool).build()
}

fn client(shown: Arc<AtomicUsize>, accept: bool) -> mcp_core::client::ClientBuilder {
    Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .on_url_elicitation(move |params| {
            let shown = shown.clone();
            async move {
                assert_eq!(params.url, "https://example.com/authorize?state=xyz");
                shown.fetch_add(1, Ordering::SeqCst);
                accept
            }
        })
}

#[tokio::test]
async fn retries_after_the_user_completes_the_elicitation() {
    let shown = Arc::new(AtomicUsize::new(0));
    let (a, b) = memory_pair();
    server(Arc::default()).serve(b).unwrap();
    let client = client(shown.clone(), true).connect(a).await.unwrap();
    let result = client.call_tool("fetch_private", None).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("private data"));
    assert_eq!(shown.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_declined_elicitation_gives_back_the_error() {
    let (a, b) = memory_pair();
    server(Arc::default()).serve(b).unwrap();
    let client = client(Arc::default(), false).connect(a).await.unwrap();
    let err = client.call_tool("fetch_private", None).await.unwrap_err();
    let Error::Rpc(e) = err else { panic!("{err}") };
    assert_eq!(e.code, ErrorCode::URL_ELICITATION_REQUIRED);
    assert_eq!(
        e.data.unwrap()["elicitations"][0]["elicitationId"],
        "auth-1"
    );
}

#[tokio::test]
async fn without_a_handler_the_error_reaches_the_caller() {
    let (a, b) = memory_pair();
    server(Arc::default()).serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let err = client.call_tool("fetch_private", None).await.unwrap_err();
    assert!(
        matches!(&err, Error::Rpc(e) if e.code == ErrorCode::URL_ELICITATION_REQUIRED),
        "{err}"
    );
}

#[tokio::test]
async fn the_loop_works_over_http() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(
        StreamableHttpServer::new(server(Arc::default()), HttpServerConfig::default())
            .serve(listener),
    );
    let shown = Arc::new(AtomicUsize::new(0));
    let client = client(shown.clone(), true)
        .connect(StreamableHttpClient::new(url))
        .await
        .unwrap();
    let result = client.call_tool("fetch_private", None).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("private data"));
    assert_eq!(shown.load(Ordering::SeqCst), 1);
}
