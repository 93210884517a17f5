//! The stdio line framer against a plain model of newline-delimited JSON:
//! every complete line is one frame (a trailing `\r` removed, blank lines
//! skipped), a line over the limit is reported and dropped, a line that is
//! not UTF-8 is reported, the unterminated tail is dropped at the end of
//! input; whatever the read buffer's size.

#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mcp_core::__fuzz::read_frames;
use mcp_core::transport::InboundFrame;

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
    })
}

#[derive(Debug, PartialEq)]
enum Frame {
    Message(String),
    Oversize,
    InvalidUtf8,
}

fn model(input: &[u8], limit: usize) -> Vec<Frame> {
    let mut frames = Vec::new();
    let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
    lines.pop(); // the unterminated tail (empty if the input ends with \n)
    for line in lines {
        if line.len() > limit {
            frames.push(Frame::Oversize);
            continue;
        }
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        frames.push(match std::str::from_utf8(line) {
            Ok(text) => Frame::Message(text.to_string()),
            Err(_) => Frame::InvalidUtf8,
        });
    }
    frames
}

fuzz_target!(|data: &[u8]| {
    let [buffer, limit, input @ ..] = data else {
        return;
    };
    let (buffer, limit) = (usize::from(*buffer % 64) + 1, usize::from(*limit) * 4);
    let (frames, reason) = runtime().block_on(read_frames(input, buffer, limit));
    assert_eq!(reason, "end of input");
    let frames: Vec<Frame> = frames
        .into_iter()
        .map(|f| match f {
            InboundFrame::Message(text) => Frame::Message(text),
            InboundFrame::Oversize { limit: l }
            | InboundFrame::OversizeRequest { limit: l, .. } => {
                assert_eq!(l, limit);
                Frame::Oversize
            }
            // An oversize answer whose id could be read.
            InboundFrame::RequestFailed { .. } => Frame::Oversize,
            InboundFrame::InvalidUtf8 => Frame::InvalidUtf8,
            other => panic!("the framer never sends {other:?}"),
        })
        .collect();
    assert_eq!(frames, model(input, limit));
});
