//! Trace context in a message's `params._meta` (`traceparent`,
//! `tracestate`, `baggage`): read from the params' text of an incoming
//! message, written into the params of an outgoing one.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::TraceContext;

/// The key the other two mean nothing without.
const TRACEPARENT: &str = "traceparent";
const TRACESTATE: &str = "tracestate";
const BAGGAGE: &str = "baggage";

/// The trace context in `params._meta`, if it has a valid one. Params that
/// do not mention `traceparent` are not parsed; a value that is not a
/// string, or breaks its format, is ignored.
pub(crate) fn extract(params: Option<&str>) -> Option<TraceContext> {
    let params = params?;
    memchr::memmem::find(params.as_bytes(), TRACEPARENT.as_bytes())?;
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<Keys<'a>>,
    }
    #[derive(Deserialize)]
    struct Keys<'a> {
        #[serde(borrow, default)]
        traceparent: Option<Text<'a>>,
        #[serde(borrow, default)]
        tracestate: Option<Text<'a>>,
        #[serde(borrow, default)]
        baggage: Option<Text<'a>>,
    }
    /// A string, or anything else (ignored rather than failing the rest).
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text<'a> {
        Str(#[serde(borrow)] Cow<'a, str>),
        Other(serde::de::IgnoredAny),
    }
    impl Text<'_> {
        fn str(&self) -> Option<&str> {
            match self {
                Text::Str(s) => Some(s),
                Text::Other(_) => None,
            }
        }
    }
    let meta = serde_json::from_str::<Params<'_>>(params).ok()?.meta?;
    TraceContext::from_values(
        meta.traceparent.as_ref()?.str()?,
        meta.tracestate.as_ref().and_then(Text::str),
        meta.baggage.as_ref().and_then(Text::str),
    )
}

/// The three keys as JSON.
#[derive(Serialize)]
struct Keys<'a> {
    traceparent: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    tracestate: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    baggage: Option<&'a str>,
}

impl<'a> Keys<'a> {
    fn of(context: &'a TraceContext) -> Self {
        Self {
            traceparent: context.parent.to_string(),
            tracestate: context.tracestate.as_deref(),
            baggage: context.baggage.as_deref(),
        }
    }
}

/// `params` with `context` in their `_meta`. Params without `_meta` get it
/// written in front of their text, without parsing them; params with one
/// are parsed and the keys added where the sender has not set them. Params
/// that are not an object (or absent) are returned as they were, but for
/// none at all, which become `{"_meta": …}`.
pub(crate) fn inject(
    params: Box<RawValue>,
    context: &TraceContext,
) -> serde_json::Result<Box<RawValue>> {
    let text = params.get();
    if text == "null" {
        let meta = serde_json::to_string(&Keys::of(context))?;
        return RawValue::from_string(format!("{{\"_meta\":{meta}}}"));
    }
    let Some(rest) = text.strip_prefix('{') else {
        return Ok(params);
    };
    if memchr::memmem::find(text.as_bytes(), b"\"_meta\"").is_none() {
        let meta = serde_json::to_string(&Keys::of(context))?;
        let rest = rest.trim_start();
        let comma = if rest.starts_with('}') { "" } else { "," };
        return RawValue::from_string(format!("{{\"_meta\":{meta}{comma}{rest}"));
    }
    let mut value: Value = serde_json::from_str(text)?;
    if let Some(object) = value.as_object_mut() {
        insert(object, context);
    }
    serde_json::value::to_raw_value(&value)
}

/// Adds `context` to the `_meta` of `params` (an object), keeping keys the
/// sender set itself.
pub(crate) fn insert(params: &mut Map<String, Value>, context: &TraceContext) {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(meta) = meta.as_object_mut() else {
        return;
    };
    if meta.contains_key(TRACEPARENT) {
        return;
    }
    meta.insert(TRACEPARENT.into(), context.parent.to_string().into());
    if let Some(state) = &context.tracestate {
        meta.entry(TRACESTATE)
            .or_insert_with(|| state.clone().into());
    }
    if let Some(baggage) = &context.baggage {
        meta.entry(BAGGAGE)
            .or_insert_with(|| baggage.clone().into());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    fn context() -> TraceContext {
        TraceContext::from_values(PARENT, Some("rojo=1"), Some("user=alice")).unwrap()
    }

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_string()).unwrap()
    }

    #[test]
    fn reads_the_three_keys() {
        let params = format!(
            r#"{{"name":"x","_meta":{{"traceparent":"{PARENT}","tracestate":"rojo=1","baggage":"user=alice","other":1}}}}"#
        );
        assert_eq!(extract(Some(&params)), Some(context()));
    }

    #[test]
    fn ignores_what_is_malformed() {
        for params in [
            r#"{"name":"traceparent"}"#.to_string(),
            r#"{"_meta":{"traceparent":"00-garbage"}}"#.to_string(),
            r#"{"_meta":{"traceparent":17}}"#.to_string(),
            r#"{"_meta":"traceparent"}"#.to_string(),
            r#"["traceparent"]"#.to_string(),
            "{\"_meta\":{\"traceparent\":".to_string(),
        ] {
            assert_eq!(extract(Some(&params)), None, "{params}");
        }
        assert_eq!(extract(None), None);
        // A bad tracestate or baggage leaves the parent.
        let params = format!(
            r#"{{"_meta":{{"traceparent":"{PARENT}","tracestate":5,"baggage":"no equals"}}}}"#
        );
        let context = extract(Some(&params)).unwrap();
        assert_eq!((context.tracestate, context.baggage), (None, None));
    }

    #[test]
    fn writes_into_params() {
        let context = context();
        let expect = format!(
            r#""_meta":{{"traceparent":"{PARENT}","tracestate":"rojo=1","baggage":"user=alice"}}"#
        );
        let out = inject(raw("null"), &context).unwrap();
        assert_eq!(out.get(), format!("{{{expect}}}"));
        let out = inject(raw("{}"), &context).unwrap();
        assert_eq!(out.get(), format!("{{{expect}}}"));
        let out = inject(raw(r#"{"name":"t"}"#), &context).unwrap();
        assert_eq!(out.get(), format!(r#"{{{expect},"name":"t"}}"#));
        // An existing `_meta` keeps its keys, and a sender's own traceparent.
        let out = inject(raw(r#"{"_meta":{"progressToken":1}}"#), &context).unwrap();
        assert_eq!(extract(Some(out.get())), Some(context.clone()));
        assert!(out.get().contains("progressToken"));
        let own = r#"{"_meta":{"traceparent":"00-11111111111111111111111111111111-2222222222222222-00"}}"#;
        let out = inject(raw(own), &context).unwrap();
        assert!(!out.get().contains(PARENT), "{}", out.get());
        let out = inject(raw("[1]"), &context).unwrap();
        assert_eq!(out.get(), "[1]");
        // What is written reads back.
        let out = inject(raw(r#"{"a":{"b":[]}}"#), &context).unwrap();
        assert_eq!(extract(Some(out.get())), Some(context));
    }
}
