//! The stdio client transport against real child processes: small fake
//! servers written in Python, so each fault can be staged exactly.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::transport::{ChildProcess, DEFAULT_MAX_MESSAGE_SIZE};

mod common;

/// A fake server: answers `initialize`, then behaves as `then` says for the
/// next request ("answer", "exit", "hang", "close-stdout", "kill-9": prints
/// its pid on stderr, then SIGKILLs itself; "huge" and "huge-id-last":
/// answers with 5 MiB, its id before or after the result).
fn fake_server(then: &str) -> ChildProcess {
    let script = r#"
import json, os, sys
mode = sys.argv[1]
def send(m):
    sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        sys.stderr.write("starting\n" * 2000); sys.stderr.flush()
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
            "serverInfo": {"name": "fake", "version": "1"}}})
    elif "id" in msg and "method" in msg:
        if mode == "answer":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
        elif mode == "exit":
            os._exit(7)
        elif mode == "close-stdout":
            sys.stdout.close(); os.close(1)
            import time; time.sleep(30)
        elif mode == "huge":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"x": "y" * (5 << 20)}})
        elif mode == "huge-id-last":
            send({"result": {"x": "y" * (5 << 20)}, "jsonrpc": "2.0", "id": msg["id"]})
        elif mode == "hang":
            import time; time.sleep(30)
        elif mode == "kill-9":
            sys.stderr.write("pid %d\n" % os.getpid()); sys.stderr.flush()
            import signal, time; time.sleep(0.1); os.kill(os.getpid(), signal.SIGKILL)
"#;
    ChildProcess::new("python3")
        .args(["-c", script, then])
        .shutdown_grace(Duration::from_millis(300))
}

#[tokio::test]
async fn talks_to_a_child_and_forwards_its_stderr() {
    let lines = Arc::new(Mutex::new(0usize));
    let counter = lines.clone();
    let server = fake_server("answer").on_stderr(move |_| *counter.lock().unwrap() += 1);
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(server)
        .await
        .unwrap();
    client.ping().await.unwrap();
    client.close().await;
    assert_eq!(
        *lines.lock().unwrap(),
        2000,
        "every stderr line is forwarded, none blocks the child"
    );
}

#[tokio::test]
async fn a_server_that_exits_at_once_fails_the_connect() {
    let started = Instant::now();
    let err = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(ChildProcess::new("python3").args(["-c", "import sys; sys.exit(3)"]))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ConnectionClosed(why) if why.contains("exit status: 3")),
        "{err}"
    );
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_program_that_does_not_exist_is_a_clear_error() {
    let err = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(ChildProcess::new("/nonexistent/mcp-server"))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Transport(e) if e.to_string().contains("/nonexistent/mcp-server")),
        "{err}"
    );
}

async fn pending_call_fails_fast(mode: &str, expect: &str) {
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(fake_server(mode))
        .await
        .unwrap();
    let started = Instant::now();
    let err = client
        .peer()
        .request_raw("tools/list", &serde_json::json!({}), Default::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ConnectionClosed(why) if why.contains(expect)),
        "{mode}: {err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{mode}: the pending call waited {:?}",
        started.elapsed()
    );
    client.close().await;
}

#[tokio::test]
async fn a_child_dying_mid_call_fails_the_call_at_once() {
    pending_call_fails_fast("exit", "exit status: 7").await;
}

#[tokio::test]
async fn a_child_closing_stdout_fails_the_call_at_once() {
    pending_call_fails_fast("close-stdout", "closed its stdout").await;
}

/// An answer over the message limit fails its call at once, with a message
/// that says so (not a timeout), and the session goes on.
#[tokio::test]
async fn an_oversize_answer_fails_the_call_at_once() {
    for mode in ["huge", "huge-id-last"] {
        let client = Client::builder("c", "1")
            .negotiation(Negotiation::Legacy)
            .connect(fake_server(mode))
            .await
            .unwrap();
        let started = Instant::now();
        let err = client
            .peer()
            .request_raw("tools/list", &serde_json::json!({}), Default::default())
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Transport(e) if e.to_string().contains(&format!("larger than the message limit of {DEFAULT_MAX_MESSAGE_SIZE} bytes"))),
            "{mode}: {err}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{mode}: the call waited {:?}",
            started.elapsed()
        );
        client.close().await;
    }
}

/// A request over the server's message limit is refused with its id, so the
/// call fails at once with the server's -32600, and the session goes on.
#[tokio::test]
async fn an_oversize_request_is_refused_at_once() {
    let binary = tokio::task::spawn_blocking(common::mcp_binary)
        .await
        .unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(ChildProcess::new(binary).args(["serve", "everything"]))
        .await
        .unwrap();
    let big = "x".repeat(DEFAULT_MAX_MESSAGE_SIZE + 1);
    let mut arguments = serde_json::Map::new();
    arguments.insert("message".into(), big.into());
    let started = Instant::now();
    let err = client.call_tool("echo", Some(arguments)).await.unwrap_err();
    assert!(
        matches!(&err, Error::Rpc(e) if e.code.0 == -32600 && e.message.contains(&format!("exceeds the limit of {DEFAULT_MAX_MESSAGE_SIZE} bytes"))),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "the call waited {:?}",
        started.elapsed()
    );
    client.ping().await.unwrap();
    client.close().await;
}

#[tokio::test]
async fn close_stops_a_hanging_child() {
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(fake_server("hang"))
        .await
        .unwrap();
    let peer = client.peer().clone();
    let call = tokio::spawn(async move {
        peer.request_raw("tools/list", &serde_json::json!({}), Default::default())
            .await
    });
    tokio::time::sleep(Duration::from_millis(100)).await;
    let started = Instant::now();
    client.close().await;
    // stdin closed → grace → SIGTERM: well under the child's 30 s sleep.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "close took {:?}",
        started.elapsed()
    );
    let err = call.await.unwrap().unwrap_err();
    assert!(matches!(err, Error::ConnectionClosed(_)), "{err}");
}

#[tokio::test]
async fn the_child_gets_only_a_safe_environment() {
    let script = r#"
import json, os, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "serverInfo": {"name": os.environ.get("CARGO_MANIFEST_DIR", "none") + "|" + os.environ.get("GIVEN", ""),
                           "version": "1"}}}) + "\n")
        sys.stdout.flush()
"#;
    let server = ChildProcess::new("python3")
        .args(["-c", script])
        .env("GIVEN", "yes");
    // cargo sets CARGO_MANIFEST_DIR for the test process; it is not in the
    // safe list, so the child must not see it.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(server)
        .await
        .unwrap();
    assert_eq!(client.server_info().name, "none|yes");
    client.close().await;
}

#[tokio::test]
async fn an_endless_stderr_line_is_cut_not_buffered() {
    let lines = Arc::new(Mutex::new(Vec::<usize>::new()));
    let seen = lines.clone();
    let script =
        "import sys; sys.stderr.write('x' * 5_000_000 + '\\nafter\\n'); sys.stderr.flush()";
    let err = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(
            ChildProcess::new("python3")
                .args(["-c", script])
                .on_stderr(move |line| seen.lock().unwrap().push(line.len())),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConnectionClosed(_)), "{err}");
    // Give the stderr reader a moment to finish after the exit.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let lines = lines.lock().unwrap().clone();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0] <= 8 * 1024,
        "the long line is cut to the limit: {}",
        lines[0]
    );
    assert_eq!(lines[1], "after".len());
}

#[tokio::test]
async fn a_child_killed_mid_call_fails_the_call_at_once_and_is_reaped() {
    let pid = Arc::new(Mutex::new(None::<u32>));
    let seen = pid.clone();
    let server = fake_server("kill-9").on_stderr(move |line| {
        if let Some(n) = line.strip_prefix("pid ") {
            *seen.lock().unwrap() = n.trim().parse().ok();
        }
    });
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(server)
        .await
        .unwrap();
    let started = Instant::now();
    let err = client
        .peer()
        .request_raw("tools/list", &serde_json::json!({}), Default::default())
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::ConnectionClosed(_)), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the pending call waited {:?}",
        started.elapsed()
    );
    client.close().await;
    let pid = pid.lock().unwrap().expect("the child printed its pid");
    // Reaped: no process (in particular no zombie) is left with that pid.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    assert!(
        !status.lines().any(|l| l.starts_with("State:")),
        "the killed child is still there: {status}"
    );
}
