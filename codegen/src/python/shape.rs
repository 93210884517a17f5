//! What a schema is in Python: a type hint, and the decoder (a Python
//! expression) that turns the wire value into it, if it needs one.
//!
//! Objects with a def become their class; unions of classes are decoded by
//! [`super::unions`]; arrays and maps decode their items. Inline objects stay
//! dicts (tool schemas, capabilities' sub-objects), unless [`super::compat`]
//! names them. A shape no rule covers is an error, so a new revision stops
//! the generator until someone decides.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::compat;
use super::object::{ref_name, strip_docs};
use super::select::Kind;
use super::text::snake;
use super::unions::{self, literal};
use crate::Error;

/// A Python type hint and how the wire value becomes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Ty {
    pub(super) hint: String,
    /// A Python expression (a callable), or `None` when the wire value is
    /// used as is.
    pub(super) decode: Option<String>,
    /// JSON `null` is a value of the type.
    pub(super) nullable: bool,
}

impl Ty {
    fn plain(hint: impl Into<String>) -> Self {
        Self {
            hint: hint.into(),
            decode: None,
            nullable: false,
        }
    }
}

/// An inline schema that has a name in Python.
#[derive(Debug)]
struct Named {
    /// The schema, without documentation.
    schema: Value,
    name: String,
    class: bool,
}

/// Maps schemas to [`Ty`]s against the selected defs.
#[derive(Debug)]
pub(super) struct Shapes<'a> {
    pub(super) defs: &'a Map<String, Value>,
    pub(super) kinds: &'a BTreeMap<String, Kind>,
    named: Vec<Named>,
}

impl<'a> Shapes<'a> {
    pub(super) fn new(
        defs: &'a Map<String, Value>,
        kinds: &'a BTreeMap<String, Kind>,
    ) -> Result<Self, Error> {
        let mut named = Vec::new();
        for (name, def, prop) in compat::NAMED_OBJECTS {
            named.push(Named {
                schema: strip_docs(inline(defs, def, prop)?),
                name: (*name).to_string(),
                class: true,
            });
        }
        for (name, def, prop) in compat::NAMED_UNIONS {
            named.push(Named {
                schema: strip_docs(inline(defs, def, prop)?),
                name: (*name).to_string(),
                class: false,
            });
        }
        Ok(Self { defs, kinds, named })
    }

    /// Shapes without the compat names, for tests on small schemas.
    #[cfg(test)]
    pub(super) fn new_for_tests(
        defs: &'a Map<String, Value>,
        kinds: &'a BTreeMap<String, Kind>,
    ) -> Self {
        Self {
            defs,
            kinds,
            named: Vec::new(),
        }
    }

    /// The Python type of `schema`; `at` names it in errors.
    pub(super) fn ty(&self, schema: &Value, at: &str) -> Result<Ty, Error> {
        if schema.get("$ref").is_none() {
            let bare = strip_docs(schema);
            if let Some(named) = self.named.iter().find(|n| n.schema == bare) {
                return Ok(Ty {
                    hint: named.name.clone(),
                    decode: Some(if named.class {
                        format!("_model.model_of({})", named.name)
                    } else {
                        decoder_name(&named.name)
                    }),
                    nullable: false,
                });
            }
        }
        self.unnamed(schema, at)
    }

    /// [`Self::ty`] without looking for a name: what a named inline schema
    /// itself is.
    pub(super) fn unnamed(&self, schema: &Value, at: &str) -> Result<Ty, Error> {
        if let Some(target) = ref_name(schema) {
            return self.def_ty(target, at);
        }
        if let Some(members) = schema.get("anyOf").and_then(Value::as_array) {
            return self.any_of(members, at);
        }
        if let Some(value) = schema.get("const") {
            return Ok(Ty::plain(format!("Literal[{}]", scalar(value, at)?)));
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            let values: Vec<String> = values
                .iter()
                .map(|v| scalar(v, at))
                .collect::<Result<_, _>>()?;
            return Ok(Ty::plain(format!("Literal[{}]", values.join(", "))));
        }
        match schema.get("type") {
            Some(Value::String(t)) => self.typed(t, schema, at),
            Some(Value::Array(types)) => {
                let mut hints = Vec::new();
                let mut nullable = false;
                for t in types {
                    match t.as_str() {
                        Some("null") => nullable = true,
                        Some(t) => hints.push(self.typed(t, schema, at)?.hint),
                        None => return Err(unsupported(at, schema)),
                    }
                }
                Ok(Ty {
                    nullable,
                    ..Ty::plain(union(hints))
                })
            }
            None if schema
                .as_object()
                .is_some_and(|o| o.keys().all(|k| k == "description")) =>
            {
                Ok(Ty::plain("Any"))
            }
            _ => Err(unsupported(at, schema)),
        }
    }

    fn typed(&self, t: &str, schema: &Value, at: &str) -> Result<Ty, Error> {
        Ok(match t {
            "string" => Ty::plain("str"),
            "integer" => Ty::plain("int"),
            "number" => Ty::plain("float"),
            "boolean" => Ty::plain("bool"),
            "array" => {
                let items = match schema.get("items") {
                    Some(items) => self.ty(items, &format!("{at}[]"))?,
                    None => Ty::plain("Any"),
                };
                Ty {
                    hint: format!("List[{}]", items.hint),
                    decode: items.decode.map(|d| format!("_model.list_of({d})")),
                    nullable: false,
                }
            }
            "object" => {
                let has_props = schema
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty());
                match schema.get("additionalProperties") {
                    Some(values) if !has_props && values.is_object() => {
                        let values = self.ty(values, &format!("{at}{{}}"))?;
                        Ty {
                            hint: format!("Dict[str, {}]", values.hint),
                            decode: values.decode.map(|d| format!("_model.map_of({d})")),
                            nullable: false,
                        }
                    }
                    _ => Ty::plain("Dict[str, Any]"),
                }
            }
            _ => return Err(unsupported(at, schema)),
        })
    }

    /// A `$ref`: the def's own name, decoded as its kind says.
    fn def_ty(&self, target: &str, at: &str) -> Result<Ty, Error> {
        let kind = self.kinds.get(target).ok_or_else(|| {
            Error::Schema(format!(
                "`{at}` refers to `{target}`, which is not generated"
            ))
        })?;
        let decode = match kind {
            Kind::Class => Some(format!("_model.model_of({target})")),
            Kind::Union(_) => Some(decoder_name(target)),
            Kind::Alias => match self.defs.get(target).and_then(ref_name) {
                // Another def's name: decoded as that def.
                Some(other) => self.def_ty(other, at)?.decode,
                None => self.def_alias(target)?.decode.map(|_| decoder_name(target)),
            },
        };
        Ok(Ty {
            hint: target.to_string(),
            decode,
            nullable: false,
        })
    }

    /// What an alias def stands for.
    pub(super) fn def_alias(&self, name: &str) -> Result<Ty, Error> {
        let def = self
            .defs
            .get(name)
            .ok_or_else(|| Error::Schema(format!("`{name}` is missing")))?;
        self.unnamed(def, name)
    }

    fn any_of(&self, members: &[Value], at: &str) -> Result<Ty, Error> {
        let mut hints = Vec::new();
        let mut classes = Vec::new();
        let mut array = None;
        let mut nullable = false;
        for member in members {
            match ref_name(member).and_then(|t| self.kinds.get(t).map(|k| (t, k))) {
                Some((t, Kind::Class)) => {
                    classes.push(t.to_string());
                    hints.push(t.to_string());
                }
                Some((t, Kind::Union(inner))) => {
                    classes.extend(self.expand(inner)?);
                    hints.push(t.to_string());
                }
                _ => {
                    let ty = self.ty(member, at)?;
                    let is_array = member.get("type").and_then(Value::as_str) == Some("array");
                    if ty.decode.is_some() && (!is_array || array.is_some()) {
                        return Err(unsupported(at, member));
                    }
                    if is_array {
                        array = ty.decode;
                    }
                    hints.push(ty.hint);
                    nullable |= ty.nullable;
                }
            }
        }
        let object = match classes.as_slice() {
            [] => None,
            [one] => Some(format!("_model.model_of({one})")),
            _ => Some(unions::decoder(&classes, self.defs)?),
        };
        let decode = match (object, array) {
            (Some(o), Some(a)) => Some(format!("_model.either({o}, {a})")),
            (o, a) => o.or(a),
        };
        Ok(Ty {
            hint: union(hints),
            decode,
            nullable,
        })
    }

    /// The classes of a union def, with member unions expanded.
    pub(super) fn expand(&self, members: &[String]) -> Result<Vec<String>, Error> {
        let mut classes = Vec::new();
        for m in members {
            match self.kinds.get(m) {
                Some(Kind::Class) => classes.push(m.clone()),
                Some(Kind::Union(inner)) => classes.extend(self.expand(inner)?),
                _ => {
                    return Err(Error::Schema(format!(
                        "union member `{m}` is neither a class nor a union"
                    )));
                }
            }
        }
        Ok(classes)
    }
}

/// The module-level variable holding a union's or alias's decoder.
pub(super) fn decoder_name(def: &str) -> String {
    format!("_decode_{}", snake(def))
}

/// `Union[…]` of distinct hints (or the one hint).
fn union(mut hints: Vec<String>) -> String {
    let mut seen = Vec::new();
    hints.retain(|h| {
        let new = !seen.contains(h);
        seen.push(h.clone());
        new
    });
    match hints.as_slice() {
        [one] => one.clone(),
        _ => format!("Union[{}]", hints.join(", ")),
    }
}

/// The inline schema of `def.prop` (or the def itself when `prop` is empty).
pub(super) fn inline<'v>(
    defs: &'v Map<String, Value>,
    def: &str,
    prop: &str,
) -> Result<&'v Value, Error> {
    let schema = defs
        .get(def)
        .ok_or_else(|| Error::Schema(format!("compat table: no def `{def}`")))?;
    if prop.is_empty() {
        return Ok(schema);
    }
    schema
        .get("properties")
        .and_then(|p| p.get(prop))
        .ok_or_else(|| Error::Schema(format!("compat table: no property `{def}.{prop}`")))
}

fn scalar(value: &Value, at: &str) -> Result<String, Error> {
    literal(value).ok_or_else(|| unsupported(at, value))
}

fn unsupported(at: &str, schema: &Value) -> Error {
    Error::Schema(format!(
        "`{at}`: no Python type for the schema {schema}; teach codegen/src/python/shape.rs"
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(schema: Value, hint: &str, decode: Option<&str>) {
        let defs = json!({
            "Text": {"properties": {"type": {"const": "text"}}, "required": ["type"]},
            "Image": {"properties": {"type": {"const": "image"}}, "required": ["type"]},
            "Block": {"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}]},
            "Token": {"type": ["string", "integer"]},
            "Requests": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Block"}},
        });
        let defs = defs.as_object().cloned().unwrap();
        let kinds = BTreeMap::from([
            ("Text".to_string(), Kind::Class),
            ("Image".to_string(), Kind::Class),
            (
                "Block".to_string(),
                Kind::Union(vec!["Text".into(), "Image".into()]),
            ),
            ("Token".to_string(), Kind::Alias),
            ("Requests".to_string(), Kind::Alias),
        ]);
        let shapes = Shapes::new_for_tests(&defs, &kinds);
        let ty = shapes.ty(&schema, "X.y").unwrap();
        assert_eq!(
            (ty.hint.as_str(), ty.decode.as_deref()),
            (hint, decode),
            "{schema}"
        );
    }

    #[test]
    fn scalars_enums_and_constants() {
        check(json!({"type": "string"}), "str", None);
        check(json!({"type": "number"}), "float", None);
        check(
            json!({"const": "text", "type": "string"}),
            "Literal[\"text\"]",
            None,
        );
        check(
            json!({"enum": ["a", "b"], "type": "string"}),
            "Literal[\"a\", \"b\"]",
            None,
        );
        check(json!({"description": "any JSON"}), "Any", None);
        check(json!({"$ref": "#/$defs/Token"}), "Token", None);
    }

    #[test]
    fn containers_decode_their_items() {
        check(
            json!({"type": "array", "items": {"$ref": "#/$defs/Block"}}),
            "List[Block]",
            Some("_model.list_of(_decode_block)"),
        );
        check(
            json!({"$ref": "#/$defs/Requests"}),
            "Requests",
            Some("_decode_requests"),
        );
        check(
            json!({"type": "object", "properties": {"a": {}}}),
            "Dict[str, Any]",
            None,
        );
    }

    #[test]
    fn inline_unions_of_classes_and_arrays() {
        check(
            json!({"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}, {"type": "array", "items": {"$ref": "#/$defs/Block"}}]}),
            "Union[Text, Image, List[Block]]",
            Some(
                "_model.either(_model.tagged(\"type\", {\"text\": Text, \"image\": Image}, None), \
                 _model.list_of(_decode_block))",
            ),
        );
        check(
            json!({"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": ["string", "integer", "boolean"]}]}),
            "Union[List[str], Union[str, int, bool]]",
            None,
        );
    }

    #[test]
    fn nullable_and_unknown_shapes() {
        let defs = Map::new();
        let kinds = BTreeMap::new();
        let shapes = Shapes::new_for_tests(&defs, &kinds);
        let ty = shapes
            .ty(&json!({"type": ["integer", "null"]}), "T.ttl")
            .unwrap();
        assert_eq!((ty.hint.as_str(), ty.nullable), ("int", true));
        assert!(shapes.ty(&json!({"oneOf": []}), "T.x").is_err());
        assert!(shapes.ty(&json!({"$ref": "#/$defs/Nope"}), "T.x").is_err());
    }
}
