//! Which defs the Python module holds, and what each becomes.
//!
//! A Python user receives or returns results, params, notifications' params
//! and what they contain; the JSON-RPC layer (envelopes, whole requests and
//! notifications, error responses) stays inside the engine. So the roots are
//! every def named `…Result` or `…Params`, the generic `Notification`, every
//! union of data (members that are not messages) and every string enum, and
//! everything they refer to is taken too. `_meta` is always a plain dict, so
//! what it refers to is not followed.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::object::ref_name;
use crate::Error;

/// What a def becomes in Python.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Kind {
    /// An object: a dataclass.
    Class,
    /// An `anyOf` of `$ref`s: a `Union` alias with a decoder.
    Union(Vec<String>),
    /// Anything else (scalar, enum, map, `$ref` to another def): an alias.
    Alias,
}

/// The defs to generate, by name.
pub(super) fn select(defs: &Map<String, Value>) -> Result<BTreeMap<String, Kind>, Error> {
    let mut stack: Vec<String> = defs
        .iter()
        .filter(|(name, def)| is_root(name, def, defs))
        .map(|(name, _)| name.clone())
        .collect();
    let mut selected = BTreeMap::new();
    while let Some(name) = stack.pop() {
        if selected.contains_key(&name) {
            continue;
        }
        let def = defs
            .get(&name)
            .ok_or_else(|| Error::Schema(format!("`$ref` to missing `{name}`")))?;
        let mut found = Vec::new();
        refs(def, &mut found);
        stack.extend(found.into_iter().map(String::from));
        selected.insert(name, kind(def));
    }
    Ok(selected)
}

fn kind(def: &Value) -> Kind {
    if let Some(members) = union_members(def) {
        return Kind::Union(members.into_iter().map(String::from).collect());
    }
    let has_props = def
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty());
    if has_props || def.get("allOf").is_some() {
        Kind::Class
    } else {
        Kind::Alias
    }
}

/// The members of an `anyOf` made only of `$ref`s.
fn union_members(def: &Value) -> Option<Vec<&str>> {
    def.get("anyOf")?.as_array()?.iter().map(ref_name).collect()
}

fn is_root(name: &str, def: &Value, defs: &Map<String, Value>) -> bool {
    let string_enum =
        def.get("type").and_then(Value::as_str) == Some("string") && def.get("enum").is_some();
    let data_union = union_members(def).is_some_and(|members| {
        members.iter().all(|m| {
            defs.get(*m).is_some_and(|d| {
                d.pointer("/properties/method").is_none()
                    && d.pointer("/properties/jsonrpc").is_none()
            })
        })
    });
    name.ends_with("Result")
        || name.ends_with("Params")
        || name == "Notification"
        || string_enum
        || data_union
}

/// Every def `schema` refers to, except through `_meta`.
fn refs<'a>(schema: &'a Value, out: &mut Vec<&'a str>) {
    match schema {
        Value::Object(obj) => {
            for (key, value) in obj {
                if key == "$ref" {
                    out.extend(ref_name(schema));
                } else if key == "properties" {
                    for (prop, sub) in value.as_object().into_iter().flatten() {
                        if prop != "_meta" {
                            refs(sub, out);
                        }
                    }
                } else {
                    refs(value, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_params_and_what_they_use_are_selected_messages_are_not() {
        let schema = json!({
            "CallToolRequest": {"properties": {"method": {"const": "tools/call"}, "params": {"$ref": "#/$defs/CallToolRequestParams"}}},
            "CallToolRequestParams": {"properties": {"name": {"type": "string"}, "_meta": {"$ref": "#/$defs/MetaObject"}}},
            "MetaObject": {"type": "object"},
            "CallToolResult": {"properties": {"content": {"items": {"$ref": "#/$defs/ContentBlock"}, "type": "array"}}},
            "ContentBlock": {"anyOf": [{"$ref": "#/$defs/TextContent"}]},
            "TextContent": {"properties": {"type": {"const": "text"}}},
            "Role": {"type": "string", "enum": ["user"]},
            "Cursor": {"type": "string"},
        });
        let defs = schema.as_object().unwrap();
        let selected = select(defs).unwrap();
        let names: Vec<&str> = selected.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "CallToolRequestParams",
                "CallToolResult",
                "ContentBlock",
                "Role",
                "TextContent"
            ]
        );
        assert_eq!(
            selected["ContentBlock"],
            Kind::Union(vec!["TextContent".into()])
        );
        assert_eq!(selected["Role"], Kind::Alias);
        assert_eq!(selected["TextContent"], Kind::Class);
    }
}
