//! The official Python SDK's client (`tests/interop/python_axum_client.py`)
//! against `mcp-core/examples/axum_auth.rs`: libmcp mounted under `/mcp` of
//! an axum application behind its bearer-token layer, CORS and tracing.
//! Without a token the client gets 401; with it, the `whoami` tool answers
//! with the identity the layer put into the request's extensions, in a
//! 2025-11-25 session and at 2026-07-28.
//!
//! Needs the Python venv `tests/interop/setup.sh` installs; fails (not
//! skips) with instructions when it is missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_test_support::mcp_core_example;
use mcp_tests::interop::{installed, run_bounded, venv_python, workspace_root};

/// Longest the example may take to start listening.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The example running on 127.0.0.1; dropping it kills it by PID.
struct Example {
    child: Child,
    stderr: mpsc::Receiver<String>,
}

impl Drop for Example {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Example {
    /// Starts the example on a free loopback port with `token`; returns it
    /// and its endpoint's URL.
    fn start(token: &str) -> (Self, String) {
        let mut child = Command::new(mcp_core_example("axum_auth"))
            .args(["127.0.0.1:0", token])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the axum_auth example starts");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (lines, stdout_lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let (log, stderr_lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = BufReader::new(stderr).read_to_string(&mut text);
            let _ = log.send(text);
        });
        let example = Self {
            child,
            stderr: stderr_lines,
        };
        let first = stdout_lines
            .recv_timeout(STARTUP_TIMEOUT)
            .expect("the example prints where it listens");
        let url = first
            .strip_prefix("listening on ")
            .expect("`listening on URL`")
            .to_string();
        assert!(url.starts_with("http://127.0.0.1:"), "{url}");
        (example, url)
    }

    /// Stops the example and returns its log (stderr).
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_default()
    }
}

#[test]
fn the_official_python_client_through_an_auth_layer() {
    let python = venv_python();
    let script = installed(
        workspace_root().join("tests/interop/python_axum_client.py"),
        "the Python axum interop client",
    );
    let token = "interop-token";
    let (example, url) = Example::start(token);
    let (code, stdout, stderr) =
        run_bounded(&python, &[script.as_os_str(), url.as_ref(), token.as_ref()]);
    let log = example.stop();
    assert_eq!(
        code,
        Some(0),
        "the Python SDK's client failed against the axum example\nstdout:\n{stdout}\
         \nstderr:\n{stderr}\nexample log:\n{log}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        summary, "python axum interop: 6 passed, 0 failed",
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    // The tool's log line ran inside libmcp's request span, inside the
    // application's HTTP request span (tower-http's TraceLayer).
    let nested = log.lines().any(|line| {
        line.contains("[request method=POST")
            && line.contains("[mcp.request otel.name=\"tools/call\"")
            && line.contains("otel.kind=\"server\" mcp.method.name=\"tools/call\"")
            && line.contains("gen_ai.tool.name=\"whoami\"")
            && line.contains("message=whoami")
    });
    assert!(nested, "no nested whoami log line:\n{log}");
}
