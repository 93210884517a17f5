//! The secret that seals `requestState` (2026-07-28 input-required
//! rounds). Defined here, below the server role, because a shared store
//! hands it to every replica (`Stores::request_state_key`);
//! the role seals and opens with it.

use std::fmt;

/// The secret that seals `requestState`. Replicas that serve the same
/// clients must share it; by default each process draws its own.
#[derive(Clone, PartialEq, Eq)]
pub struct RequestStateKey([u8; 32]);

impl RequestStateKey {
    /// A key from 32 secret bytes (for example from configuration, shared by
    /// every replica).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A fresh random key from the OS.
    pub fn random() -> crate::Result<Self> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes)
            .map_err(|e| crate::Error::Protocol(format!("no randomness for a key: {e}")))?;
        Ok(Self(bytes))
    }

    /// The secret bytes.
    pub(crate) fn bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

impl fmt::Debug for RequestStateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestStateKey([redacted])")
    }
}
