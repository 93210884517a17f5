use tokio::io::{AsyncRead, AsyncWrite, BufReader, BufWriter};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::framing::{read_frames, write_frames};
use super::{CHANNEL_CAPACITY, DEFAULT_MAX_MESSAGE_SIZE, InboundFrame, Transport, TransportHandle};

/// The server side of the stdio transport: reads messages from this
/// process's stdin and writes them to its stdout, one JSON text per line.
/// Nothing else may write to stdout; log to stderr.
#[derive(Debug, Clone)]
pub struct Stdio {
    max_message_size: usize,
}

impl Default for Stdio {
    fn default() -> Self {
        Self::new()
    }
}

impl Stdio {
    /// Stdio with the default 4 MiB message limit.
    pub fn new() -> Self {
        Self {
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
        }
    }

    /// Sets the largest message accepted from stdin.
    #[must_use]
    pub fn with_max_message_size(mut self, bytes: usize) -> Self {
        self.max_message_size = bytes;
        self
    }
}

impl Transport for Stdio {
    fn network_transport(&self) -> Option<&'static str> {
        Some("pipe")
    }

    fn start(self) -> crate::Result<TransportHandle> {
        let (in_tx, in_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (out_tx, mut out_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let close = CancellationToken::new();
        let done = CancellationToken::new();
        let (limit, stop) = (self.max_message_size, close.clone());
        let input = stdin();
        tokio::spawn(async move {
            let stdin = BufReader::with_capacity(64 * 1024, input);
            let reason = read_frames(stdin, &in_tx, limit, stop).await;
            let _ = in_tx
                .send(InboundFrame::Closed(format!("stdin: {reason}")))
                .await;
        });
        let (stop, finished) = (close.clone(), done.clone());
        let output = stdout();
        tokio::spawn(async move {
            let stdout = BufWriter::with_capacity(64 * 1024, output);
            if let Err(e) = write_frames(stdout, &mut out_rx, &stop).await {
                tracing::warn!("stdout closed: {e}");
            }
            finished.cancel();
        });
        Ok(TransportHandle {
            inbound: in_rx,
            outbound: out_tx,
            close,
            done,
        })
    }
}

/// Stdin for the read task: the pipe itself, read by the runtime's reactor,
/// when stdin is an anonymous pipe (how MCP clients start servers);
/// otherwise Tokio's stdin, which reads on a blocking thread.
fn stdin() -> Box<dyn AsyncRead + Send + Unpin> {
    match pipe::receiver() {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdin()),
    }
}

/// Stdout for the write task, like [`stdin`].
fn stdout() -> Box<dyn AsyncWrite + Send + Unpin> {
    match pipe::sender() {
        Some(pipe) => Box::new(pipe),
        None => Box::new(tokio::io::stdout()),
    }
}

/// Reading and writing stdio pipes without a thread hop per read or write.
///
/// Tokio's stdin and stdout do each read and write on the blocking thread
/// pool, so every message crosses threads twice. An anonymous pipe can
/// instead be driven by the reactor in non-blocking mode — but setting
/// `O_NONBLOCK` on fd 0 or 1 would change the open file description this
/// process shares with its parent (and with stderr under `2>&1`). So the
/// pipe is opened anew through `/proc/self/fd/N`, which gives a description
/// of our own, and only that one is made non-blocking.
#[cfg(target_os = "linux")]
mod pipe {
    use std::fs::OpenOptions;
    use std::os::unix::fs::FileTypeExt;

    use tokio::net::unix::pipe::{Receiver, Sender};

    /// `/proc/self/fd/N` if fd N is an anonymous pipe (not a named FIFO,
    /// whose opening could block, nor a terminal, file or socket).
    fn anonymous_pipe(fd: u32) -> Option<String> {
        let path = format!("/proc/self/fd/{fd}");
        let target = std::fs::read_link(&path).ok()?;
        let is_pipe = target.to_str().is_some_and(|t| t.starts_with("pipe:"));
        let is_fifo = std::fs::metadata(&path).is_ok_and(|m| m.file_type().is_fifo());
        (is_pipe && is_fifo).then_some(path)
    }

    pub(super) fn receiver() -> Option<Receiver> {
        let path = anonymous_pipe(0)?;
        let file = OpenOptions::new().read(true).open(path).ok()?;
        // Checks that it is a pipe opened for reading; sets O_NONBLOCK.
        Receiver::from_file(file).ok()
    }

    pub(super) fn sender() -> Option<Sender> {
        let path = anonymous_pipe(1)?;
        let file = OpenOptions::new().write(true).open(path).ok()?;
        Sender::from_file(file).ok()
    }
}

#[cfg(not(target_os = "linux"))]
mod pipe {
    pub(super) fn receiver() -> Option<tokio::io::Stdin> {
        None
    }

    pub(super) fn sender() -> Option<tokio::io::Stdout> {
        None
    }
}
