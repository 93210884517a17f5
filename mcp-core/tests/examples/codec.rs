//! Ways of reading a JSON value (a generated type, a union, a result by its
//! method), each returning what the value re-encodes to.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// What reading a value gave.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// Decoded; the value re-encoded.
    Decoded(Value),
    /// Decoding failed.
    Rejected(String),
    /// Decoded, but wrongly (another variant, text and `Value` disagree).
    Wrong(String),
}

/// One way of reading a value.
pub(crate) struct Check {
    /// E.g. `v2026_07_28::CallToolRequest`.
    pub(crate) what: String,
    /// A version-neutral type: it requires a field only where every
    /// revision does.
    pub(crate) neutral: bool,
    /// The JSON pointer of the part this check reads (`/result` of a
    /// response), `""` for the whole value.
    pub(crate) at: &'static str,
    /// Whether broken copies must be rejected. Not for a general type the
    /// value is one case of (`JsonrpcMessage`, `ErrorObject`): a copy that
    /// breaks the specific type may still be another case of the general one
    /// (a request without `id` is a notification).
    pub(crate) judges: bool,
    pub(crate) run: Box<dyn Fn(&Value) -> Outcome + Send + Sync>,
}

impl Check {
    pub(crate) fn new(
        what: impl Into<String>,
        neutral: bool,
        at: &'static str,
        run: impl Fn(&Value) -> Outcome + Send + Sync + 'static,
    ) -> Self {
        Self {
            what: what.into(),
            neutral,
            at,
            judges: true,
            run: Box::new(run),
        }
    }

    /// A check of a general type the value is one case of: it must read the
    /// value, but may accept broken copies.
    pub(crate) fn general(self) -> Self {
        Self {
            judges: false,
            ..self
        }
    }

    /// Reads the part of `value` this check is about.
    pub(crate) fn read(&self, value: &Value) -> Outcome {
        match value.pointer(self.at) {
            Some(part) => (self.run)(part),
            None => Outcome::Rejected(format!("nothing at `{}`", self.at)),
        }
    }
}

/// Decodes `value` as a `T` from JSON text (serde_json's reader, the
/// engine's path) and from a `Value`, and re-encodes it.
pub(crate) fn decode<T>(value: &Value) -> Result<T, Outcome>
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let from_text = serde_json::from_str::<T>(&text);
    let from_value = serde_json::from_value::<T>(value.clone());
    match (from_text, from_value) {
        (Ok(a), Ok(b)) if a == b => Ok(a),
        (Ok(a), Ok(b)) => Err(Outcome::Wrong(format!(
            "decodes differently from text ({a:?}) and from a Value ({b:?})"
        ))),
        (Err(e), Err(_)) => Err(Outcome::Rejected(e.to_string())),
        (Ok(_), Err(e)) => Err(Outcome::Wrong(format!(
            "decodes from text but not from a Value: {e}"
        ))),
        (Err(e), Ok(_)) => Err(Outcome::Wrong(format!(
            "decodes from a Value but not from text: {e}"
        ))),
    }
}

/// Re-encodes, checking that the text form parses back to the same JSON.
pub(crate) fn encode<T: Serialize>(decoded: &T) -> Outcome {
    let value = serde_json::to_value(decoded).unwrap();
    let text = serde_json::to_string(decoded).unwrap();
    let reparsed: Value = serde_json::from_str(&text).unwrap();
    if reparsed == value {
        Outcome::Decoded(value)
    } else {
        Outcome::Wrong(format!(
            "encodes differently to text ({text}) and to a Value ({value})"
        ))
    }
}

/// Reads `value` as a `T`.
pub(crate) fn through<T>(value: &Value) -> Outcome
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    match decode::<T>(value) {
        Ok(decoded) => encode(&decoded),
        Err(outcome) => outcome,
    }
}

/// Reads every value of a JSON object as a `T` (the members of
/// `InputRequests`, `InputResponses`).
pub(crate) fn each_value<T>(value: &Value) -> Outcome
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let Some(obj) = value.as_object() else {
        return Outcome::Rejected("not an object".into());
    };
    let mut out = serde_json::Map::new();
    for (key, member) in obj {
        match through::<T>(member) {
            Outcome::Decoded(v) => {
                out.insert(key.clone(), v);
            }
            other => return other,
        }
    }
    Outcome::Decoded(Value::Object(out))
}

/// A discriminated union: decoded by its tag property.
pub(crate) trait Tagged: Serialize + DeserializeOwned + PartialEq + Debug {
    /// The discriminating property.
    const TAG: &'static str;
    fn tag_value(&self) -> &'static str;
}

/// Reads `value` as the union `U` and as its member `T`: the union must hold
/// exactly what `T` decodes to, under the tag the value names.
pub(crate) fn member<T, U>(value: &Value) -> Outcome
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + Into<U>,
    U: Tagged,
{
    let union = match decode::<U>(value) {
        Ok(u) => u,
        Err(outcome) => return outcome,
    };
    let specific = match decode::<T>(value) {
        Ok(t) => t,
        Err(Outcome::Rejected(e)) => {
            return Outcome::Wrong(format!("the union accepts what the member rejects: {e}"));
        }
        Err(outcome) => return outcome,
    };
    if let Some(tag) = value.get(U::TAG).and_then(Value::as_str) {
        if union.tag_value() != tag {
            return Outcome::Wrong(format!(
                "decoded as `{}`, the message says `{tag}`",
                union.tag_value()
            ));
        }
    }
    let wrapped: U = specific.into();
    if wrapped != union {
        return Outcome::Wrong(format!("the union holds {union:?}, not {wrapped:?}"));
    }
    encode(&union)
}

/// A result union decoded by the method of the request it answers.
pub(crate) trait ByMethod: Serialize + PartialEq + Debug + Sized {
    fn decode_for(method: &str, value: Value) -> Result<Self, serde_json::Error>;
    fn decode_text_for(method: &str, text: &str) -> Result<Self, serde_json::Error>;
    fn method_name(&self) -> &'static str;
}

/// Reads `value` as the result of a `method` request through the union `U`.
pub(crate) fn by_method<U: ByMethod>(method: &'static str) -> impl Fn(&Value) -> Outcome {
    move |value| {
        let text = serde_json::to_string(value).unwrap();
        let decoded = match (
            U::decode_text_for(method, &text),
            U::decode_for(method, value.clone()),
        ) {
            (Ok(a), Ok(b)) if a == b => a,
            (Err(e), Err(_)) => return Outcome::Rejected(e.to_string()),
            (a, b) => return Outcome::Wrong(format!("text gives {a:?}, a Value {b:?}")),
        };
        if decoded.method_name() != method {
            return Outcome::Wrong(format!(
                "decoded as the result of `{}`",
                decoded.method_name()
            ));
        }
        encode(&decoded)
    }
}

macro_rules! tagged {
    ($tag:literal: $($union:path),* $(,)?) => {
        $(
            impl Tagged for $union {
                const TAG: &'static str = $tag;
                fn tag_value(&self) -> &'static str {
                    self.tag()
                }
            }
        )*
    };
}

macro_rules! by_method {
    ($($union:path => $methods:path),* $(,)?) => {
        $(
            impl ByMethod for $union {
                fn decode_for(method: &str, value: Value) -> Result<Self, serde_json::Error> {
                    let m = <$methods>::from_name(method)
                        .unwrap_or_else(|| panic!("no method `{method}` in {}", stringify!($methods)));
                    Self::from_value(m, value)
                }
                fn decode_text_for(method: &str, text: &str) -> Result<Self, serde_json::Error> {
                    let m = <$methods>::from_name(method)
                        .unwrap_or_else(|| panic!("no method `{method}` in {}", stringify!($methods)));
                    Self::from_json_str(m, text)
                }
                fn method_name(&self) -> &'static str {
                    self.method().as_str()
                }
            }
        )*
    };
}

mod impls {
    use super::*;
    use mcp_core::schema as n;
    use mcp_core::schema::{v2025_11_25 as v25, v2026_07_28 as v26};

    tagged!("method":
        n::ClientRequest, n::ServerRequest, n::ClientNotification, n::ServerNotification,
        n::InputRequest,
        v25::ClientRequest, v25::ServerRequest, v25::ClientNotification, v25::ServerNotification,
        v26::ClientRequest, v26::ClientNotification, v26::ServerNotification, v26::InputRequest,
    );
    tagged!("type":
        n::ContentBlock, n::SamplingMessageContentBlock,
        v25::ContentBlock, v25::SamplingMessageContentBlock,
        v26::ContentBlock, v26::SamplingMessageContentBlock,
    );
    tagged!("mode": n::ElicitRequestParams, v25::ElicitRequestParams, v26::ElicitRequestParams);

    by_method!(
        n::ServerResult => n::ClientRequestMethod,
        n::ClientResult => n::ServerRequestMethod,
        v25::ServerResult => v25::ClientRequestMethod,
        v25::ClientResult => v25::ServerRequestMethod,
        v26::ServerResult => v26::ClientRequestMethod,
    );
}
