//! `mcp resources subscribe URI` against an in-process server over
//! Streamable HTTP, at 2026-07-28 (`subscriptions/listen`) and in a
//! 2025-11-25 session (`resources/subscribe`): one JSON line per update of
//! that resource, none for others, and Ctrl-C (SIGINT) ends it with status 0.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::ReadResourceResult;
use mcp_core::server::{ResourceDef, Server};
use serde_json::Value;

const MCP: &str = env!("CARGO_BIN_EXE_mcp");
const WATCHED: &str = "test://watched";
const OTHER: &str = "test://other";
/// Longest any one wait may take.
const LIMIT: Duration = Duration::from_secs(20);

fn resource(uri: &str) -> ResourceDef {
    ResourceDef::new(uri, uri, |uri, _cx| async move {
        Ok(ReadResourceResult::text(uri, None, "content"))
    })
}

async fn serve() -> (Server, String) {
    let server = Server::builder("subscribe-test", "1.0.0")
        .resource(resource(WATCHED))
        .resource(resource(OTHER))
        .build();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let http = StreamableHttpServer::new(server.clone(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    (server, url)
}

/// Runs the command, announces updates until it has printed `wanted`
/// lines, then interrupts it; returns the lines (each parsed) and stderr.
async fn subscribe(protocol: &str, wanted: usize) -> (Vec<Value>, String) {
    let (server, url) = serve().await;
    let mut child = Command::new(MCP)
        .args([
            "--json",
            "--protocol",
            protocol,
            "resources",
            "subscribe",
            WATCHED,
            "--url",
            &url,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the mcp binary");
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let stderr = child.stderr.take().unwrap();
    let err = std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());

    let mut lines = Vec::new();
    let started = Instant::now();
    while lines.len() < wanted {
        assert!(
            started.elapsed() < LIMIT,
            "only {} of {wanted} updates printed: {lines:?}",
            lines.len()
        );
        // The command may not be listening yet: announce until it prints.
        server.notify_resource_updated(OTHER).await;
        server.notify_resource_updated(WATCHED).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        while let Ok(line) = rx.try_recv() {
            lines.push(serde_json::from_str::<Value>(&line).expect("a JSON line"));
        }
    }
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`mcp resources subscribe` did not stop on SIGINT");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let stderr = err.join().unwrap();
    assert_eq!(status.code(), Some(0), "stderr:\n{stderr}");
    (lines, stderr)
}

fn check(lines: &[Value], stderr: &str) {
    for line in lines {
        assert_eq!(line["method"], "notifications/resources/updated", "{line}");
        assert_eq!(line["params"]["uri"], WATCHED, "{line}");
    }
    assert!(stderr.contains("subscribed to test://watched"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_at_2026_listens() {
    let (lines, stderr) = subscribe("auto", 2).await;
    check(&lines, &stderr);
    // The listen's notifications carry its subscription id.
    assert!(
        lines[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].is_number(),
        "{}",
        lines[0]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscribe_in_a_2025_session() {
    let (lines, stderr) = subscribe("2025-11-25", 2).await;
    check(&lines, &stderr);
    assert!(lines[0]["params"].get("_meta").is_none(), "{}", lines[0]);
}
