//! DPoP (RFC 9449, SEP-1932): proofs of possession of the client's key,
//! one fresh proof per request, at the token endpoint and on every request
//! that presents a DPoP-bound token; and the nonces servers hand out.

use std::collections::HashMap;
use std::sync::Mutex;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Url;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::pkce::random_string;
use crate::Result;
use crate::auth::jwt::{now_seconds, sign};
use crate::auth::{AuthorizationServerMetadata, Secret, SigningKey};

/// When the client asks for DPoP-bound tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum DpopPolicy {
    /// When the authorization server advertises DPoP with the key's
    /// algorithm (`dpop_signing_alg_values_supported`) or the resource's
    /// challenge uses the `DPoP` scheme (the default).
    #[default]
    Auto,
    /// Always: a token endpoint that issues a Bearer token is an error.
    Required,
    /// Never.
    Off,
}

/// The client's DPoP key and the nonces servers asked for, by origin.
#[derive(Debug)]
pub(crate) struct Dpop {
    key: SigningKey,
    policy: DpopPolicy,
    nonces: Mutex<HashMap<String, String>>,
}

/// `htu`: the URL without query and fragment (RFC 9449 §4.2).
fn target_uri(url: &Url) -> String {
    let mut htu = url.clone();
    htu.set_query(None);
    htu.set_fragment(None);
    htu.to_string()
}

impl Dpop {
    pub(crate) fn new(key: SigningKey, policy: DpopPolicy) -> Self {
        Self {
            key,
            policy,
            nonces: Mutex::default(),
        }
    }

    /// Whether tokens from `meta` are to be DPoP-bound (`challenged`: the
    /// resource's challenge used the `DPoP` scheme).
    pub(crate) fn applies_to(&self, meta: &AuthorizationServerMetadata, challenged: bool) -> bool {
        let alg = self.key.algorithm().as_str();
        match self.policy {
            DpopPolicy::Required => true,
            DpopPolicy::Off => false,
            DpopPolicy::Auto => {
                challenged
                    || meta
                        .dpop_signing_alg_values_supported
                        .as_ref()
                        .is_some_and(|algs| algs.iter().any(|a| a == alg))
            }
        }
    }

    /// A fresh proof for a request of `method` to `url`, bound to
    /// `access_token` (`ath`) when one is presented, with the nonce the
    /// server at `url` asked for, if any.
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &Url,
        access_token: Option<&Secret>,
    ) -> Result<String> {
        let mut claims = Map::new();
        claims.insert("jti".into(), random_string(16)?.into());
        claims.insert("htm".into(), method.into());
        claims.insert("htu".into(), target_uri(url).into());
        claims.insert("iat".into(), now_seconds().into());
        if let Some(token) = access_token {
            let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.expose().as_bytes()));
            claims.insert("ath".into(), ath.into());
        }
        if let Some(nonce) = self.nonce_for(url) {
            claims.insert("nonce".into(), nonce.into());
        }
        let mut header = Map::new();
        header.insert("typ".into(), "dpop+jwt".into());
        header.insert("jwk".into(), Value::Object(self.key.public_jwk()));
        sign(&self.key, header, &claims)
    }

    /// Remembers the nonce the server at `url` handed out.
    pub(crate) fn remember_nonce(&self, url: &Url, nonce: &str) {
        if let Ok(mut nonces) = self.nonces.lock() {
            nonces.insert(url.origin().ascii_serialization(), nonce.to_string());
        }
    }

    fn nonce_for(&self, url: &Url) -> Option<String> {
        let nonces = self.nonces.lock().ok()?;
        nonces.get(&url.origin().ascii_serialization()).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::JwsAlgorithm;

    fn decoded(jwt: &str, part: usize) -> Map<String, Value> {
        let text = jwt.split('.').nth(part).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).unwrap()).unwrap()
    }

    #[test]
    fn proofs_are_fresh_and_carry_the_request_token_and_nonce() {
        let key = SigningKey::generate(JwsAlgorithm::Es256).unwrap();
        let dpop = Dpop::new(key.clone(), DpopPolicy::Auto);
        let url = Url::parse("https://rs.example:8443/mcp?x=1#f").unwrap();
        let token = Secret::new("tok");
        let first = dpop.proof("POST", &url, Some(&token)).unwrap();
        let header = decoded(&first, 0);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert_eq!(Value::Object(key.public_jwk()), header["jwk"]);
        let claims = decoded(&first, 1);
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://rs.example:8443/mcp");
        // RFC 9449 §4.2: ath is base64url(SHA-256(token)).
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(Sha256::digest(b"tok"))
        );
        assert!(claims.get("nonce").is_none());

        dpop.remember_nonce(&url, "n-1");
        let second = dpop.proof("GET", &url, None).unwrap();
        let claims2 = decoded(&second, 1);
        assert_eq!(claims2["nonce"], "n-1");
        assert!(claims2.get("ath").is_none());
        assert_ne!(claims["jti"], claims2["jti"]);
        // Nonces are per origin.
        let other = Url::parse("https://as.example/token").unwrap();
        assert!(
            decoded(&dpop.proof("POST", &other, None).unwrap(), 1)
                .get("nonce")
                .is_none()
        );
    }

    #[test]
    fn the_policy_follows_the_server() {
        let key = SigningKey::generate(JwsAlgorithm::Es256).unwrap();
        let meta = |algs: Option<&[&str]>| AuthorizationServerMetadata {
            dpop_signing_alg_values_supported: algs
                .map(|a| a.iter().map(|s| s.to_string()).collect()),
            ..Default::default()
        };
        let auto = Dpop::new(key.clone(), DpopPolicy::Auto);
        assert!(!auto.applies_to(&meta(None), false));
        assert!(auto.applies_to(&meta(None), true));
        assert!(auto.applies_to(&meta(Some(&["RS256", "ES256"])), false));
        assert!(!auto.applies_to(&meta(Some(&["RS256"])), false));
        assert!(Dpop::new(key.clone(), DpopPolicy::Required).applies_to(&meta(None), false));
        assert!(!Dpop::new(key, DpopPolicy::Off).applies_to(&meta(Some(&["ES256"])), true));
    }
}
