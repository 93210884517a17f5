//! Interop at revision 2026-07-28: the official Python SDK's client (2.3)
//! and TypeScript SDK v2 client (npm `@modelcontextprotocol/client` 2.4),
//! each pinned to 2026-07-28 and in its `auto` mode, against `mcp serve
//! everything` over stdio and Streamable HTTP — tools, input-required
//! rounds (elicitation and sampling), resources, prompts (and, for Python,
//! completion and `subscriptions/listen`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use mcp_tests::interop::{
    installed, interop_dir, mcp_binary, node, run_bounded, venv_python, workspace_root,
};

fn python_client(mode: &str, transport: &str) {
    let script = installed(
        workspace_root().join("tests/interop/python_client_2026.py"),
        "the 2026-07-28 Python interop client",
    );
    let mcp = mcp_binary();
    let (code, stdout, stderr) = run_bounded(
        &venv_python(),
        &[
            script.as_os_str(),
            mode.as_ref(),
            transport.as_ref(),
            mcp.as_os_str(),
        ],
    );
    assert_eq!(
        code,
        Some(0),
        "the Python SDK's client ({mode}, {transport}) failed against `mcp serve everything`\n\
         stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("python 2026 interop: ") && summary.ends_with(" 0 failed"),
        "{summary}"
    );
}

#[test]
fn pinned_over_stdio() {
    python_client("2026-07-28", "stdio");
}

#[test]
fn pinned_over_http() {
    python_client("2026-07-28", "http");
}

#[test]
fn auto_over_stdio() {
    python_client("auto", "stdio");
}

#[test]
fn auto_over_http() {
    python_client("auto", "http");
}

/// Runs the TypeScript client script from beside the installed package (an
/// ES module resolves its imports from its own folder). Over HTTP it gets
/// the URL of a `mcp serve everything --http` started here and stopped by
/// PID.
fn ts_client(mode: &str, transport: &str) {
    let dir = installed(
        interop_dir().join("ts-client/node_modules/@modelcontextprotocol/client"),
        "@modelcontextprotocol/client",
    );
    let script = interop_dir().join("ts-client/ts_client_2026.mjs");
    std::fs::copy(
        workspace_root().join("tests/interop/ts_client_2026.mjs"),
        &script,
    )
    .unwrap();
    let mcp = mcp_binary();
    let mut server = None;
    let target = if transport == "stdio" {
        mcp.display().to_string()
    } else {
        let mut child = Command::new(&mcp)
            .args(["serve", "everything", "--http", "127.0.0.1:0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The server names its address on stderr.
        let mut line = String::new();
        BufReader::new(child.stderr.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        server = Some(child);
        line.trim()
            .rsplit(' ')
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let (code, stdout, stderr) = run_bounded(
        &node(),
        &[
            script.as_os_str(),
            mode.as_ref(),
            transport.as_ref(),
            target.as_ref(),
        ],
    );
    if let Some(mut server) = server {
        let _ = server.kill();
        let _ = server.wait();
    }
    assert!(dir.exists());
    assert_eq!(
        code,
        Some(0),
        "the TypeScript SDK v2 client ({mode}, {transport}) failed against `mcp serve everything`\n\
         stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("ts 2026 interop: ") && summary.ends_with(" 0 failed"),
        "{summary}"
    );
}

#[test]
fn typescript_pinned_over_stdio() {
    ts_client("pin", "stdio");
}

#[test]
fn typescript_pinned_over_http() {
    ts_client("pin", "http");
}

#[test]
fn typescript_auto_over_stdio() {
    ts_client("auto", "stdio");
}

#[test]
fn typescript_auto_over_http() {
    ts_client("auto", "http");
}
