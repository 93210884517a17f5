//! Round-trip helpers: decode, re-encode, and compare with the original JSON.

use std::fmt::Debug;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

// ---------------------------------------------------------------------------
// Round-trip helpers

/// The first place where `expected` and `actual` differ, as a JSON pointer
/// with both values. `Value` equality ignores object key order but not the
/// kind of a number (`150` is not `150.0`).
pub(crate) fn first_difference(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let p = format!("{path}/{k}");
                match b.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(&p, va, vb) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{p}: {va} was dropped")),
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}/{k}: {} was added", b[k]))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}/{i}"), va, vb)),
        _ if expected == actual => None,
        _ => Some(format!("{path}: expected {expected}, got {actual}")),
    }
}

pub(crate) fn assert_same_json(ctx: &str, what: &str, expected: &Value, actual: &Value) {
    if expected != actual {
        let at = first_difference("", expected, actual).unwrap_or_default();
        panic!(
            "{ctx}: re-encoding through `{what}` changed the JSON at {at}\n\
             expected: {expected}\n     got: {actual}"
        );
    }
}

/// Decodes `value` as a `T` from JSON text (`from_str`) and from a `Value`
/// (`from_value`), checks the two agree, re-encodes and checks the result is
/// the same JSON as `value`.
pub(crate) fn round_trip<T>(ctx: &str, what: &str, value: &Value) -> T
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let from_text: T = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{ctx}: decoding as `{what}` failed: {e}\n{text}"));
    let from_value: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{ctx}: decoding a Value as `{what}` failed: {e}"));
    assert_eq!(
        from_text, from_value,
        "{ctx}: `{what}` decodes differently from text and from a Value"
    );
    let back = serde_json::to_value(&from_text).unwrap();
    assert_same_json(ctx, what, value, &back);
    // The text form too: it must parse back to the same JSON.
    let back_text = serde_json::to_string(&from_text).unwrap();
    let reparsed: Value = serde_json::from_str(&back_text).unwrap();
    assert_same_json(ctx, what, value, &reparsed);
    from_text
}

pub(crate) fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}
