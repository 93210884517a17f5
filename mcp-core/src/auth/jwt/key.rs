//! [`SigningKey`]: a private key for signing JWTs, read from PEM (PKCS#8,
//! or PKCS#1 for RSA) or from a private JWK (RFC 7517), with its public JWK
//! and RFC 7638 thumbprint.

use std::fmt;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::rsa::{KeyPairComponents, PublicKeyComponents};
use ring::signature::RsaKeyPair;
use ring::signature::{self, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::JwsAlgorithm;
use crate::{Error, Result};

/// A private key that signs JWTs (client assertions, DPoP proofs). `Debug`
/// shows the algorithm and key id, never the key.
#[derive(Clone)]
pub struct SigningKey {
    pair: Arc<Pair>,
    algorithm: JwsAlgorithm,
    key_id: Option<String>,
}

enum Pair {
    Ecdsa(EcdsaKeyPair),
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair),
}

fn invalid(message: impl fmt::Display) -> Error {
    Error::InvalidArgument(format!("signing key: {message}"))
}

impl SigningKey {
    /// Reads a PEM private key: `PRIVATE KEY` (PKCS#8: EC P-256 or P-384,
    /// Ed25519, RSA) or `RSA PRIVATE KEY` (PKCS#1). Without `algorithm` the
    /// key's natural one is used (ES256, ES384, EdDSA; RS256 for RSA).
    pub fn from_pem(pem: &str, algorithm: Option<JwsAlgorithm>) -> Result<Self> {
        let (label, der) = pem_block(pem)?;
        let rng = SystemRandom::new();
        let candidates: &[JwsAlgorithm] = match algorithm {
            Some(ref one) => std::slice::from_ref(one),
            None => &[
                JwsAlgorithm::Es256,
                JwsAlgorithm::Es384,
                JwsAlgorithm::EdDsa,
                JwsAlgorithm::Rs256,
            ],
        };
        let pair = candidates.iter().find_map(|&alg| {
            let pair = match (label.as_str(), alg.family()) {
                ("PRIVATE KEY", Family::Ecdsa(s)) => EcdsaKeyPair::from_pkcs8(s, &der, &rng)
                    .map(Pair::Ecdsa)
                    .ok(),
                ("PRIVATE KEY", Family::Ed25519) => {
                    Ed25519KeyPair::from_pkcs8_maybe_unchecked(&der)
                        .map(Pair::Ed25519)
                        .ok()
                }
                ("PRIVATE KEY", Family::Rsa(_)) => RsaKeyPair::from_pkcs8(&der).map(Pair::Rsa).ok(),
                ("RSA PRIVATE KEY", Family::Rsa(_)) => {
                    RsaKeyPair::from_der(&der).map(Pair::Rsa).ok()
                }
                _ => None,
            }?;
            Some((pair, alg))
        });
        match pair {
            Some((pair, algorithm)) => Ok(Self::new(pair, algorithm)),
            None if label == "EC PRIVATE KEY" => Err(invalid(
                "SEC1 `EC PRIVATE KEY` is not read; convert it to PKCS#8 \
                 (`openssl pkcs8 -topk8 -nocrypt`)",
            )),
            None => Err(invalid(match algorithm {
                Some(alg) => format!("the PEM `{label}` is not a valid {alg} key"),
                None => {
                    format!("the PEM `{label}` is not a PKCS#8 EC P-256/P-384, Ed25519 or RSA key")
                }
            })),
        }
    }

    /// Reads a private JWK (`kty` EC with `crv` P-256 or P-384, OKP with
    /// Ed25519, or RSA with its CRT members). The algorithm is the JWK's
    /// `alg` if it has one, else the key's natural one; `kid` becomes the
    /// key id.
    pub fn from_jwk(jwk: &str) -> Result<Self> {
        let jwk: Map<String, Value> =
            serde_json::from_str(jwk).map_err(|e| invalid(format!("not a JSON object: {e}")))?;
        let member = |name: &str| -> Result<Vec<u8>> {
            let text = jwk
                .get(name)
                .and_then(Value::as_str)
                .ok_or_else(|| invalid(format!("the JWK has no `{name}`")))?;
            URL_SAFE_NO_PAD
                .decode(text.trim_end_matches('='))
                .map_err(|e| invalid(format!("the JWK's `{name}` is not base64url: {e}")))
        };
        let text = |name: &str| jwk.get(name).and_then(Value::as_str);
        let named = match text("alg") {
            Some(name) => Some(
                JwsAlgorithm::parse(name)
                    .ok_or_else(|| invalid(format!("unsupported algorithm `{name}`")))?,
            ),
            None => None,
        };
        let (pair, natural) = match (text("kty"), text("crv")) {
            (Some("EC"), Some(crv @ ("P-256" | "P-384"))) => {
                let alg = if crv == "P-256" {
                    JwsAlgorithm::Es256
                } else {
                    JwsAlgorithm::Es384
                };
                let Family::Ecdsa(signing) = alg.family() else {
                    return Err(invalid(format!("{alg} is not an ECDSA algorithm")));
                };
                let mut public = vec![4u8];
                public.extend(member("x")?);
                public.extend(member("y")?);
                let pair = EcdsaKeyPair::from_private_key_and_public_key(
                    signing,
                    &member("d")?,
                    &public,
                    &SystemRandom::new(),
                )
                .map_err(|e| invalid(format!("the EC JWK is not valid for {alg}: {e}")))?;
                (Pair::Ecdsa(pair), alg)
            }
            (Some("OKP"), Some("Ed25519")) => {
                let pair = Ed25519KeyPair::from_seed_and_public_key(&member("d")?, &member("x")?)
                    .map_err(|e| invalid(format!("the Ed25519 JWK is not valid: {e}")))?;
                (Pair::Ed25519(pair), JwsAlgorithm::EdDsa)
            }
            (Some("RSA"), _) => {
                let components = KeyPairComponents {
                    public_key: PublicKeyComponents {
                        n: member("n")?,
                        e: member("e")?,
                    },
                    d: member("d")?,
                    p: member("p")?,
                    q: member("q")?,
                    dP: member("dp")?,
                    dQ: member("dq")?,
                    qInv: member("qi")?,
                };
                let pair = RsaKeyPair::from_components(&components)
                    .map_err(|e| invalid(format!("the RSA JWK is not valid: {e}")))?;
                (Pair::Rsa(pair), JwsAlgorithm::Rs256)
            }
            (kty, crv) => {
                return Err(invalid(format!(
                    "unsupported JWK (kty {kty:?}, crv {crv:?}): use EC P-256/P-384, OKP Ed25519 or RSA"
                )));
            }
        };
        let algorithm = named.unwrap_or(natural);
        if !algorithm.fits(natural) {
            return Err(invalid(format!("a {natural} key cannot sign {algorithm}")));
        }
        let mut key = Self::new(pair, algorithm);
        key.key_id = text("kid").map(str::to_string);
        Ok(key)
    }

    /// A fresh key pair (for DPoP, whose keys live as long as the client):
    /// ES256, ES384 or EdDSA.
    pub fn generate(algorithm: JwsAlgorithm) -> Result<Self> {
        let rng = SystemRandom::new();
        let pair = match algorithm.family() {
            Family::Ecdsa(signing) => EcdsaKeyPair::generate_pkcs8(signing, &rng)
                .and_then(|doc| {
                    EcdsaKeyPair::from_pkcs8(signing, doc.as_ref(), &rng)
                        .map_err(|_| ring::error::Unspecified)
                })
                .map(Pair::Ecdsa),
            Family::Ed25519 => Ed25519KeyPair::generate_pkcs8(&rng)
                .and_then(|doc| {
                    Ed25519KeyPair::from_pkcs8(doc.as_ref()).map_err(|_| ring::error::Unspecified)
                })
                .map(Pair::Ed25519),
            Family::Rsa(_) => return Err(invalid("RSA keys are not generated; read one instead")),
        }
        .map_err(|_| Error::Auth(format!("could not generate a {algorithm} key")))?;
        Ok(Self::new(pair, algorithm))
    }

    fn new(pair: Pair, algorithm: JwsAlgorithm) -> Self {
        Self {
            pair: Arc::new(pair),
            algorithm,
            key_id: None,
        }
    }

    /// Sets the `kid` put in the header of every JWT the key signs.
    #[must_use]
    pub fn with_key_id(mut self, key_id: impl Into<String>) -> Self {
        self.key_id = Some(key_id.into());
        self
    }

    /// The algorithm the key signs with.
    pub fn algorithm(&self) -> JwsAlgorithm {
        self.algorithm
    }

    /// The key id, if one was set.
    pub fn key_id(&self) -> Option<&str> {
        self.key_id.as_deref()
    }

    /// The public key as a JWK: only the members RFC 7638 names (in its
    /// order), so it is also the input of [`thumbprint`](Self::thumbprint).
    pub fn public_jwk(&self) -> Map<String, Value> {
        let b64 = |bytes: &[u8]| Value::String(URL_SAFE_NO_PAD.encode(bytes));
        let mut jwk = Map::new();
        match &*self.pair {
            Pair::Ecdsa(pair) => {
                // An uncompressed point: 0x04, then x and y of equal length.
                let point = &pair.public_key().as_ref()[1..];
                let (x, y) = point.split_at(point.len() / 2);
                let crv = if x.len() == 32 { "P-256" } else { "P-384" };
                jwk.insert("crv".into(), crv.into());
                jwk.insert("kty".into(), "EC".into());
                jwk.insert("x".into(), b64(x));
                jwk.insert("y".into(), b64(y));
            }
            Pair::Ed25519(pair) => {
                jwk.insert("crv".into(), "Ed25519".into());
                jwk.insert("kty".into(), "OKP".into());
                jwk.insert("x".into(), b64(pair.public_key().as_ref()));
            }
            Pair::Rsa(pair) => {
                let public: PublicKeyComponents<Vec<u8>> = pair.public().into();
                jwk.insert("e".into(), b64(&public.e));
                jwk.insert("kty".into(), "RSA".into());
                jwk.insert("n".into(), b64(&public.n));
            }
        }
        jwk
    }

    /// The RFC 7638 JWK SHA-256 thumbprint, base64url (DPoP's `jkt`).
    pub fn thumbprint(&self) -> String {
        jwk_thumbprint(&self.public_jwk())
    }

    /// Signs `input` (the JWS signing input) with the key's algorithm.
    pub(super) fn sign(&self, input: &[u8]) -> Result<Vec<u8>> {
        let failed = |_| Error::Auth(format!("signing with {} failed", self.algorithm));
        match (&*self.pair, self.algorithm.family()) {
            (Pair::Ecdsa(pair), _) => pair
                .sign(&SystemRandom::new(), input)
                .map(|s| s.as_ref().to_vec())
                .map_err(failed),
            (Pair::Ed25519(pair), _) => Ok(pair.sign(input).as_ref().to_vec()),
            (Pair::Rsa(pair), Family::Rsa(padding)) => {
                let mut out = vec![0u8; pair.public().modulus_len()];
                pair.sign(padding, &SystemRandom::new(), input, &mut out)
                    .map_err(failed)?;
                Ok(out)
            }
            (Pair::Rsa(_), _) => Err(invalid(format!(
                "an RSA key cannot sign {}",
                self.algorithm
            ))),
        }
    }
}

/// The RFC 7638 thumbprint of a public JWK: SHA-256 over its required
/// members, sorted, without white space.
pub(crate) fn jwk_thumbprint(jwk: &Map<String, Value>) -> String {
    let required: &[&str] = match jwk.get("kty").and_then(Value::as_str) {
        Some("EC") => &["crv", "kty", "x", "y"],
        Some("OKP") => &["crv", "kty", "x"],
        Some("RSA") => &["e", "kty", "n"],
        _ => &["kty"],
    };
    let canonical: Map<String, Value> = required
        .iter()
        .filter_map(|&k| jwk.get(k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let text = Value::Object(canonical).to_string();
    URL_SAFE_NO_PAD.encode(Sha256::digest(text.as_bytes()))
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SigningKey")
            .field("algorithm", &self.algorithm)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// Equal when they sign with the same algorithm, key id and public key.
impl PartialEq for SigningKey {
    fn eq(&self, other: &Self) -> bool {
        self.algorithm == other.algorithm
            && self.key_id == other.key_id
            && self.public_jwk() == other.public_jwk()
    }
}

impl Eq for SigningKey {}

/// How an algorithm signs, in ring's terms.
pub(super) enum Family {
    Ecdsa(&'static signature::EcdsaSigningAlgorithm),
    Ed25519,
    Rsa(&'static dyn signature::RsaEncoding),
}

/// The label and DER bytes of the first PEM block of `pem`.
fn pem_block(pem: &str) -> Result<(String, Vec<u8>)> {
    let begin = pem
        .find("-----BEGIN ")
        .ok_or_else(|| invalid("not PEM: no `-----BEGIN` line"))?;
    let rest = &pem[begin + "-----BEGIN ".len()..];
    let label_end = rest
        .find("-----")
        .ok_or_else(|| invalid("not PEM: the BEGIN line is not closed"))?;
    let label = rest[..label_end].to_string();
    let body = &rest[label_end + 5..];
    let end_marker = format!("-----END {label}-----");
    let end = body
        .find(&end_marker)
        .ok_or_else(|| invalid(format!("not PEM: no `{end_marker}` line")))?;
    let base64: String = body[..end].chars().filter(|c| !c.is_whitespace()).collect();
    let der = STANDARD
        .decode(base64)
        .map_err(|e| invalid(format!("the PEM body is not base64: {e}")))?;
    Ok((label, der))
}
