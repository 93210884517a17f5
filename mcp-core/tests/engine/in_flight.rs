//! Requests in flight: progress, cancellation, timeouts, concurrency, and
//! closing with calls pending.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::ErrorCode;
use mcp_core::schema::*;
use mcp_core::server::{Server, ToolDef};
use mcp_core::session::{RequestOptions, SessionConfig};
use mcp_core::transport::memory_pair;
use serde_json::json;

use crate::{SleepArgs, connect, obj, test_server};

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
