//! The version-neutral schema: one set of types that reads and writes the
//! messages of every revision the code is generated from.
//!
//! Handlers are written once against these types; the per-revision codec
//! stamps or strips what differs on the wire. The neutral schema is the
//! revisions merged, oldest first:
//!
//! - every def of every revision is kept (a def only one revision has keeps
//!   its shape);
//! - a union (`anyOf`) has the members of every revision, in order of first
//!   appearance;
//! - an object has the properties of every revision; a property is required
//!   only where every revision that has the def requires it, so a message of
//!   either revision decodes;
//! - where a property's schema differs, the rules in [`merge_property`]
//!   decide, and a difference no rule covers is an error: a new revision makes
//!   the generator stop until someone decides.

use serde_json::{Map, Value};

use crate::Error;
use crate::names::defs;

/// Merges normalized revision schemas (oldest first) into one.
pub fn neutral(revisions: &[&Value]) -> Result<Value, Error> {
    let Some((first, rest)) = revisions.split_first() else {
        return Err(Error::Schema("no revision to merge".into()));
    };
    let mut merged = (*first).clone();
    for next in rest {
        let next_defs = defs(next).ok_or_else(|| Error::Schema("no `$defs`".into()))?;
        let merged_defs = merged
            .get_mut("$defs")
            .and_then(Value::as_object_mut)
            .ok_or_else(|| Error::Schema("no `$defs`".into()))?;
        for (name, def) in next_defs {
            let combined = match merged_defs.get(name) {
                Some(old) => merge_def(name, old, def)?,
                None => def.clone(),
            };
            merged_defs.insert(name.clone(), combined);
        }
    }
    Ok(merged)
}

fn merge_def(name: &str, old: &Value, new: &Value) -> Result<Value, Error> {
    if strip_docs(old) == strip_docs(new) {
        return Ok(old.clone());
    }
    if let (Some(a), Some(b)) = (members(old), members(new)) {
        let mut out = old.clone();
        let mut all = a;
        for m in b {
            if !all.contains(&m) {
                all.push(m);
            }
        }
        if let Some(obj) = out.as_object_mut() {
            obj.remove("$ref");
            obj.insert("anyOf".into(), Value::Array(all));
        }
        return Ok(out);
    }
    merge_object(name, old, new)
}

/// The members of a union: its `anyOf`, or the single `$ref` a def that is
/// just an alias stands for (2026-07-28's `ClientResult` is `$ref: Result`).
fn members(def: &Value) -> Option<Vec<Value>> {
    if let Some(any) = def.get("anyOf").and_then(Value::as_array) {
        return Some(any.clone());
    }
    let r = def.get("$ref")?;
    def.get("properties")
        .is_none()
        .then(|| vec![serde_json::json!({ "$ref": r })])
}

fn merge_object(path: &str, old: &Value, new: &Value) -> Result<Value, Error> {
    let (Some(a), Some(b)) = (old.as_object(), new.as_object()) else {
        return Err(Error::Schema(format!(
            "`{path}` differs and is not an object"
        )));
    };
    let mut out = a.clone();
    let empty = Map::new();
    let props_a = a
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let props_b = b
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut props = props_a.clone();
    for (key, schema_b) in props_b {
        let merged = match props_a.get(key) {
            Some(schema_a) => merge_property(&format!("{path}.{key}"), schema_a, schema_b)?,
            None => schema_b.clone(),
        };
        props.insert(key.clone(), merged);
    }
    if !props.is_empty() {
        out.insert("properties".into(), Value::Object(props));
    }
    // Required only where both require it (a prop one revision lacks is
    // optional).
    let required = |m: &Map<String, Value>| -> Vec<Value> {
        m.get("required")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let req_b = required(b);
    let req: Vec<Value> = required(a)
        .into_iter()
        .filter(|r| req_b.contains(r))
        .collect();
    if req.is_empty() {
        out.remove("required");
    } else {
        out.insert("required".into(), Value::Array(req));
    }
    // The looser `additionalProperties` wins.
    match (a.get("additionalProperties"), b.get("additionalProperties")) {
        (_, None) => {
            out.remove("additionalProperties");
        }
        (None, Some(_)) => {}
        (Some(x), Some(y)) if x == y => {}
        (Some(_), Some(y)) => {
            if is_any(y) || y == &Value::Bool(true) {
                out.insert("additionalProperties".into(), y.clone());
            }
        }
    }
    for key in b.keys() {
        if !out.contains_key(key) && !matches!(key.as_str(), "required" | "additionalProperties") {
            out.insert(key.clone(), b[key].clone());
        }
    }
    Ok(Value::Object(out))
}

/// Decides a property both revisions have with different schemas.
fn merge_property(path: &str, a: &Value, b: &Value) -> Result<Value, Error> {
    if strip_docs(a) == strip_docs(b) {
        return Ok(a.clone());
    }
    // Any JSON beats a narrower schema (2026-07-28's `structuredContent`).
    if is_any(a) {
        return Ok(a.clone());
    }
    if is_any(b) {
        return Ok(b.clone());
    }
    // Open objects: an inline `{type: object, additionalProperties}` beside a
    // `$ref` to a named open object (`MetaObject`, `JSONObject`, …) keeps the
    // older, open inline form: both accept every object.
    if is_open_object(a) && is_ref(b) || is_ref(a) && is_open_object(b) {
        return Ok(if is_open_object(a) { a } else { b }.clone());
    }
    // A named params type beside an inline object that holds only `_meta`
    // (2026-07-28's `roots/list` params): every params type takes `_meta`.
    if is_ref(a) && only_meta(b) || only_meta(a) && is_ref(b) {
        return Ok(if is_ref(a) { a } else { b }.clone());
    }
    // A property only one revision constrains (`const` on `resultType`).
    if a.get("const").is_some() != b.get("const").is_some() {
        return Ok(if a.get("const").is_some() { b } else { a }.clone());
    }
    // Two inline objects: merged like defs.
    if is_inline_object(a) && is_inline_object(b) {
        return merge_object(path, a, b);
    }
    // The same type with a bound only one revision sets (`maxItems`): the
    // unbounded one.
    if a.get("type") == b.get("type") && a.get("items") == b.get("items") {
        return Ok(
            if a.as_object().map(Map::len) <= b.as_object().map(Map::len) {
                a
            } else {
                b
            }
            .clone(),
        );
    }
    Err(Error::Schema(format!(
        "`{path}` differs between revisions and no merge rule covers it: {a} vs {b}"
    )))
}

fn is_any(v: &Value) -> bool {
    v.as_object()
        .is_some_and(|o| o.keys().all(|k| k == "description"))
}

fn only_meta(v: &Value) -> bool {
    is_inline_object(v)
        && v.get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.keys().all(|k| k == "_meta"))
}

fn is_ref(v: &Value) -> bool {
    v.get("$ref").is_some()
}

fn is_inline_object(v: &Value) -> bool {
    v.get("type").and_then(Value::as_str) == Some("object") && !is_ref(v)
}

fn is_open_object(v: &Value) -> bool {
    is_inline_object(v)
        && v.get("additionalProperties").is_some_and(|ap| {
            is_any(ap) || ap == &Value::Bool(true) || ap.get("additionalProperties").is_some()
        })
}

/// A schema without its documentation, for comparing shapes.
fn strip_docs(v: &Value) -> Value {
    match v {
        Value::Object(obj) => Value::Object(
            obj.iter()
                .filter(|(k, _)| *k != "description")
                .map(|(k, v)| (k.clone(), strip_docs(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(strip_docs).collect()),
        other => other.clone(),
    }
}
