//! Starting and stopping the programs under test. Every child is stopped by
//! its own PID: stdin closed first (each program exits on end of input),
//! then killed if it has not exited within a bound.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::Error;

/// Where the benchmark's own binaries are: beside the driver.
pub fn sibling(name: &str) -> Result<PathBuf, Error> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let path = exe
        .parent()
        .map(|dir| dir.join(name))
        .ok_or("the driver has no directory")?;
    if !path.exists() {
        return Err(format!(
            "{} is missing: build with `cargo build --release -p mcp-bench`",
            path.display()
        )
        .into());
    }
    Ok(path)
}

/// The workspace root (for the Python scripts and venvs).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether children may write to our stderr (`MCP_BENCH_VERBOSE=1`).
fn child_stderr() -> Stdio {
    if std::env::var_os("MCP_BENCH_VERBOSE").is_some() {
        Stdio::inherit()
    } else {
        Stdio::null()
    }
}

/// A command with piped stdin and stdout.
pub fn piped(program: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(child_stderr());
    command
}

/// Closes the child's stdin, waits up to `grace` for it to exit, then kills
/// it (by its PID, which `Child` holds) and reaps it.
pub fn stop(mut child: Child, grace: Duration) {
    drop(child.stdin.take());
    let deadline = Instant::now() + grace;
    while Instant::now() < deadline {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => return,
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A server process listening on a loopback address it printed.
#[derive(Debug)]
pub struct Listening {
    pub child: Child,
    pub addr: std::net::SocketAddr,
}

impl Listening {
    /// Starts `program args…` and reads `listening on ADDR` from its stdout.
    pub fn start(program: &Path, args: &[&str]) -> Result<Self, Error> {
        let mut child = piped(program, args)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let addr = match child.stdout.take().map(read_address) {
            Some(Ok(addr)) => addr,
            Some(Err(e)) => {
                stop(child, Duration::from_secs(1));
                return Err(format!("{}: {e}", program.display()).into());
            }
            None => return Err("no stdout".into()),
        };
        if !addr.ip().is_loopback() {
            stop(child, Duration::from_secs(1));
            return Err(format!("{} bound {addr}, not loopback", program.display()).into());
        }
        Ok(Self { child, addr })
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stop(self) {
        stop(self.child, Duration::from_secs(2));
    }
}

fn read_address(stdout: ChildStdout) -> Result<std::net::SocketAddr, String> {
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    line.trim()
        .strip_prefix("listening on ")
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("expected `listening on ADDR`, got {line:?}"))
}

/// The resident set size of process `pid`, in KiB.
pub fn rss_kib(pid: u32) -> Result<u64, Error> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("reading /proc/{pid}/status: {e}"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| "no VmRSS in /proc/PID/status".into())
}
