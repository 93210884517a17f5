//! How a union of classes is decoded: by its discriminator when the members
//! carry distinct constants in one property (`type`, `method`, `mode`), else
//! by the member whose required keys and fixed values the data matches best.

use serde_json::{Map, Value};

use super::object::ObjectView;
use super::text::string;
use crate::Error;

/// The properties a union may be discriminated by, tried in order.
const TAGS: &[&str] = &["type", "method", "mode"];

/// A Python expression decoding a dict as one of `members` (class defs).
pub(super) fn decoder(members: &[String], defs: &Map<String, Value>) -> Result<String, Error> {
    let views = members
        .iter()
        .map(|m| {
            let def = defs
                .get(m)
                .ok_or_else(|| Error::Schema(format!("union member `{m}` is missing")))?;
            ObjectView::of(def, defs)
        })
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(tagged) = tagged(members, &views) {
        return Ok(tagged);
    }
    let arms = members
        .iter()
        .zip(&views)
        .map(|(member, view)| {
            let required: Vec<String> = view.required.iter().map(|r| string(r)).collect();
            let fixed = view
                .props
                .iter()
                .filter_map(|(name, schema)| {
                    let values = fixed_values(name, schema)?;
                    Some(format!("{}: ({})", string(name), tuple(&values)))
                })
                .collect::<Vec<_>>();
            Ok(format!(
                "({member}, ({}), {{{}}})",
                tuple(&required),
                fixed.join(", ")
            ))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    Ok(format!("_model.best_match({})", arms.join(", ")))
}

/// `_model.tagged(…)` when the members are told apart by a constant.
fn tagged(members: &[String], views: &[ObjectView]) -> Option<String> {
    'tags: for tag in TAGS {
        let mut arms = Vec::new();
        let mut default = None;
        for (member, view) in members.iter().zip(views) {
            let Some(value) = view.const_of(tag) else {
                continue 'tags;
            };
            if arms.iter().any(|(v, _)| *v == value) {
                continue 'tags;
            }
            if !view.is_required(tag) {
                if default.is_some() {
                    continue 'tags;
                }
                default = Some(member.as_str());
            }
            arms.push((value, member.as_str()));
        }
        let arms: Vec<String> = arms
            .iter()
            .map(|(value, member)| format!("{}: {member}", string(value)))
            .collect();
        return Some(format!(
            "_model.tagged({}, {{{}}}, {})",
            string(tag),
            arms.join(", "),
            default.unwrap_or("None")
        ));
    }
    None
}

/// The values a property is fixed to, as Python literals: its `const`, or
/// the `enum` of a discriminating property (other enums may grow, and a new
/// value must not make the data match no member).
fn fixed_values(name: &str, schema: &Value) -> Option<Vec<String>> {
    let values: Vec<&Value> = match (schema.get("const"), schema.get("enum")) {
        (Some(c), _) => vec![c],
        (None, Some(Value::Array(e))) if TAGS.contains(&name) => e.iter().collect(),
        _ => return None,
    };
    values.into_iter().map(literal).collect()
}

/// A JSON scalar as a Python literal.
pub(super) fn literal(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(string(s)),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        _ => None,
    }
}

/// A Python tuple of already-rendered items.
fn tuple(items: &[String]) -> String {
    match items {
        [one] => format!("{one},"),
        _ => items.join(", "),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn defs() -> Map<String, Value> {
        let schema = json!({
            "Text": {"properties": {"type": {"const": "text"}, "text": {"type": "string"}}, "required": ["type", "text"]},
            "Image": {"properties": {"type": {"const": "image"}}, "required": ["type"]},
            "Form": {"properties": {"mode": {"const": "form"}}},
            "Url": {"properties": {"mode": {"const": "url"}, "url": {"type": "string"}}, "required": ["mode", "url"]},
            "Number": {"properties": {"type": {"enum": ["number", "integer"]}}, "required": ["type"]},
            "Str": {"properties": {"type": {"const": "string"}}, "required": ["type"]},
            "Enum": {"properties": {"type": {"const": "string"}, "enum": {"type": "array"}}, "required": ["type", "enum"]},
        });
        schema.as_object().cloned().unwrap()
    }

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_shared_constant_discriminates() {
        let d = decoder(&names(&["Text", "Image"]), &defs()).unwrap();
        assert_eq!(
            d,
            r#"_model.tagged("type", {"text": Text, "image": Image}, None)"#
        );
        let d = decoder(&names(&["Url", "Form"]), &defs()).unwrap();
        assert_eq!(
            d,
            r#"_model.tagged("mode", {"url": Url, "form": Form}, Form)"#
        );
    }

    #[test]
    fn otherwise_the_best_match_decides() {
        let d = decoder(&names(&["Str", "Number", "Enum"]), &defs()).unwrap();
        assert_eq!(
            d,
            r#"_model.best_match((Str, ("type",), {"type": ("string",)}), (Number, ("type",), {"type": ("number", "integer")}), (Enum, ("type", "enum"), {"type": ("string",)}))"#
        );
    }
}
