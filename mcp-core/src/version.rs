//! Protocol revisions: what differs between them beyond which methods exist.
//!
//! The list of revisions and which method exists in which one are generated
//! from the schemas ([`ProtocolVersion`], [`crate::schema::METHOD_TABLE`]);
//! what the schemas do not say as data is decided here.

pub use crate::schema::ProtocolVersion;
use crate::schema::{ClientRequestMethod, ServerRequestMethod};

impl ProtocolVersion {
    /// The revision offered first and answered when a peer asks for one we
    /// do not speak.
    pub const LATEST: Self = Self::V2025_11_25;

    /// What a server answers to an `initialize` asking for `requested`: the
    /// same revision if it is one that has `initialize`, otherwise the latest.
    pub fn negotiate(requested: &str) -> Self {
        Self::parse(requested)
            .filter(|v| v.has_initialize())
            .unwrap_or(Self::LATEST)
    }

    /// Whether sessions start with `initialize` (every revision before
    /// 2026-07-28, which has per-request metadata instead).
    pub fn has_initialize(self) -> bool {
        ClientRequestMethod::Initialize.in_revision(self)
    }

    /// Whether tool results may carry `structuredContent` and tools an
    /// `outputSchema` (added in 2025-06-18).
    pub fn has_structured_output(self) -> bool {
        self >= Self::V2025_06_18
    }

    /// Whether elicitation exists (added in 2025-06-18).
    pub fn has_elicitation(self) -> bool {
        ServerRequestMethod::Elicit.in_revision(self)
    }

    /// Whether SSE streams start with a priming event (id, empty data) and a
    /// `retry` hint so that clients can resume them (SEP-1699, 2025-11-25).
    pub fn has_sse_priming(self) -> bool {
        // 2026-07-28 has no resumption: nothing to prime.
        self >= Self::V2025_11_25 && self.has_initialize()
    }

    /// Whether tasks are part of the core protocol (2025-11-25 only: later
    /// revisions move them to an extension).
    pub fn has_tasks(self) -> bool {
        ClientRequestMethod::GetTask.in_revision(self)
    }

    /// Whether capabilities carry `extensions` (SEP-2133, 2026-07-28 on):
    /// the extension methods of [`crate::extensions`] exist, and a client
    /// opts in to an extension per request.
    pub fn has_extensions(self) -> bool {
        self >= Self::V2026_07_28
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
        // 2026-07-28 has no `initialize`: a client asking for it in one gets
        // the latest revision that has.
        assert_eq!(
            ProtocolVersion::negotiate("2026-07-28"),
            ProtocolVersion::LATEST
        );
    }

    #[test]
    fn features_follow_the_method_table() {
        use ProtocolVersion::*;
        assert!(!V2025_03_26.has_elicitation());
        assert!(V2025_06_18.has_elicitation() && V2026_07_28.has_elicitation());
        assert!(V2025_11_25.has_tasks() && !V2026_07_28.has_tasks());
        assert!(!V2025_06_18.has_tasks());
        assert!(V2024_11_05.has_initialize() && !V2026_07_28.has_initialize());
        assert!(V2026_07_28.has_extensions() && !V2025_11_25.has_extensions());
    }
}
