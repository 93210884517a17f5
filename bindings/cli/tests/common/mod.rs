//! Running the `mcp` binary in the end-to-end tests: bounded, output
//! captured, the exit status read.

#![allow(
    dead_code,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "shared test helpers; not every test file uses each one"
)]

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub(crate) const MCP: &str = env!("CARGO_BIN_EXE_mcp");

/// What one run of `mcp` gave.
pub(crate) struct Run {
    pub(crate) status: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

impl Run {
    /// Stdout as JSON (fails the test if it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    /// Fails the test unless the exit status is `status`.
    pub(crate) fn expect(&self, status: i32) -> &Self {
        assert_eq!(
            self.status, status,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// Runs `mcp ARGS…`, killing it if it takes longer than `limit`.
pub(crate) fn mcp_within(limit: Duration, args: &[&str]) -> Run {
    mcp_with_env(limit, args, &[])
}

/// [`mcp_within`] with these environment variables set.
pub(crate) fn mcp_with_env(limit: Duration, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut child = Command::new(MCP)
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot start the mcp binary");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        stdout.read_to_string(&mut s).map(|_| s)
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        stderr.read_to_string(&mut s).map(|_| s)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`mcp {}` did not finish within {limit:?}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        status: status.code().expect("killed by a signal"),
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    }
}
