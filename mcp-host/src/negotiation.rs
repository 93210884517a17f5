//! How the protocol revision is agreed, as every face takes it in text:
//! `auto` (the newest revision both sides speak, probed with
//! `server/discover`), `legacy` (`initialize` only) or one revision such as
//! `2026-07-28` (pinned); and the request timeout, which bounds the probe too.

use std::time::Duration;

use mcp_core::client::{ClientBuilder, Negotiation};
use mcp_core::session::SessionConfig;
use mcp_core::{Error, ProtocolVersion};

/// The longest the `auto` probe waits for an answer (the engine's default).
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Applies a face's request timeout, which covers connecting: the `auto`
/// probe waits no longer than it either, so that a peer that never answers
/// fails the connect with a timeout within that time.
pub fn with_request_timeout(builder: ClientBuilder, timeout: Duration) -> ClientBuilder {
    builder
        .session_config(SessionConfig::default().request_timeout(timeout))
        .probe_timeout(timeout.min(PROBE_TIMEOUT))
}

fn revisions() -> String {
    let all: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
    all.join(", ")
}

/// Parses a negotiation mode; [`Error::InvalidArgument`] names every
/// accepted value.
pub fn parse_negotiation(text: &str) -> Result<Negotiation, Error> {
    match text {
        "auto" => Ok(Negotiation::Auto),
        "legacy" => Ok(Negotiation::Legacy),
        _ => ProtocolVersion::parse(text)
            .map(Negotiation::Pinned)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "`{text}` is not a protocol revision: use \"auto\", \"legacy\" or one of {}",
                    revisions()
                ))
            }),
    }
}

/// Parses one revision (to pin); [`Error::InvalidArgument`] names the
/// revisions this library speaks.
pub fn parse_revision(text: &str) -> Result<ProtocolVersion, Error> {
    ProtocolVersion::parse(text).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "`{text}` is not a protocol revision: use one of {}",
            revisions()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
        result.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn parses_modes_and_revisions() {
        assert_eq!(parse_negotiation("auto").ok(), Some(Negotiation::Auto));
        assert_eq!(parse_negotiation("legacy").ok(), Some(Negotiation::Legacy));
        assert_eq!(
            parse_negotiation("2026-07-28").ok(),
            Some(Negotiation::Pinned(ProtocolVersion::V2026_07_28))
        );
        let e = message(parse_negotiation("newest"));
        assert!(
            e.starts_with("invalid argument: `newest` is not a protocol revision: use \"auto\", \"legacy\" or one of")
                && e.contains("2025-11-25"),
            "{e}"
        );
        assert_eq!(
            parse_revision("2025-06-18").ok(),
            Some(ProtocolVersion::V2025_06_18)
        );
        let e = message(parse_revision("auto"));
        assert!(
            e.contains("`auto` is not a protocol revision: use one of 2026-07-28"),
            "{e}"
        );
    }
}
