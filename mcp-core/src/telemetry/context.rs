//! W3C Trace Context (`traceparent`, `tracestate`) and W3C Baggage
//! (`baggage`) values, parsed and checked. A value that breaks its format is
//! ignored, as both recommendations say: it never fails a request.

use std::fmt;

/// The largest `tracestate` kept (W3C Trace Context: at least 512 bytes
/// must be propagated; longer ones may be dropped whole).
const MAX_TRACESTATE: usize = 512;
/// At most 32 list members in `tracestate`.
const MAX_TRACESTATE_MEMBERS: usize = 32;
/// The largest `baggage` kept (W3C Baggage: 8192 bytes).
const MAX_BAGGAGE: usize = 8192;
/// At most 64 list members in `baggage`.
const MAX_BAGGAGE_MEMBERS: usize = 64;

/// A parsed `traceparent`: the trace, the caller's span in it, and the
/// trace flags (bit 0: sampled).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TraceParent {
    /// The trace id (never all zero).
    pub trace_id: [u8; 16],
    /// The caller's span id (never all zero).
    pub parent_id: [u8; 8],
    /// The trace flags.
    pub flags: u8,
}

impl TraceParent {
    /// Parses a `traceparent` header value; `None` when it breaks the
    /// format (W3C Trace Context §3.2): version `ff`, ids that are not
    /// lowercase hex or are all zero, or a version-00 value of another
    /// length. A value of a later version is read by its first four fields
    /// when what follows them starts with `-`.
    pub fn parse(value: &str) -> Option<Self> {
        let bytes = value.trim_matches([' ', '\t']).as_bytes();
        if bytes.len() < 55 {
            return None;
        }
        let version = hex_byte(&bytes[0..2])?;
        if version == 0xff || bytes[2] != b'-' || bytes[35] != b'-' || bytes[52] != b'-' {
            return None;
        }
        match (version, bytes.len()) {
            (0, 55) => {}
            (0, _) => return None,
            (_, 55) => {}
            (_, _) if bytes[55] == b'-' => {}
            _ => return None,
        }
        let mut trace_id = [0; 16];
        for (i, byte) in trace_id.iter_mut().enumerate() {
            *byte = hex_byte(&bytes[3 + 2 * i..5 + 2 * i])?;
        }
        let mut parent_id = [0; 8];
        for (i, byte) in parent_id.iter_mut().enumerate() {
            *byte = hex_byte(&bytes[36 + 2 * i..38 + 2 * i])?;
        }
        let flags = hex_byte(&bytes[53..55])?;
        if trace_id == [0; 16] || parent_id == [0; 8] {
            return None;
        }
        Some(Self {
            trace_id,
            parent_id,
            flags,
        })
    }

    /// Whether the caller sampled the trace (flag bit 0).
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }
}

/// Written as version 00, the version this side speaks.
impl fmt::Display for TraceParent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("00-")?;
        for byte in self.trace_id {
            write!(f, "{byte:02x}")?;
        }
        f.write_str("-")?;
        for byte in self.parent_id {
            write!(f, "{byte:02x}")?;
        }
        write!(f, "-{:02x}", self.flags)
    }
}

/// Two lowercase hex digits.
fn hex_byte(pair: &[u8]) -> Option<u8> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    match pair {
        [high, low] => Some(digit(*high)? << 4 | digit(*low)?),
        _ => None,
    }
}

/// The trace context a message carries in its `params._meta`: where the
/// sender's span is, the vendors' `tracestate` and the `baggage`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceContext {
    /// The sender's span (`traceparent`).
    pub parent: TraceParent,
    /// `tracestate`, when valid (passed on as received).
    pub tracestate: Option<String>,
    /// `baggage`: its valid members, as received.
    pub baggage: Option<String>,
}

impl TraceContext {
    /// Reads the three values; `None` without a valid `traceparent` (then
    /// `tracestate` means nothing). A malformed `tracestate` is dropped; a
    /// malformed `baggage` member is dropped, the others kept.
    pub fn from_values(
        traceparent: &str,
        tracestate: Option<&str>,
        baggage: Option<&str>,
    ) -> Option<Self> {
        Some(Self {
            parent: TraceParent::parse(traceparent)?,
            tracestate: tracestate.and_then(valid_tracestate),
            baggage: baggage.and_then(valid_baggage),
        })
    }
}

/// A `tracestate` that keeps to W3C Trace Context §3.3 (keys, values, at
/// most 32 members, no duplicate keys), trimmed of empty members; `None`
/// when it does not, or when it is empty.
fn valid_tracestate(value: &str) -> Option<String> {
    if value.len() > MAX_TRACESTATE {
        return None;
    }
    let mut members: Vec<&str> = Vec::new();
    let mut keys: Vec<&str> = Vec::new();
    for member in value.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue;
        }
        let (key, val) = member.split_once('=')?;
        if !tracestate_key(key) || !tracestate_value(val) || keys.contains(&key) {
            return None;
        }
        keys.push(key);
        members.push(member);
    }
    if members.is_empty() || members.len() > MAX_TRACESTATE_MEMBERS {
        return None;
    }
    Some(members.join(","))
}

fn tracestate_key(key: &str) -> bool {
    fn simple(key: &str, max: usize) -> bool {
        let bytes = key.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= max
            && matches!(bytes[0], b'a'..=b'z' | b'0'..=b'9')
            && bytes
                .iter()
                .all(|c| matches!(c, b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' | b'*' | b'/'))
    }
    match key.split_once('@') {
        Some((tenant, system)) => simple(tenant, 241) && simple(system, 14),
        None => simple(key, 256),
    }
}

fn tracestate_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 256
        && bytes.last() != Some(&b' ')
        && bytes
            .iter()
            .all(|c| (0x20..=0x7e).contains(c) && *c != b',' && *c != b'=')
}

/// The members of a `baggage` that keep to W3C Baggage (a token key, `=`,
/// a value of baggage octets or percent escapes, optional `;` properties);
/// `None` when none does, or when the whole is over 8192 bytes.
fn valid_baggage(value: &str) -> Option<String> {
    if value.len() > MAX_BAGGAGE {
        return None;
    }
    let members: Vec<&str> = value
        .split(',')
        .map(|m| m.trim_matches([' ', '\t']))
        .filter(|m| baggage_member(m))
        .take(MAX_BAGGAGE_MEMBERS)
        .collect();
    (!members.is_empty()).then(|| members.join(","))
}

fn baggage_member(member: &str) -> bool {
    let mut parts = member.split(';');
    let Some((key, value)) = parts.next().and_then(|kv| kv.split_once('=')) else {
        return false;
    };
    let key = key.trim_matches([' ', '\t']);
    let value = value.trim_matches([' ', '\t']);
    token(key)
        && value.bytes().all(baggage_octet)
        && parts.all(|property| {
            let property = property.trim_matches([' ', '\t']);
            match property.split_once('=') {
                Some((k, v)) => {
                    token(k.trim_matches([' ', '\t']))
                        && v.trim_matches([' ', '\t']).bytes().all(baggage_octet)
                }
                None => token(property),
            }
        })
}

/// An RFC 7230 token.
fn token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// A baggage octet (`%` escapes are octets too).
fn baggage_octet(c: u8) -> bool {
    matches!(c, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn traceparent() {
        let parsed = TraceParent::parse(VALID).unwrap();
        assert_eq!(parsed.trace_id[0], 0x4b);
        assert_eq!(parsed.parent_id[7], 0xb7);
        assert!(parsed.sampled());
        assert_eq!(parsed.to_string(), VALID);
        // Surrounding whitespace is tolerated.
        assert_eq!(TraceParent::parse(&format!(" {VALID}\t")), Some(parsed));
        // A later version: read by its first fields, written as 00.
        let future = "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-what-follows";
        let parsed = TraceParent::parse(future).unwrap();
        assert!(!parsed.sampled());
        assert!(parsed.to_string().starts_with("00-4bf92f35"));
        assert!(TraceParent::parse(&future[..55]).is_some());
    }

    #[test]
    fn malformed_traceparent() {
        for bad in [
            "",
            "00",
            // version ff is invalid
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            // all-zero trace id, all-zero span id
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            // uppercase hex
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            // non-hex, wrong separators, wrong lengths
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",
            "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "0-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-é",
        ] {
            assert_eq!(TraceParent::parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn tracestate() {
        assert_eq!(
            valid_tracestate("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,").as_deref(),
            Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE")
        );
        assert_eq!(
            valid_tracestate("tenant@vendor=x").as_deref(),
            Some("tenant@vendor=x")
        );
        for bad in [
            "",
            " , ",
            "Upper=1",
            "k=",
            "k",
            "k=a=b",
            "k=1,k=2",
            "k=tab\tinside",
            "@vendor=x",
        ] {
            assert_eq!(valid_tracestate(bad), None, "{bad:?}");
        }
        let many = (0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>();
        assert_eq!(valid_tracestate(&many.join(",")), None);
        assert_eq!(valid_tracestate(&format!("k={}", "v".repeat(600))), None);
    }

    #[test]
    fn baggage() {
        assert_eq!(
            valid_baggage("userId=alice,serverNode=DF%2028,isProduction=false").as_deref(),
            Some("userId=alice,serverNode=DF%2028,isProduction=false")
        );
        assert_eq!(
            valid_baggage("a=1;prop;k=v, b = 2").as_deref(),
            Some("a=1;prop;k=v,b = 2")
        );
        // Malformed members are dropped, the rest kept.
        assert_eq!(
            valid_baggage("good=1,no-equals,bad key=2,=empty,q=\"quoted\"").as_deref(),
            Some("good=1")
        );
        assert_eq!(valid_baggage("only,bad"), None);
        assert_eq!(valid_baggage(""), None);
        assert_eq!(valid_baggage(&format!("k={}", "v".repeat(9000))), None);
        let many = (0..100).map(|i| format!("k{i}=v")).collect::<Vec<_>>();
        let kept = valid_baggage(&many.join(",")).unwrap();
        assert_eq!(kept.split(',').count(), 64);
    }

    #[test]
    fn context() {
        let context = TraceContext::from_values(VALID, Some("bad key=1"), Some("a=1")).unwrap();
        assert_eq!(context.tracestate, None);
        assert_eq!(context.baggage.as_deref(), Some("a=1"));
        assert_eq!(
            TraceContext::from_values("00-junk", Some("a=1"), None),
            None
        );
    }
}
