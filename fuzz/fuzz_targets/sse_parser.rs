//! The SSE parser: the same events whatever the chunking of the input, and
//! every event it reads encodes and parses back to itself.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_core::__fuzz::{SseEvent, SseParser, encode_event};

/// Parses `input` in chunks of `chunk` bytes, then feeds nothing (where a
/// fault found with events before it is reported): the events up to the
/// first fault, and whether there was one.
fn parse(input: &[u8], chunk: usize, limit: usize) -> (Vec<SseEvent>, bool) {
    let mut parser = SseParser::new(limit);
    let mut events = Vec::new();
    for part in input.chunks(chunk).chain([&[][..]]) {
        match parser.feed(part) {
            Ok(more) => events.extend(more),
            Err(_) => return (events, true),
        }
    }
    (events, false)
}

fuzz_target!(|data: &[u8]| {
    let [chunk, limit, input @ ..] = data else {
        return;
    };
    let chunk = usize::from(*chunk % 16) + 1;
    let limit = usize::from(*limit) * 8 + 1;
    let whole = parse(input, input.len().max(1), limit);
    let chunked = parse(input, chunk, limit);
    assert_eq!(whole, chunked, "chunks of {chunk}");
    for event in &whole.0 {
        let text = encode_event(event.id.as_deref(), &event.data, event.retry);
        let (again, failed) = parse(text.as_bytes(), text.len().max(1), usize::MAX);
        assert!(!failed, "{text:?}");
        assert_eq!(again.len(), 1, "{text:?}");
        let again = &again[0];
        assert_eq!(
            (&again.id, &again.data, again.retry),
            (&event.id, &event.data, event.retry),
            "{text:?}"
        );
    }
});
