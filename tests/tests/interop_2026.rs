//! Interop at revision 2026-07-28: the official Python SDK's client (2.3),
//! pinned to 2026-07-28 and in its `auto` mode, against `mcp serve
//! everything` over stdio and Streamable HTTP — tools, input-required
//! rounds (elicitation and sampling), resources, prompts, completion and
//! `subscriptions/listen` (`tests/interop/python_client_2026.py`).

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use mcp_tests::interop::{installed, mcp_binary, run_bounded, venv_python, workspace_root};

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
