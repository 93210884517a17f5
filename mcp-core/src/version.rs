//! Protocol revisions: the only place that knows which ones exist and what
//! differs between them.

use std::fmt;

/// A protocol revision this implementation speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// 2024-11-05.
    V2024_11_05,
    /// 2025-03-26.
    V2025_03_26,
    /// 2025-06-18.
    V2025_06_18,
    /// 2025-11-25 (preferred).
    V2025_11_25,
}

impl ProtocolVersion {
    /// The revision offered first and answered when a peer asks for one we
    /// do not speak.
    pub const LATEST: Self = Self::V2025_11_25;

    /// Every supported revision, newest first.
    pub const ALL: &'static [Self] = &[
        Self::V2025_11_25,
        Self::V2025_06_18,
        Self::V2025_03_26,
        Self::V2024_11_05,
    ];

    /// The wire form, e.g. `"2025-11-25"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
        }
    }

    /// Parses the wire form; `None` for a revision we do not speak.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.as_str() == s)
    }

    /// What a server answers to a client asking for `requested`: the same
    /// revision if supported, otherwise the latest.
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested).unwrap_or(Self::LATEST)
    }

    /// Whether tool results may carry `structuredContent` and tools an
    /// `outputSchema` (added in 2025-06-18).
    pub fn has_structured_output(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether elicitation exists (added in 2025-06-18).
    pub fn has_elicitation(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether SSE streams start with a priming event (id, empty data) and a
    /// `retry` hint so that clients can resume them (SEP-1699, 2025-11-25).
    pub fn has_sse_priming(self) -> bool {
        self >= Self::V2025_11_25
    }

    /// Whether tasks, URL-mode elicitation and sampling with tools exist
    /// (added in 2025-11-25).
    pub fn has_tasks(self) -> bool {
        self >= Self::V2025_11_25
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negotiates_down_or_to_latest() {
        assert_eq!(
            ProtocolVersion::negotiate("2025-06-18"),
            ProtocolVersion::V2025_06_18
        );
        assert_eq!(
            ProtocolVersion::negotiate("2024-11-05"),
            ProtocolVersion::V2024_11_05
        );
        assert_eq!(
            ProtocolVersion::negotiate("1999-01-01"),
            ProtocolVersion::LATEST
        );
        assert_eq!(ProtocolVersion::LATEST.as_str(), "2025-11-25");
    }
}
