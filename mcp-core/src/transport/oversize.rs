//! What is left of a message over the size limit. The framer keeps only its
//! first and last bytes; they usually say whether it was a request or a
//! response and with which id, which turns a silent drop into an answer: a
//! request is refused with its own id (so the sender's call fails at once),
//! and the call waiting for a response fails at once instead of timing out.

use super::InboundFrame;
use crate::schema::RequestId;

/// Bytes kept from each end of an oversize message.
pub(crate) const KEPT: usize = 4096;

/// The first and last [`KEPT`] bytes of a message being dropped.
#[derive(Debug, Default)]
pub(crate) struct Ends {
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Ends {
    /// Starts with the bytes read so far.
    pub(crate) fn new(first: &[u8], more: &[u8]) -> Self {
        let mut ends = Self::default();
        ends.push(first);
        ends.push(more);
        ends
    }

    /// Adds the next bytes of the message.
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        if self.head.len() < KEPT {
            let room = KEPT - self.head.len();
            self.head.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        let bytes = &bytes[bytes.len().saturating_sub(KEPT)..];
        self.tail.extend_from_slice(bytes);
        if self.tail.len() > KEPT {
            self.tail.drain(..self.tail.len() - KEPT);
        }
    }

    /// The frame for the dropped message.
    pub(crate) fn frame(&self, limit: usize) -> InboundFrame {
        oversize_frame(&self.head, &self.tail, limit)
    }
}

/// The frame for a message over `limit` of which `head` and `tail` are the
/// first and last bytes.
fn oversize_frame(head: &[u8], tail: &[u8], limit: usize) -> InboundFrame {
    let front = scan_head(head);
    let id = front.id.or_else(|| last_member_id(tail));
    match (id, front.kind) {
        (Some(id), Some(Kind::Request)) => InboundFrame::OversizeRequest { limit, id },
        (Some(id), Some(Kind::Response)) => InboundFrame::RequestFailed {
            id,
            reason: format!(
                "the answer is larger than the message limit of {limit} bytes and was dropped"
            ),
        },
        _ => InboundFrame::Oversize { limit },
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Request,
    Response,
}

#[derive(Debug, Default)]
struct Front {
    id: Option<RequestId>,
    kind: Option<Kind>,
}

/// Reads the top-level members of a JSON object from its first bytes, as far
/// as they go: the `id`, and `method` (a request) or `result`/`error` (a
/// response). Values are skipped, strings and nesting respected.
fn scan_head(bytes: &[u8]) -> Front {
    let mut front = Front::default();
    let mut at = skip_ws(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return front;
    }
    at += 1;
    loop {
        at = skip_ws(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            return front;
        }
        let Some(key_end) = string_end(bytes, at) else {
            return front;
        };
        let key = serde_json::from_slice::<String>(&bytes[at..key_end]).unwrap_or_default();
        at = skip_ws(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            return front;
        }
        at = skip_ws(bytes, at + 1);
        // The key tells the kind even when its value runs past the end.
        let kind = match key.as_str() {
            "method" => Some(Kind::Request),
            "result" | "error" => Some(Kind::Response),
            _ => None,
        };
        if let Some(kind) = kind {
            if front.kind.is_some_and(|k| k != kind) {
                return Front::default();
            }
            front.kind = Some(kind);
        }
        let Some(value_end) = value_end(bytes, at) else {
            return front;
        };
        if key == "id" {
            front.id = serde_json::from_slice(&bytes[at..value_end]).ok();
        }
        at = skip_ws(bytes, value_end);
        if bytes.get(at) != Some(&b',') {
            return front;
        }
        at += 1;
    }
}

/// The id when it is the last member of the top-level object: the message
/// ends with `"id": <string or integer> }`, the `}` closing the message
/// (and so the object the `"id"` key belongs to).
fn last_member_id(bytes: &[u8]) -> Option<RequestId> {
    let end = bytes.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if bytes[end] != b'}' {
        return None;
    }
    let value_last = bytes[..end]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    let value_start = if bytes[value_last] == b'"' {
        // Back to the opening quote: the first unescaped `"` before it.
        let mut i = value_last;
        loop {
            i = bytes[..i].iter().rposition(|&b| b == b'"')?;
            let backslashes = bytes[..i].iter().rev().take_while(|&&b| b == b'\\').count();
            if backslashes % 2 == 0 {
                break i;
            }
        }
    } else {
        bytes[..=value_last]
            .iter()
            .rposition(|b| !(b.is_ascii_digit() || *b == b'-'))?
            + 1
    };
    let colon = bytes[..value_start]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    if bytes[colon] != b':' {
        return None;
    }
    let key_end = bytes[..colon]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    let key = bytes[..=key_end].strip_suffix(b"\"id\"")?;
    // The key's opening quote is a real one: a member starts after `,` or `{`.
    let before = key.iter().rposition(|b| !b.is_ascii_whitespace())?;
    if !matches!(key[before], b',' | b'{') {
        return None;
    }
    serde_json::from_slice(&bytes[value_start..=value_last]).ok()
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

/// The index after the string starting at `at` (a `"`), if it ends here.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The index after the value starting at `at`, if it ends within `bytes`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let len = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())?;
            Some(at + len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_of(message: &str) -> String {
        let bytes = message.as_bytes();
        let mut ends = Ends::default();
        // In small pieces, as a reader delivers them.
        for piece in bytes.chunks(7) {
            ends.push(piece);
        }
        match ends.frame(10) {
            InboundFrame::OversizeRequest { id, .. } => format!("request {id}"),
            InboundFrame::RequestFailed { id, .. } => format!("response {id}"),
            InboundFrame::Oversize { .. } => "unknown".into(),
            other => format!("{other:?}"),
        }
    }

    fn big() -> String {
        format!(
            r#"{{"text":"{}","nested":{{"id":99,"result":[1,{{"}}":"]"}}]}}}}"#,
            "x".repeat(3 * KEPT)
        )
    }

    #[test]
    fn reads_the_id_and_kind_from_the_front() {
        let params = big();
        let request =
            format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{params}}}"#);
        assert_eq!(frame_of(&request), "request 7");
        let response = format!(r#"{{"jsonrpc":"2.0","id":"a\"b","result":{params}}}"#);
        assert_eq!(frame_of(&response), r#"response a"b"#);
        let error =
            format!(r#"{{ "id" : -3 , "error" : {{"code":1,"message":"m","data":{params}}}}}"#);
        assert_eq!(frame_of(&error), "response -3");
    }

    #[test]
    fn reads_an_id_written_last() {
        let params = big();
        // The TypeScript SDK writes `result` first and `id` last.
        let response = format!(r#"{{"result":{params},"jsonrpc":"2.0","id":12}}"#);
        assert_eq!(frame_of(&response), "response 12");
        let request =
            format!(r#"{{"method":"x","params":{params},"jsonrpc":"2.0","id":"k\\" }}  "#);
        assert_eq!(frame_of(&request), r#"request k\"#);
    }

    #[test]
    fn nested_ids_and_unclear_messages_are_not_guessed() {
        let params = big();
        // The only `id` is inside `params`, and is not the last member.
        let request = format!(r#"{{"method":"x","params":{{"a":{params},"id":5}}}}"#);
        assert_eq!(frame_of(&request), "unknown");
        // No kind: neither `method` nor `result`/`error` is readable.
        let unknown = format!(r#"{{"id":1,"jsonrpc":{params}}}"#);
        assert_eq!(frame_of(&unknown), "unknown");
        // A notification has no id.
        let notification = format!(r#"{{"jsonrpc":"2.0","method":"x","params":{params}}}"#);
        assert_eq!(frame_of(&notification), "unknown");
        // Both kinds at once is not a message.
        let both = format!(r#"{{"id":1,"method":"x","result":{params}}}"#);
        assert_eq!(frame_of(&both), "unknown");
        // An id that is neither a string nor an integer.
        let null_id = format!(r#"{{"id":null,"method":"x","params":{params}}}"#);
        assert_eq!(frame_of(&null_id), "unknown");
        // A quote inside a string does not start a key.
        let fake = format!(r#"{{"method":"x","params":{params},"s":"{{\"id\":4}}"}}"#);
        assert_eq!(frame_of(&fake), "unknown");
        assert_eq!(frame_of("not json at all"), "unknown");
    }
}
