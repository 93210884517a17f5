//! Newline-delimited JSON framing for byte streams (stdio), with a size limit.

use std::time::Duration;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::oversize::Ends;
use super::{InboundFrame, OutboundMessage};

/// Reads lines from `reader` and sends them as frames until end of input or
/// `stop`, then returns why it stopped (the caller sends the final
/// [`InboundFrame::Closed`]). Lines longer than `limit` are dropped whole and
/// reported (with the id of the request or response they were, when their
/// ends tell it: see [`oversize`](super::oversize)); empty lines are skipped;
/// a trailing `\r` is removed.
pub(crate) async fn read_frames<R: AsyncBufRead + Unpin>(
    mut reader: R,
    frames: &mpsc::Sender<InboundFrame>,
    limit: usize,
    stop: CancellationToken,
) -> String {
    // Holds a line that spans reads; a line found whole in the buffer (the
    // usual case) is copied once, straight into its frame.
    let mut line: Vec<u8> = Vec::new();
    // The ends of a line over the limit, being skipped.
    let mut oversize: Option<Ends> = None;
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    loop {
        let chunk = tokio::select! {
            r = reader.fill_buf() => r,
            () = &mut stopped => break "closed".to_string(),
        };
        let chunk = match chunk {
            Ok([]) => break "end of input".to_string(),
            Ok(chunk) => chunk,
            Err(e) => break format!("read failed: {e}"),
        };
        let Some(end) = memchr::memchr(b'\n', chunk) else {
            if let Some(ends) = &mut oversize {
                ends.push(chunk);
            } else if line.len() + chunk.len() > limit {
                oversize = Some(Ends::new(&line, chunk));
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
            let consumed = chunk.len();
            reader.consume(consumed);
            continue;
        };
        let frame = if let Some(mut ends) = oversize.take() {
            ends.push(&chunk[..end]);
            Some(ends.frame(limit))
        } else if line.len() + end > limit {
            let frame = Ends::new(&line, &chunk[..end]).frame(limit);
            line = Vec::new();
            Some(frame)
        } else if line.is_empty() {
            frame_of(&chunk[..end])
        } else {
            line.extend_from_slice(&chunk[..end]);
            let frame = frame_of(&line);
            line.clear();
            frame
        };
        reader.consume(end + 1);
        if let Some(frame) = frame {
            if frames.send(frame).await.is_err() {
                return "the session is gone".into();
            }
        }
    }
}

/// The frame for one line (without its `\n`): `None` for a blank line.
fn frame_of(line: &[u8]) -> Option<InboundFrame> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    Some(match std::str::from_utf8(line) {
        Ok(text) => InboundFrame::Message(text.to_owned()),
        Err(_) => InboundFrame::InvalidUtf8,
    })
}

/// How long closing may spend writing the messages queued before it.
const DRAIN_ON_CLOSE: Duration = Duration::from_secs(2);

/// Writes each message followed by `\n`, flushing when no more are queued.
/// Returns when the channel closes, `stop` fires, or a write fails. Messages
/// queued before `stop` are still written (for a short while): the answer a
/// handler gave just before the session was closed reaches the peer.
pub(crate) async fn write_frames<W: AsyncWrite + Unpin>(
    mut writer: W,
    messages: &mut mpsc::Receiver<OutboundMessage>,
    stop: &CancellationToken,
) -> std::io::Result<()> {
    let stopped = stop.cancelled();
    tokio::pin!(stopped);
    loop {
        let message = tokio::select! {
            m = messages.recv() => m,
            () = &mut stopped => {
                let drain = async {
                    while let Ok(queued) = messages.try_recv() {
                        write_line(&mut writer, &queued).await?;
                    }
                    writer.flush().await
                };
                return tokio::time::timeout(DRAIN_ON_CLOSE, drain)
                    .await
                    .unwrap_or(Ok(()));
            }
        };
        let Some(message) = message else {
            return writer.flush().await;
        };
        write_line(&mut writer, &message).await?;
        // Write what is already queued before paying for a flush.
        while let Ok(more) = messages.try_recv() {
            write_line(&mut writer, &more).await?;
        }
        writer.flush().await?;
    }
}

async fn write_line<W: AsyncWrite + Unpin>(
    writer: &mut W,
    message: &OutboundMessage,
) -> std::io::Result<()> {
    if !message.kind.is_message() {
        return Ok(());
    }
    writer.write_all(message.text.as_bytes()).await?;
    writer.write_all(b"\n").await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames read through a 3-byte buffer, so that every frame spans many
    /// reads.
    async fn frames_of(input: &[u8], limit: usize) -> Vec<String> {
        frames_with_buffer(input, limit, 3).await
    }

    async fn frames_with_buffer(input: &[u8], limit: usize, buffer: usize) -> Vec<String> {
        let (tx, mut rx) = mpsc::channel(16);
        let reader = tokio::io::BufReader::with_capacity(buffer, input);
        let reason = read_frames(reader, &tx, limit, CancellationToken::new()).await;
        tx.send(InboundFrame::Closed(reason)).await.unwrap();
        drop(tx);
        let mut out = Vec::new();
        while let Some(frame) = rx.recv().await {
            out.push(match frame {
                InboundFrame::Message(m) => m,
                InboundFrame::Oversize { limit } => format!("oversize>{limit}"),
                InboundFrame::InvalidUtf8 => "invalid-utf8".into(),
                InboundFrame::Closed(r) => format!("closed:{r}"),
                InboundFrame::RequestFailed { id, .. } => format!("failed:{id}"),
                InboundFrame::AuthorizationFailed { id, .. } => format!("unauthorized:{id}"),
                InboundFrame::OversizeRequest { limit, id } => format!("oversize>{limit}:{id}"),
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_across_reads() {
        let out = frames_of(b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\"", 100).await;
        assert_eq!(out, ["{\"a\":1}", "{\"b\":2}", "closed:end of input"]);
    }

    #[tokio::test]
    async fn drops_oversize_lines_and_goes_on() {
        let out = frames_of(b"0123456789abcdef\n{}\n", 8).await;
        assert_eq!(out, ["oversize>8", "{}", "closed:end of input"]);
    }

    #[tokio::test]
    async fn names_the_request_or_response_an_oversize_line_was() {
        let filler = "x".repeat(20_000);
        let input = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"m\",\"params\":{{\"t\":\"{filler}\"}}}}\n\
             {{\"result\":{{\"t\":\"{filler}\"}},\"jsonrpc\":\"2.0\",\"id\":\"r\"}}\r\n\
             {{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"params\":{{\"t\":\"{filler}\"}}}}\n{{}}\n"
        );
        for buffer in [3, 4096, 64 * 1024] {
            let out = frames_with_buffer(input.as_bytes(), 1000, buffer).await;
            assert_eq!(
                out,
                [
                    "oversize>1000:3",
                    "failed:r",
                    "oversize>1000",
                    "{}",
                    "closed:end of input"
                ],
                "buffer of {buffer} bytes"
            );
        }
    }

    #[tokio::test]
    async fn messages_queued_before_close_are_written() {
        let (tx, mut rx) = mpsc::channel(4);
        for text in ["one", "two"] {
            tx.send(OutboundMessage {
                text: text.into(),
                kind: super::super::OutboundKind::Response,
                related: None,
            })
            .await
            .unwrap();
        }
        let stop = CancellationToken::new();
        stop.cancel();
        let mut out = Vec::new();
        write_frames(&mut out, &mut rx, &stop).await.unwrap();
        assert_eq!(out, b"one\ntwo\n");
    }

    #[tokio::test]
    async fn reports_invalid_utf8() {
        let out = frames_of(b"\xff\xfe\n{}\n", 100).await;
        assert_eq!(out, ["invalid-utf8", "{}", "closed:end of input"]);
    }

    #[tokio::test]
    async fn whole_lines_in_one_read_obey_the_limit_too() {
        let input = b"12345678\n123456789\n  \r\n{}\r\n\xff\n";
        for buffer in [3, 4096] {
            let out = frames_with_buffer(input, 8, buffer).await;
            assert_eq!(
                out,
                [
                    "12345678",
                    "oversize>8",
                    "{}",
                    "invalid-utf8",
                    "closed:end of input"
                ],
                "buffer of {buffer} bytes"
            );
        }
    }
}
