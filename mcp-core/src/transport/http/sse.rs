//! Server-Sent Events: an incremental parser that accepts input split at any
//! byte, and the encoder for the events we send.

use std::time::Duration;

/// One dispatched event.
#[cfg(feature = "http-client")]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) id: Option<String>,
    pub(crate) event: Option<String>,
    pub(crate) data: String,
    pub(crate) retry: Option<Duration>,
}

/// Parses a byte stream into events (WHATWG HTML §9.2.6).
#[cfg(feature = "http-client")]
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    after_cr: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    id: Option<String>,
    retry: Option<Duration>,
    /// Most bytes one event may hold; longer lines are an error.
    limit: usize,
    /// The stream broke the protocol: nothing more is parsed.
    failed: Option<SseError>,
}

/// The stream broke the protocol or a limit.
#[cfg(feature = "http-client")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SseError(pub(crate) String);

#[cfg(feature = "http-client")]
impl SseParser {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// Feeds bytes; returns the events completed by them. Once the stream
    /// breaks the protocol every call fails; events completed before the
    /// fault in the same bytes are still returned, and the error comes with
    /// the next call (so the result does not depend on how the stream was
    /// split into chunks).
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        let mut events = Vec::new();
        match self.feed_into(bytes, &mut events) {
            Ok(()) => Ok(events),
            Err(error) => {
                self.failed = Some(error.clone());
                if events.is_empty() {
                    Err(error)
                } else {
                    Ok(events)
                }
            }
        }
    }

    fn feed_into(&mut self, bytes: &[u8], events: &mut Vec<SseEvent>) -> Result<(), SseError> {
        for &b in bytes {
            match b {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(event) = self.line_done(&line)? {
                        events.push(event);
                    }
                }
                _ => {
                    self.after_cr = false;
                    if self.line.len() + self.data.len() >= self.limit {
                        return Err(SseError(format!(
                            "an event exceeds the limit of {} bytes",
                            self.limit
                        )));
                    }
                    self.line.push(b);
                }
            }
        }
        Ok(())
    }

    fn line_done(&mut self, line: &[u8]) -> Result<Option<SseEvent>, SseError> {
        if line.is_empty() {
            return Ok(self.dispatch());
        }
        let line = std::str::from_utf8(line)
            .map_err(|_| SseError("an event is not valid UTF-8".into()))?;
        if line.starts_with(':') {
            return Ok(None);
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            // An id containing NUL is ignored (spec).
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry = Some(Duration::from_millis(ms));
                }
            }
            _ => {}
        }
        Ok(None)
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = SseEvent {
            id: self.id.take(),
            event: self.event.take(),
            data: std::mem::take(&mut self.data),
            retry: self.retry.take(),
        };
        let had_data = std::mem::replace(&mut self.has_data, false);
        // Events without data still carry an id (priming) or retry worth keeping.
        (had_data || event.id.is_some() || event.retry.is_some()).then_some(event)
    }
}

/// Encodes one event. `data` must be one line (JSON text has no raw newlines).
#[cfg(feature = "http-server")]
pub(crate) fn encode_event(id: Option<&str>, data: &str, retry: Option<Duration>) -> String {
    let mut out = String::with_capacity(data.len() + 48);
    push_event(&mut out, id, data, retry);
    out
}

/// Appends an event to `out`, written as [`encode_event`] writes it.
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
pub(crate) fn push_event(out: &mut String, id: Option<&str>, data: &str, retry: Option<Duration>) {
    if let Some(retry) = retry {
        out.push_str("retry: ");
        push_decimal(out, u64::try_from(retry.as_millis()).unwrap_or(u64::MAX));
        out.push('\n');
    }
    if let Some(id) = id {
        out.push_str("id: ");
        out.push_str(id);
        out.push('\n');
    }
    if data.is_empty() {
        out.push_str("data:\n");
    } else {
        out.push_str("event: message\n");
        // JSON text as serde_json writes it has no line breaks: one line.
        if memchr::memchr(b'\n', data.as_bytes()).is_none() {
            out.push_str("data: ");
            out.push_str(data);
            out.push('\n');
        } else {
            for line in data.split('\n') {
                out.push_str("data: ");
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out.push('\n');
}

/// Appends `n` in decimal (with `itoa`, not `fmt`'s machinery: event ids
/// are written for every event).
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_chunks(input: &[u8], chunk: usize) -> Vec<SseEvent> {
        let mut parser = SseParser::new(1 << 20);
        input
            .chunks(chunk)
            .flat_map(|c| parser.feed(c).unwrap())
            .collect()
    }

    #[test]
    fn survives_every_chunk_boundary() {
        let input = b"retry: 500\nid: s1-0\ndata:\n\n: comment\nevent: message\nid: s1-1\ndata: {\"a\":\r\ndata: 1}\r\n\r\nid: s1-2\rdata: x\r\r";
        let expected = parse_in_chunks(input, input.len());
        assert_eq!(expected.len(), 3);
        assert_eq!(expected[0].retry, Some(Duration::from_millis(500)));
        assert_eq!(expected[0].id.as_deref(), Some("s1-0"));
        assert_eq!(expected[1].data, "{\"a\":\n1}");
        assert_eq!(expected[2].data, "x");
        for chunk in 1..input.len() {
            assert_eq!(
                parse_in_chunks(input, chunk),
                expected,
                "chunk size {chunk}"
            );
        }
    }

    #[test]
    fn encoder_output_parses_back() {
        let text = encode_event(
            Some("s-7"),
            r#"{"jsonrpc":"2.0"}"#,
            Some(Duration::from_millis(250)),
        );
        let events = parse_in_chunks(text.as_bytes(), 3);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].id.as_deref(), Some("s-7"));
        assert_eq!(events[0].data, r#"{"jsonrpc":"2.0"}"#);
        assert_eq!(events[0].retry, Some(Duration::from_millis(250)));
        let priming = parse_in_chunks(encode_event(Some("s-0"), "", None).as_bytes(), 1);
        assert_eq!(priming[0].data, "");
        // Text with line breaks goes out as several data lines.
        let lines = encode_event(None, "{\n\"a\": 1\n}", None);
        assert_eq!(
            lines,
            "event: message\ndata: {\ndata: \"a\": 1\ndata: }\n\n"
        );
        assert_eq!(
            parse_in_chunks(lines.as_bytes(), 2)[0].data,
            "{\n\"a\": 1\n}"
        );
    }

    #[test]
    fn events_before_a_fault_are_kept() {
        let mut parser = SseParser::new(1 << 20);
        let events = parser.feed(b"id: 1\ndata: ok\n\ndata: \xff\n\n").unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].data, "ok");
        assert!(parser.feed(b"").is_err());
        assert!(parser.feed(b"data: more\n\n").is_err());
    }

    /// Parses in chunks, then feeds nothing: the events up to the first
    /// fault, and whether there was one.
    fn parse_all(input: &[u8], chunk: usize, limit: usize) -> (Vec<SseEvent>, bool) {
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

    /// Inputs the `sse_parser` fuzz target found, in its format (a chunk
    /// size byte, a limit byte, the stream): the same events whatever the
    /// chunking.
    #[test]
    fn fuzz_regressions() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fuzz/sse_parser");
        let mut replayed = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let data = std::fs::read(entry.unwrap().path()).unwrap();
            let [chunk, limit, input @ ..] = &data[..] else {
                continue;
            };
            let (chunk, limit) = (usize::from(*chunk % 16) + 1, usize::from(*limit) * 8 + 1);
            assert_eq!(
                parse_all(input, input.len().max(1), limit),
                parse_all(input, chunk, limit)
            );
            replayed += 1;
        }
        assert!(replayed > 0);
    }

    #[test]
    fn refuses_oversize_events() {
        let mut parser = SseParser::new(16);
        assert!(parser.feed(b"data: 0123456789abcdef0123\n").is_err());
    }
}
