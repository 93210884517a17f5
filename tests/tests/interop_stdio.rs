//! Interop over stdio with the official SDKs:
//!
//! - our client (`mcp_core::client::Client` over `ChildProcess`) against the
//!   official TypeScript reference server `@modelcontextprotocol/server-everything`;
//! - the official Python SDK's client (`tests/interop/python_client.py`)
//!   against our server (`mcp serve everything`).
//!
//! Both need what `tests/interop/setup.sh` installs into `target/interop/`,
//! and fail (not skip) with instructions when it is missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::client::Client;
use mcp_core::schema::*;
use mcp_core::session::SessionConfig;
use mcp_core::transport::ChildProcess;
use mcp_test_support::{text, with_client};
use mcp_tests::everything;
use mcp_tests::interop::{
    LIMIT, NODE_VERSION, SERVER_EVERYTHING_VERSION, installed, mcp_binary, node, run_bounded,
    server_everything_dir, venv_python, workspace_root,
};
use serde_json::Value;

/// Longest one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Shows the reference server's stderr in the test's output (for diagnosis).
#[allow(clippy::print_stderr, reason = "the test harness captures it")]
fn server_stderr(line: &str) {
    eprintln!("[server-everything] {line}");
}

/// Our client, with sampling, elicitation and roots, connected to the
/// official everything server over stdio.
async fn connect_to_server_everything(sampled: Arc<Mutex<Vec<Value>>>) -> Client {
    let node = node();
    let version = Command::new(&node).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        NODE_VERSION,
        "unexpected Node.js: run `bash tests/interop/setup.sh`"
    );
    let dir = server_everything_dir();
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        package["version"], SERVER_EVERYTHING_VERSION,
        "unexpected server-everything version: run `bash tests/interop/setup.sh`"
    );
    // package.json's `bin` is dist/index.js; its first argument picks the transport.
    let entry = installed(dir.join("dist/index.js"), "server-everything's entry point");
    let child = ChildProcess::new(node)
        .arg(entry)
        .arg("stdio")
        .shutdown_grace(Duration::from_secs(1))
        .on_stderr(server_stderr);
    let connecting = Client::builder("libmcp-interop", "0.1.0")
        .session_config(SessionConfig::default().request_timeout(REQUEST_TIMEOUT))
        .on_sampling(false, move |params, _cx| {
            sampled
                .lock()
                .unwrap()
                .push(serde_json::to_value(&params).unwrap());
            async move {
                Ok(CreateMessageResult {
                    stop_reason: Some("endTurn".into()),
                    ..CreateMessageResult::new(
                        CreateMessageResultContent::TextContent(TextContent::new(
                            "sampled by libmcp",
                        )),
                        "libmcp-test-model",
                        Role::Assistant,
                    )
                })
            }
        })
        .roots(vec![Root {
            name: Some("interop root".into()),
            ..Root::new("file:///tmp/libmcp-interop-root")
        }])
        .connect(child);
    tokio::time::timeout(REQUEST_TIMEOUT, connecting)
        .await
        .expect("initializing with server-everything timed out")
        .expect("could not initialize with server-everything")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_official_everything_server() {
    let sampled = Arc::new(Mutex::new(Vec::new()));
    let client = connect_to_server_everything(sampled.clone()).await;
    with_client(client, LIMIT, move |client| async move {
        assert_eq!(client.server_info().name, "mcp-servers/everything");
        assert_eq!(
            client.protocol_version(),
            mcp_core::ProtocolVersion::V2025_11_25
        );
        assert!(client.instructions().is_some_and(|i| !i.is_empty()));
        client.ping().await.unwrap();

        // Tools: the fixed ones, and those registered because we offer
        // sampling and roots.
        everything::tools(
            &client,
            &[
                "echo",
                "get-sum",
                "get-tiny-image",
                "trigger-long-running-operation",
                "trigger-sampling-request",
                "get-roots-list",
            ],
            "hello from Rust",
        )
        .await;

        // The server asks us for a completion (sampling) ...
        everything::sampling(&client, &sampled, "sampled by libmcp").await;
        // ... and for our roots.
        let roots = client.call_tool("get-roots-list", None).await.unwrap();
        assert!(
            text(&roots, 0).contains("file:///tmp/libmcp-interop-root"),
            "{roots:?}"
        );

        everything::resources(&client).await;
        everything::prompts_and_completion(&client).await;

        client.set_logging_level(LoggingLevel::Error).await.unwrap();
        client.ping().await.unwrap();
    })
    .await;
}

#[test]
fn the_official_python_client_against_our_server() {
    let python = venv_python();
    let mcp = mcp_binary();
    let script = installed(
        workspace_root().join("tests/interop/python_client.py"),
        "the Python interop client",
    );
    let (code, stdout, stderr) = run_bounded(
        &python,
        &[
            script.as_os_str(),
            mcp.as_os_str(),
            "serve".as_ref(),
            "everything".as_ref(),
        ],
    );
    assert_eq!(
        code,
        Some(0),
        "the Python SDK's client failed against `mcp serve everything`\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        summary, "python interop: 10 passed, 0 failed",
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}
