//! The negotiation mode both faces take as text: `auto` (the newest
//! revision both sides speak, probed with `server/discover`), `legacy`
//! (`initialize` only) or one revision such as `2026-07-28` (pinned).

use std::time::Duration;

use mcp_core::ProtocolVersion;
use mcp_core::client::{ClientBuilder, Negotiation};
use mcp_core::session::SessionConfig;

/// The longest the `auto` probe waits for an answer (the engine's default).
const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Applies a face's request timeout, which covers connecting: the `auto`
/// probe waits no longer than it either, so that a peer that never answers
/// fails the connect with a timeout within that time.
pub(crate) fn with_request_timeout(builder: ClientBuilder, timeout: Duration) -> ClientBuilder {
    builder
        .session_config(SessionConfig::default().request_timeout(timeout))
        .probe_timeout(timeout.min(PROBE_TIMEOUT))
}

/// Parses a negotiation mode; the error names every accepted value.
pub(crate) fn parse_negotiation(text: &str) -> Result<Negotiation, String> {
    match text {
        "auto" => Ok(Negotiation::Auto),
        "legacy" => Ok(Negotiation::Legacy),
        _ => ProtocolVersion::parse(text)
            .map(Negotiation::Pinned)
            .ok_or_else(|| {
                let revisions: Vec<&str> =
                    ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
                format!(
                    "unknown protocol {text:?}: use \"auto\", \"legacy\" or one of {}",
                    revisions.join(", ")
                )
            }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_modes_and_revisions() {
        assert_eq!(parse_negotiation("auto"), Ok(Negotiation::Auto));
        assert_eq!(parse_negotiation("legacy"), Ok(Negotiation::Legacy));
        assert_eq!(
            parse_negotiation("2026-07-28"),
            Ok(Negotiation::Pinned(ProtocolVersion::V2026_07_28))
        );
        let e = parse_negotiation("newest").unwrap_err();
        assert!(
            e.contains("\"auto\", \"legacy\"") && e.contains("2025-11-25"),
            "{e}"
        );
    }
}
