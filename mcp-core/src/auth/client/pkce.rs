//! PKCE (RFC 7636) with `S256`, and the random `state`.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

use super::http::auth_error;
use crate::Result;
use crate::auth::Secret;

/// `n` random bytes, base64url without padding.
pub(crate) fn random_string(n: usize) -> Result<String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| auth_error(format!("no randomness: {e}")))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// `BASE64URL(SHA256(verifier))`.
pub(crate) fn s256_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// A verifier and its `S256` challenge.
#[derive(Debug)]
pub(crate) struct Pkce {
    pub(crate) verifier: Secret,
    pub(crate) challenge: String,
}

impl Pkce {
    pub(crate) fn new() -> Result<Self> {
        // 32 bytes give the 43-character verifier RFC 7636 recommends.
        let verifier = random_string(32)?;
        let challenge = s256_challenge(&verifier);
        Ok(Self {
            verifier: Secret::new(verifier),
            challenge,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc7636_appendix_b() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_well_formed() {
        let a = Pkce::new().unwrap();
        let b = Pkce::new().unwrap();
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.expose().len(), 43);
        assert!(
            a.verifier
                .expose()
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_eq!(a.challenge, s256_challenge(a.verifier.expose()));
    }
}
