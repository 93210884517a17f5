use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio as StdStdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::framing::{read_frames, write_frames};
use super::{CHANNEL_CAPACITY, DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, Transport, TransportHandle};

/// Environment variables passed to the server when the parent's environment
/// is not inherited: enough to find programs and run them, and no secrets.
const SAFE_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR", "TZ",
];

/// Longest stderr line forwarded; the rest of the line is dropped.
const MAX_STDERR_LINE: usize = 8 * 1024;

type StderrSink = Arc<dyn Fn(&str) + Send + Sync>;

/// The client side of the stdio transport: spawns the server as a child
/// process and talks to it over its stdin and stdout.
///
/// - The child gets only a small safe set of environment variables (`PATH`,
///   `HOME`, `LANG`, …) plus those set with [`env`](Self::env), unless
///   [`inherit_env`](Self::inherit_env) is called.
/// - Its stderr is forwarded line by line to `tracing` (target
///   `mcp_core::child_stderr`) or to [`on_stderr`](Self::on_stderr).
/// - It runs in its own process group. Closing the session closes its stdin,
///   waits [`shutdown_grace`](Self::shutdown_grace) for it to exit, then sends
///   SIGTERM to the group, waits again, then SIGKILL.
/// - Its exit is noticed at once and fails every pending request.
#[derive(Clone)]
pub struct ChildProcess {
    program: OsString,
    args: Vec<OsString>,
    env: HashMap<OsString, OsString>,
    inherit_env: bool,
    cwd: Option<PathBuf>,
    max_message_size: usize,
    grace: Duration,
    stderr: Option<StderrSink>,
}

impl fmt::Debug for ChildProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Environment values may be secrets: show only their names.
        f.debug_struct("ChildProcess")
            .field("program", &self.program)
            .field("args", &self.args)
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("inherit_env", &self.inherit_env)
            .field("cwd", &self.cwd)
            .finish_non_exhaustive()
    }
}

impl ChildProcess {
    /// A server started as `program`.
    pub fn new(program: impl Into<OsString>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: HashMap::new(),
            inherit_env: false,
            cwd: None,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            grace: Duration::from_secs(2),
            stderr: None,
        }
    }

    /// Adds one argument.
    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<I: IntoIterator<Item = S>, S: Into<OsString>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for the child.
    #[must_use]
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Passes this process's whole environment to the child (off by default,
    /// so that secrets in the environment do not leak to servers).
    #[must_use]
    pub fn inherit_env(mut self, inherit: bool) -> Self {
        self.inherit_env = inherit;
        self
    }

    /// Sets the child's working directory.
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// Sets the largest message accepted from the child (default 4 MiB).
    #[must_use]
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }

    /// How long to wait after closing stdin, and again after SIGTERM
    /// (default 2 s each).
    #[must_use]
    pub fn shutdown_grace(mut self, grace: Duration) -> Self {
        self.grace = grace;
        self
    }

    /// Receives each line the child writes to stderr (instead of `tracing`).
    #[must_use]
    pub fn on_stderr(mut self, sink: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr = Some(Arc::new(sink));
        self
    }

    fn command(&self) -> Command {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .stdin(StdStdio::piped())
            .stdout(StdStdio::piped())
            .stderr(StdStdio::piped())
            .kill_on_drop(true);
        group::start_own(&mut command);
        if !self.inherit_env {
            command.env_clear();
            for key in SAFE_ENV {
                if let Some(value) = std::env::var_os(key) {
                    command.env(key, value);
                }
            }
        }
        command.envs(&self.env);
        if let Some(cwd) = &self.cwd {
            command.current_dir(cwd);
        }
        command
    }
}

impl Transport for ChildProcess {
    fn network_transport(&self) -> Option<&'static str> {
        Some("pipe")
    }

    /// The same command, started again (the probe's fallback for servers
    /// that exit on an unknown first request).
    fn fresh(&self) -> Option<Self> {
        Some(self.clone())
    }

    fn start(self) -> crate::Result<TransportHandle> {
        let mut child = self.command().spawn().map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("cannot start {}: {e}", self.program.to_string_lossy()),
            )
        })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(std::io::Error::other("the child's stdio was not piped").into());
        };
        let pgid = group::of(&child);

        let (in_tx, in_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (out_tx, mut out_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let close = CancellationToken::new();
        let done = CancellationToken::new();

        // stdin writer: ends on close, which closes the child's stdin.
        let stop = close.clone();
        tokio::spawn(async move {
            if let Err(e) = write_frames(stdin, &mut out_rx, &stop).await {
                tracing::debug!("child stdin closed: {e}");
            }
        });

        // stdout reader.
        let (reader_done_tx, reader_done) = oneshot::channel();
        let (frames, limit, stop) = (
            in_tx.clone(),
            self.max_message_size,
            CancellationToken::new(),
        );
        let reader_stop = stop.clone();
        tokio::spawn(async move {
            let reason = read_frames(BufReader::new(stdout), &frames, limit, stop).await;
            let _ = reader_done_tx.send(reason);
        });

        tokio::spawn(forward_stderr(stderr, self.stderr.clone()));

        tokio::spawn(supervise(Supervised {
            child,
            pgid,
            grace: self.grace,
            inbound: in_tx,
            reader_done,
            reader_stop,
            close: close.clone(),
            done: done.clone(),
        }));

        Ok(TransportHandle {
            inbound: in_rx,
            outbound: out_tx,
            close,
            done,
        })
    }
}

struct Supervised {
    child: Child,
    pgid: Option<group::Group>,
    grace: Duration,
    inbound: mpsc::Sender<InboundFrame>,
    reader_done: oneshot::Receiver<String>,
    reader_stop: CancellationToken,
    close: CancellationToken,
    done: CancellationToken,
}

/// Watches the child: reports its exit or the end of its stdout to the
/// session, and runs the shutdown sequence when the session closes.
async fn supervise(mut s: Supervised) {
    let reason = tokio::select! {
        status = s.child.wait() => {
            // Let the reader deliver what the child wrote before exiting.
            let _ = tokio::time::timeout(Duration::from_millis(500), &mut s.reader_done).await;
            Some(exit_reason(status))
        }
        reason = &mut s.reader_done => {
            // End of stdout usually means the process is exiting: report its
            // exit status when it comes soon.
            match tokio::time::timeout(Duration::from_millis(200), s.child.wait()).await {
                Ok(status) => Some(exit_reason(status)),
                Err(_) => Some(format!("the server closed its stdout ({})", reason.unwrap_or_default())),
            }
        }
        () = s.close.cancelled() => None,
    };
    s.reader_stop.cancel();
    if let Some(reason) = reason {
        let _ = s.inbound.send(InboundFrame::Closed(reason)).await;
    }
    shut_down(&mut s.child, s.pgid, s.grace, &s.close).await;
    s.done.cancel();
}

fn exit_reason(status: std::io::Result<ExitStatus>) -> String {
    match status {
        Ok(status) => format!("the server process exited ({status})"),
        Err(e) => format!("the server process could not be waited for: {e}"),
    }
}

/// Close stdin (the writer stops on `close`), wait, SIGTERM, wait, SIGKILL —
/// each signal to the whole process group — then reap.
async fn shut_down(
    child: &mut Child,
    pgid: Option<group::Group>,
    grace: Duration,
    close: &CancellationToken,
) {
    close.cancel();
    if matches!(child.try_wait(), Ok(Some(_))) {
        group::kill(pgid);
        return;
    }
    if tokio::time::timeout(grace, child.wait()).await.is_ok() {
        group::kill(pgid);
        return;
    }
    group::terminate(pgid);
    if tokio::time::timeout(grace, child.wait()).await.is_ok() {
        group::kill(pgid);
        return;
    }
    group::kill(pgid);
    let _ = child.kill().await;
}

/// The child's process group: its own, so that shutting it down reaches
/// whatever it started too. Unix only; elsewhere the child alone is killed
/// after the grace periods (no SIGTERM, no group).
#[cfg(unix)]
mod group {
    use nix::sys::signal::{Signal, killpg};
    use tokio::process::{Child, Command};

    pub(super) type Group = nix::unistd::Pid;

    pub(super) fn start_own(command: &mut Command) {
        command.process_group(0);
    }

    pub(super) fn of(child: &Child) -> Option<Group> {
        child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .map(Group::from_raw)
    }

    pub(super) fn terminate(group: Option<Group>) {
        signal(group, Signal::SIGTERM);
    }

    pub(super) fn kill(group: Option<Group>) {
        signal(group, Signal::SIGKILL);
    }

    fn signal(group: Option<Group>, signal: Signal) {
        if let Some(group) = group {
            // ESRCH (group already gone) is the normal case after a clean exit.
            let _ = killpg(group, signal);
        }
    }
}

#[cfg(not(unix))]
mod group {
    use tokio::process::{Child, Command};

    pub(super) type Group = ();

    pub(super) fn start_own(_command: &mut Command) {}

    pub(super) fn of(_child: &Child) -> Option<Group> {
        None
    }

    pub(super) fn terminate(_group: Option<Group>) {}

    pub(super) fn kill(_group: Option<Group>) {}
}

async fn forward_stderr(stderr: tokio::process::ChildStderr, sink: Option<StderrSink>) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match (&mut reader)
            .take(MAX_STDERR_LINE as u64)
            .read_until(b'\n', &mut line)
            .await
        {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.last() != Some(&b'\n') && line.len() >= MAX_STDERR_LINE {
            // Skip the rest of an overlong line, a bounded chunk at a time,
            // so a child flooding one endless line cannot grow our memory.
            let mut rest = Vec::with_capacity(MAX_STDERR_LINE);
            loop {
                rest.clear();
                match (&mut reader)
                    .take(MAX_STDERR_LINE as u64)
                    .read_until(b'\n', &mut rest)
                    .await
                {
                    Ok(0) | Err(_) => return,
                    Ok(_) if rest.last() == Some(&b'\n') => break,
                    Ok(_) => {}
                }
            }
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end();
        match &sink {
            Some(sink) => sink(text),
            None => tracing::info!(target: "mcp_core::child_stderr", "{text}"),
        }
    }
}
