use tokio::io::BufReader;
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
    fn start(self) -> crate::Result<TransportHandle> {
        let (in_tx, in_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let (out_tx, mut out_rx) = mpsc::channel(CHANNEL_CAPACITY);
        let close = CancellationToken::new();
        let done = CancellationToken::new();
        let (limit, stop) = (self.max_message_size, close.clone());
        tokio::spawn(async move {
            let stdin = BufReader::with_capacity(64 * 1024, tokio::io::stdin());
            let reason = read_frames(stdin, &in_tx, limit, stop).await;
            let _ = in_tx
                .send(InboundFrame::Closed(format!("stdin: {reason}")))
                .await;
        });
        let (stop, finished) = (close.clone(), done.clone());
        tokio::spawn(async move {
            let stdout = tokio::io::BufWriter::with_capacity(64 * 1024, tokio::io::stdout());
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
