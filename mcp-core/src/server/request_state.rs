//! `requestState` of input-required rounds (2026-07-28): what a request's
//! earlier rounds gathered, sealed so that the client — which must echo it
//! unchanged and which the spec tells servers to distrust — can neither read
//! it as a contract nor change it.
//!
//! Format: `base64url(payload JSON) "." base64url(HMAC-SHA256(key, payload))`.
//! The payload binds the state to the request it was made for (method and
//! params, `_meta` and the round fields left out) and expires. Any server
//! holding the same [`RequestStateKey`] can open it, so rounds may land on
//! different replicas.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::jsonrpc::RpcError;
pub use crate::store::RequestStateKey;

/// How long a client may take to answer one round.
pub(crate) const LIFETIME: Duration = Duration::from_secs(600);

// The key type lives in `store` (a shared store hands it out); sealing
// with it is the role's business.
impl RequestStateKey {
    /// This process's key, drawn once.
    pub(crate) fn process() -> Result<&'static Self, RpcError> {
        static KEY: OnceLock<Option<RequestStateKey>> = OnceLock::new();
        KEY.get_or_init(|| Self::random().ok())
            .as_ref()
            .ok_or_else(|| RpcError::internal("no randomness for the requestState key"))
    }

    fn mac(&self, data: &[u8]) -> [u8; 32] {
        const BLOCK: usize = 64;
        let mut inner = Sha256::new();
        let mut outer = Sha256::new();
        let mut ipad = [0x36u8; BLOCK];
        let mut opad = [0x5cu8; BLOCK];
        for (i, b) in self.bytes().iter().enumerate() {
            ipad[i] ^= b;
            opad[i] ^= b;
        }
        inner.update(ipad);
        inner.update(data);
        outer.update(opad);
        outer.update(inner.finalize());
        outer.finalize().into()
    }
}

/// What a sealed state holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct RoundState {
    /// Hash of the request it belongs to.
    #[serde(rename = "b")]
    pub(crate) binding: String,
    /// Expiry, milliseconds since the Unix epoch.
    #[serde(rename = "e")]
    pub(crate) expires: u64,
    /// Every answer so far, by input key.
    #[serde(rename = "a")]
    pub(crate) answers: Map<String, Value>,
    /// What the handler chose to carry to its next round.
    #[serde(rename = "h", default, skip_serializing_if = "Option::is_none")]
    pub(crate) handler: Option<Value>,
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The expiry of a state sealed now.
pub(crate) fn expiry() -> u64 {
    now_ms().saturating_add(u64::try_from(LIFETIME.as_millis()).unwrap_or(u64::MAX))
}

/// Binds a state to one request: its method and its params without the
/// parts that change between rounds (`_meta`, `inputResponses`,
/// `requestState`), with object keys sorted so that a client that rebuilds
/// the params in another order still matches.
pub(crate) fn binding(method: &str, params: &Value) -> String {
    fn canonical(v: &Value) -> Value {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), canonical(&o[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
            other => other.clone(),
        }
    }
    let mut params = params.clone();
    if let Value::Object(o) = &mut params {
        for key in ["_meta", "inputResponses", "requestState"] {
            o.remove(key);
        }
    }
    let text = json!([method, canonical(&params)]).to_string();
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut hex = String::with_capacity(64);
    for b in Sha256::digest(text.as_bytes()) {
        hex.push(char::from(HEX[usize::from(b >> 4)]));
        hex.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    hex
}

/// Seals `state`.
pub(crate) fn seal(key: &RequestStateKey, state: &RoundState) -> Result<String, RpcError> {
    let payload = serde_json::to_vec(state)
        .map_err(|e| RpcError::internal(format!("could not encode requestState: {e}")))?;
    let mac = key.mac(&payload);
    Ok(format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&payload),
        URL_SAFE_NO_PAD.encode(mac)
    ))
}

/// Opens a `requestState` sealed with `key` for the request `binding`.
/// Anything else — changed, made for another request, expired — is -32602
/// with `data.reason` `invalid_request_state`, and what it held is not
/// used.
pub(crate) fn open(
    key: &RequestStateKey,
    text: &str,
    binding: &str,
) -> Result<RoundState, RpcError> {
    let invalid = |why: &str| {
        RpcError::invalid_params(format!("invalid requestState: {why}"))
            .with_data(json!({ "reason": "invalid_request_state" }))
    };
    let (payload, mac) = text
        .split_once('.')
        .ok_or_else(|| invalid("not a sealed state"))?;
    let payload = URL_SAFE_NO_PAD
        .decode(payload)
        .map_err(|_| invalid("not a sealed state"))?;
    let mac = URL_SAFE_NO_PAD
        .decode(mac)
        .map_err(|_| invalid("not a sealed state"))?;
    let expected = key.mac(&payload);
    // Compared in constant time: the MAC is the secret's witness.
    let same = mac.len() == expected.len()
        && mac
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if !same {
        return Err(invalid("it was changed, or sealed by another server"));
    }
    let state: RoundState =
        serde_json::from_slice(&payload).map_err(|_| invalid("not a sealed state"))?;
    if state.binding != binding {
        return Err(invalid("it belongs to another request"));
    }
    if state.expires < now_ms() {
        return Err(invalid("it has expired"));
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(binding: &str) -> RoundState {
        let mut answers = Map::new();
        answers.insert("k".into(), json!({"action": "accept"}));
        RoundState {
            binding: binding.into(),
            expires: expiry(),
            answers,
            handler: Some(json!({"round": 1})),
        }
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        // Key "Jefe" padded to 32 bytes with zeros is the same HMAC key.
        let mut key = [0u8; 32];
        key[..4].copy_from_slice(b"Jefe");
        let mac = RequestStateKey::from_bytes(key).mac(b"what do ya want for nothing?");
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_sealed_state_opens_only_unchanged_for_its_request() {
        let key = RequestStateKey::from_bytes([7; 32]);
        let b = binding(
            "tools/call",
            &json!({"name": "t", "arguments": {"x": 1, "y": 2}}),
        );
        // Key order and round fields do not change the binding.
        assert_eq!(
            b,
            binding(
                "tools/call",
                &json!({"arguments": {"y": 2, "x": 1}, "name": "t", "_meta": {}, "requestState": "s"})
            )
        );
        // One state (its expiry read from the clock once), sealed and opened.
        let original = state(&b);
        let sealed = seal(&key, &original).unwrap();
        assert_eq!(open(&key, &sealed, &b).unwrap(), original);
        let tampered = format!("{sealed}-TAMPERED");
        let e = open(&key, &tampered, &b).unwrap_err();
        assert_eq!(e.code, crate::jsonrpc::ErrorCode::INVALID_PARAMS);
        assert_eq!(e.data.unwrap()["reason"], "invalid_request_state");
        // Another key, another request, or an expired state.
        assert!(open(&RequestStateKey::from_bytes([8; 32]), &sealed, &b).is_err());
        assert!(open(&key, &sealed, &binding("tools/call", &json!({"name": "u"}))).is_err());
        let old = RoundState {
            expires: 1,
            ..state(&b)
        };
        assert!(open(&key, &seal(&key, &old).unwrap(), &b).is_err());
        assert!(open(&key, "garbage", &b).is_err());
        // A payload swapped under the same MAC is refused.
        let (_, mac) = sealed.split_once('.').unwrap();
        let other = seal(
            &key,
            &RoundState {
                handler: None,
                ..state(&b)
            },
        )
        .unwrap();
        let (payload, _) = other.split_once('.').unwrap();
        assert!(open(&key, &format!("{payload}.{mac}"), &b).is_err());
    }
}
