//! What the fuzz targets drive that is not public API. Each function wraps
//! one internal in the smallest way that lets a target feed it bytes.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::transport::InboundFrame;

/// Runs the stdio line framer over `input`, read through a buffer of
/// `buffer` bytes (so that frames span reads), with a message limit of
/// `limit` bytes; returns the frames it delivered, then why it stopped.
pub async fn read_frames(input: &[u8], buffer: usize, limit: usize) -> (Vec<InboundFrame>, String) {
    // Room for every frame: at most one per input byte, plus one.
    let (tx, mut rx) = mpsc::channel(input.len() + 1);
    let reader = tokio::io::BufReader::with_capacity(buffer.max(1), input);
    let reason = crate::transport::read_frames(reader, &tx, limit, CancellationToken::new()).await;
    drop(tx);
    let mut frames = Vec::new();
    while let Some(frame) = rx.recv().await {
        frames.push(frame);
    }
    (frames, reason)
}

/// One SSE event as the parser dispatches it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `id` field.
    pub id: Option<String>,
    /// The `event` field.
    pub event: Option<String>,
    /// The data lines, joined with `\n`.
    pub data: String,
    /// The `retry` field.
    pub retry: Option<Duration>,
}

/// An SSE parser with an event size limit of `limit` bytes.
#[derive(Debug)]
pub struct SseParser(crate::transport::http::SseParser);

impl SseParser {
    /// A parser refusing events over `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self(crate::transport::http::SseParser::new(limit))
    }

    /// Feeds bytes; returns the events they complete, or why the stream is
    /// refused.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, String> {
        let events = self.0.feed(bytes).map_err(|e| e.0)?;
        Ok(events
            .into_iter()
            .map(|e| SseEvent {
                id: e.id,
                event: e.event,
                data: e.data,
                retry: e.retry,
            })
            .collect())
    }
}

/// Encodes one event as the server sends it.
pub fn encode_event(id: Option<&str>, data: &str, retry: Option<Duration>) -> String {
    crate::transport::http::encode_event(id, data, retry)
}
