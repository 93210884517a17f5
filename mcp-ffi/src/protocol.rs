//! The negotiation mode both faces take as text: `auto` (the newest
//! revision both sides speak, probed with `server/discover`), `legacy`
//! (`initialize` only) or one revision such as `2026-07-28` (pinned).

use mcp_core::ProtocolVersion;
use mcp_core::client::Negotiation;

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
        assert!(e.contains("\"auto\", \"legacy\"") && e.contains("2025-11-25"), "{e}");
    }
}
