//! Reading a request in one pass: the envelope walked by hand and the
//! params decoded where they stand, for a receiver that knows their type
//! from the method. [`decode`](super::decode) reads the params as raw JSON
//! first (a scan of their whole text) and the receiver reads them again;
//! for a request written the plain way, this reads them once.

use std::borrow::Cow;

use super::InboundRequest;
use crate::schema::RequestId;

/// A request read by [`decode_request_at_once`].
#[derive(Debug)]
pub(crate) struct RequestAtOnce<'a, T> {
    /// The request id.
    pub(crate) id: RequestId,
    /// The method name.
    pub(crate) method: &'a str,
    /// The params' text, as sent (it was read whole, so it is JSON).
    pub(crate) params: &'a str,
    /// What the params were decoded into.
    pub(crate) value: T,
}

impl<'a, T> RequestAtOnce<'a, T> {
    /// The request as the engine takes it (its params as text, not raw),
    /// and the value its params were decoded into.
    pub(crate) fn into_request(self) -> (InboundRequest<'a>, T) {
        let request = InboundRequest {
            id: self.id,
            method: Cow::Borrowed(self.method),
            params: None,
            params_read: Some(self.params),
            decoded: None,
        };
        (request, self.value)
    }
}

/// Reads a request written the plain way, in one pass:
/// - one object with the members `jsonrpc` (`"2.0"`), `id` (an integer, or
///   a string without escapes), `method` (a string without escapes) and,
///   after `method`, `params` (an object); each once, nothing else;
/// - no escapes in the member names.
///
/// `read_params(method, text)` decodes the params `text` starts with and
/// returns them with the bytes they take. `None` for anything else: such a
/// message is read by [`decode`](super::decode), which says what is wrong
/// with it, if anything.
pub(crate) fn decode_request_at_once<'a, T>(
    text: &'a str,
    read_params: impl FnOnce(&'a str, &'a str) -> Option<(T, usize)>,
) -> Option<RequestAtOnce<'a, T>> {
    let mut read_params = Some(read_params);
    let mut at = Cursor { text, at: 0 };
    at.eat(b'{')?;
    let mut jsonrpc = false;
    let mut id = None;
    let mut method = None;
    let mut params = None;
    loop {
        let key = at.plain_string()?;
        at.eat(b':')?;
        match key {
            "jsonrpc" if !jsonrpc => {
                if at.plain_string()? != "2.0" {
                    return None;
                }
                jsonrpc = true;
            }
            "id" if id.is_none() => id = Some(at.id()?),
            "method" if method.is_none() => method = Some(at.plain_string()?),
            "params" if params.is_none() => {
                at.skip_whitespace();
                let rest = text.get(at.at..)?;
                if !rest.starts_with('{') {
                    return None;
                }
                let (value, used) = (read_params.take()?)(method?, rest)?;
                params = Some((rest.get(..used)?, value));
                at.at += used;
            }
            _ => return None,
        }
        at.skip_whitespace();
        match at.next()? {
            b',' => {}
            b'}' => break,
            _ => return None,
        }
    }
    at.skip_whitespace();
    if at.at != text.len() || !jsonrpc {
        return None;
    }
    let (params, value) = params?;
    Some(RequestAtOnce {
        id: id?,
        method: method?,
        params,
        value,
    })
}

/// A position in the text being walked.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a [u8] {
        self.text.as_bytes().get(self.at..).unwrap_or_default()
    }

    fn skip_whitespace(&mut self) {
        let blanks = self
            .rest()
            .iter()
            .take_while(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            .count();
        self.at += blanks;
    }

    /// The next byte, consumed.
    fn next(&mut self) -> Option<u8> {
        let byte = *self.rest().first()?;
        self.at += 1;
        Some(byte)
    }

    /// `byte`, after any whitespace.
    fn eat(&mut self, byte: u8) -> Option<()> {
        self.skip_whitespace();
        (self.next()? == byte).then_some(())
    }

    /// A string without escapes or control characters: its text.
    fn plain_string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = self.rest();
        let end = memchr::memchr2(b'"', b'\\', rest)?;
        if rest.get(end) != Some(&b'"') || rest.get(..end)?.iter().any(|b| *b < 0x20) {
            return None;
        }
        let text = self.text.get(self.at..self.at + end)?;
        self.at += end + 1;
        Some(text)
    }

    /// An id: an integer written plainly (no fraction, no exponent, no
    /// leading zero), or a plain string.
    fn id(&mut self) -> Option<RequestId> {
        self.skip_whitespace();
        let rest = self.rest();
        if rest.first() == Some(&b'"') {
            return Some(RequestId::String(self.plain_string()?.to_owned()));
        }
        let sign = usize::from(rest.first() == Some(&b'-'));
        let digits = rest
            .get(sign..)?
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if digits == 0 || (digits > 1 && rest.get(sign) == Some(&b'0')) {
            return None;
        }
        let len = sign + digits;
        if !matches!(
            rest.get(len),
            Some(b',' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
        ) {
            return None;
        }
        let n = self.text.get(self.at..self.at + len)?.parse().ok()?;
        self.at += len;
        Some(RequestId::Integer(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::{Inbound, decode};

    /// Reads params as a JSON value, as a receiver would its type.
    fn read(text: &str) -> Option<RequestAtOnce<'_, serde_json::Value>> {
        decode_request_at_once(text, |_, rest| {
            let mut stream = serde_json::Deserializer::from_str(rest).into_iter();
            let value = stream.next()?.ok()?;
            Some((value, stream.byte_offset()))
        })
    }

    #[test]
    fn reads_a_plain_request_as_decode_does() {
        for text in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","a":[1,{"b":"}"}]}}"#,
            r#" { "method" : "tools/call" , "params" : {"name":"x"} , "jsonrpc" : "2.0" , "id" : -3 } "#,
            r#"{"method":"tools/call","params":{},"id":"abc","jsonrpc":"2.0"}"#,
            "{\"id\":0,\n\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"params\":{\"_meta\":{}}\n}",
        ] {
            let read = read(text).unwrap_or_else(|| panic!("not read: {text}"));
            let Ok(Inbound::Request(decoded)) = decode(text) else {
                panic!("decode: {text}");
            };
            assert_eq!(read.id, decoded.id, "{text}");
            assert_eq!(read.method, decoded.method, "{text}");
            assert_eq!(Some(read.params), decoded.params.map(|p| p.get()), "{text}");
            assert_eq!(
                read.value,
                serde_json::from_str::<serde_json::Value>(read.params).unwrap()
            );
        }
    }

    #[test]
    fn leaves_anything_else_to_decode() {
        for text in [
            // Params before the method, or none.
            r#"{"jsonrpc":"2.0","id":1,"params":{},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            // Not requests, or not JSON-RPC 2.0.
            r#"{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping","params":{}}"#,
            r#"{"id":1,"method":"ping","params":{}}"#,
            // Ids written otherwise.
            r#"{"jsonrpc":"2.0","id":1.0,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1e2,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":01,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":99999999999999999999,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"ping","params":{}}"#,
            // Escapes, duplicates, members of no request, params not an object.
            r#"{"jsonrpc":"2.0","id":1,"method":"pi\u006eg","params":{}}"#,
            r#"{"json\u0072pc":"2.0","id":1,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping","params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},"extra":1}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":null}"#,
            // Not JSON, or more than one value.
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{}} {}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{},}"#,
            "",
            "{",
        ] {
            assert!(read(text).is_none(), "read: {text}");
        }
    }

    #[test]
    fn the_receiver_may_decline() {
        let text = r#"{"jsonrpc":"2.0","id":1,"method":"unknown","params":{}}"#;
        let read = decode_request_at_once(text, |method, _| -> Option<((), usize)> {
            (method != "unknown").then_some(((), 2))
        });
        assert!(read.is_none());
    }
}
