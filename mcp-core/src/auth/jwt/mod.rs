//! Signed JWTs (RFC 7515 compact JWS, RFC 7519): the keys that sign them
//! and the client assertion of RFC 7523 (`private_key_jwt`).

mod key;

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature;
use serde_json::{Map, Value};

use key::Family;
pub use key::SigningKey;

use crate::{Error, Result};

/// A JWS algorithm (RFC 7518, RFC 8037) that a [`SigningKey`] can sign with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum JwsAlgorithm {
    /// ECDSA with P-256 and SHA-256.
    Es256,
    /// ECDSA with P-384 and SHA-384.
    Es384,
    /// Ed25519.
    EdDsa,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
    /// RSASSA-PSS with SHA-256.
    Ps256,
}

impl JwsAlgorithm {
    /// Every algorithm, in the order a client prefers them.
    pub const ALL: [Self; 5] = [
        Self::Es256,
        Self::Es384,
        Self::EdDsa,
        Self::Ps256,
        Self::Rs256,
    ];

    /// The registered name, e.g. `ES256`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Es256 => "ES256",
            Self::Es384 => "ES384",
            Self::EdDsa => "EdDSA",
            Self::Rs256 => "RS256",
            Self::Ps256 => "PS256",
        }
    }

    /// The algorithm of a registered name, if it is one of these.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }

    fn family(self) -> Family {
        match self {
            Self::Es256 => Family::Ecdsa(&signature::ECDSA_P256_SHA256_FIXED_SIGNING),
            Self::Es384 => Family::Ecdsa(&signature::ECDSA_P384_SHA384_FIXED_SIGNING),
            Self::EdDsa => Family::Ed25519,
            Self::Rs256 => Family::Rsa(&signature::RSA_PKCS1_SHA256),
            Self::Ps256 => Family::Rsa(&signature::RSA_PSS_SHA256),
        }
    }

    /// Whether a key whose natural algorithm is `natural` can sign with
    /// this one: an RSA key with any RSA algorithm, other keys only with
    /// their own (an EC key's curve fixes its algorithm).
    fn fits(self, natural: Self) -> bool {
        match natural.family() {
            Family::Rsa(_) => matches!(self.family(), Family::Rsa(_)),
            _ => self == natural,
        }
    }
}

impl fmt::Display for JwsAlgorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Signs `claims` as a compact JWS: a header of `alg`, the key's `kid`, and
/// `header` (such as `typ`, `jwk`).
pub(crate) fn sign(
    key: &SigningKey,
    header: Map<String, Value>,
    claims: &Map<String, Value>,
) -> Result<String> {
    let mut full = Map::new();
    full.insert("alg".into(), key.algorithm().as_str().into());
    if let Some(kid) = key.key_id() {
        full.insert("kid".into(), kid.into());
    }
    full.extend(header);
    let encode = |value: &Map<String, Value>| -> Result<String> {
        let json = serde_json::to_vec(value).map_err(Error::Json)?;
        Ok(URL_SAFE_NO_PAD.encode(json))
    };
    let input = format!("{}.{}", encode(&full)?, encode(claims)?);
    let signature = key.sign(input.as_bytes())?;
    Ok(format!("{input}.{}", URL_SAFE_NO_PAD.encode(signature)))
}

/// Seconds since the Unix epoch.
pub(crate) fn now_seconds() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// How long a client assertion is valid.
const ASSERTION_LIFETIME: Duration = Duration::from_secs(60);

/// An RFC 7523 client assertion: `iss` and `sub` the client id, `aud` the
/// authorization server, a fresh `jti`, `iat` and `exp` a minute later.
pub(crate) fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    audience: &str,
) -> Result<String> {
    let mut jti = [0u8; 16];
    getrandom::fill(&mut jti).map_err(|e| Error::Auth(format!("no randomness: {e}")))?;
    let now = now_seconds();
    let mut claims = Map::new();
    claims.insert("iss".into(), client_id.into());
    claims.insert("sub".into(), client_id.into());
    claims.insert("aud".into(), audience.into());
    claims.insert("jti".into(), URL_SAFE_NO_PAD.encode(jti).into());
    claims.insert("iat".into(), now.into());
    claims.insert("exp".into(), (now + ASSERTION_LIFETIME.as_secs()).into());
    let mut header = Map::new();
    header.insert("typ".into(), "JWT".into());
    sign(key, header, &claims)
}

#[cfg(test)]
mod tests;
