//! Dataclasses: one per object def (and per inline object or union the
//! [`compat`] tables name), with fields in constructor order and the wire
//! spec `Model` reads and writes them by.

use serde_json::{Value, json};

use super::compat;
use super::object::ObjectView;
use super::shape::{Shapes, Ty};
use super::text::{attr_comment, attr_name, docstring, string};
use super::unions::literal;
use crate::Error;

/// One field of a dataclass.
#[derive(Debug)]
pub(super) struct Field {
    pub(super) attr: String,
    pub(super) wire: String,
    pub(super) ty: Ty,
    /// The default, as Python source; `None` when the field is required.
    pub(super) default: Option<String>,
    pub(super) doc: Option<String>,
}

/// A dataclass to emit.
#[derive(Debug)]
pub(super) struct Class {
    pub(super) name: String,
    pub(super) doc: String,
    pub(super) fields: Vec<Field>,
}

impl Class {
    /// The class for the object `view` (properties of def `name`, or of what
    /// a compat entry names).
    pub(super) fn new(
        name: &str,
        doc: Option<&str>,
        view: &ObjectView,
        shapes: &Shapes<'_>,
    ) -> Result<Self, Error> {
        let mut fields = Vec::new();
        for (wire, schema) in &view.props {
            let attr = attr_name(wire, name)?;
            // `_meta` is an open dict whatever its schema says.
            let ty = if wire == "_meta" {
                Ty {
                    hint: "Dict[str, Any]".into(),
                    decode: None,
                    nullable: false,
                }
            } else {
                shapes.ty(schema, &format!("{name}.{wire}"))?
            };
            let required = view.is_required(wire);
            let is_array = schema.get("type").and_then(Value::as_str) == Some("array");
            let default = match (required, schema.get("const").and_then(literal)) {
                (true, Some(tag)) => Some(tag),
                (true, None) if is_array && compat::empty_list_default(name) => {
                    Some("field(default_factory=list)".into())
                }
                (true, None) => None,
                (false, _) => Some("None".into()),
            };
            fields.push(Field {
                attr,
                wire: wire.clone(),
                ty,
                default,
                doc: schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(String::from),
            });
        }
        let mut attrs: Vec<&str> = fields.iter().map(|f| f.attr.as_str()).collect();
        attrs.sort_unstable();
        if attrs.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::Schema(format!(
                "`{name}` has two fields with one name"
            )));
        }
        order(name, &mut fields)?;
        Ok(Self {
            name: name.to_string(),
            doc: doc.map_or_else(
                || format!("The ``{name}`` object of the MCP schema."),
                String::from,
            ),
            fields,
        })
    }

    /// The `@dataclass` source.
    pub(super) fn source(&self) -> String {
        let mixins = compat::MIXINS
            .iter()
            .find(|(class, _)| *class == self.name)
            .map(|(_, mixins)| *mixins)
            .unwrap_or_default();
        let mut bases: Vec<String> = mixins.iter().map(|m| format!("_behaviour.{m}")).collect();
        bases.push("Model".into());
        let mut out = format!("@dataclass\nclass {}({}):\n", self.name, bases.join(", "));
        out.push_str(&docstring(&self.doc, "    "));
        for f in &self.fields {
            out.push('\n');
            if let Some(doc) = &f.doc {
                out.push_str(&attr_comment(doc, "    "));
            }
            let optional = f.default.as_deref() == Some("None") || f.ty.nullable;
            let hint = if optional && f.ty.hint != "Any" {
                format!("Optional[{}]", f.ty.hint)
            } else {
                f.ty.hint.clone()
            };
            match &f.default {
                Some(default) => out.push_str(&format!("    {}: {hint} = {default}\n", f.attr)),
                None => out.push_str(&format!("    {}: {hint}\n", f.attr)),
            }
        }
        out
    }

    /// The `_model.register(…)` call that gives `Model` the wire spec.
    pub(super) fn registration(&self) -> String {
        let mut out = format!("_model.register(\n    {},\n    (\n", self.name);
        for f in &self.fields {
            out.push_str(&format!(
                "        ({}, {}, {}),\n",
                string(&f.attr),
                string(&f.wire),
                f.ty.decode.as_deref().unwrap_or("None")
            ));
        }
        out.push_str("    ),\n");
        // A required field that may be null is written even when it is.
        let nulls: Vec<String> = self
            .fields
            .iter()
            .filter(|f| f.ty.nullable && f.default.is_none())
            .map(|f| string(&f.attr))
            .collect();
        if !nulls.is_empty() {
            out.push_str(&format!("    nullable=({},),\n", nulls.join(", ")));
        }
        out.push_str(")\n");
        out
    }
}

/// Constructor order: required fields before the rest (as dataclasses
/// need); within each, the old API's order where [`compat::POSITIONAL`] has
/// one, else a discriminator first; `meta` last; otherwise schema order.
fn order(name: &str, fields: &mut [Field]) -> Result<(), Error> {
    let legacy = compat::POSITIONAL
        .iter()
        .find(|(class, _)| *class == name)
        .map(|(_, attrs)| *attrs);
    if let Some(legacy) = legacy {
        if let Some(missing) = legacy
            .iter()
            .find(|a| !fields.iter().any(|f| f.attr == **a))
        {
            return Err(Error::Schema(format!(
                "compat::POSITIONAL: `{name}` has no field `{missing}`"
            )));
        }
    }
    let rank = |f: &Field| -> (bool, usize, usize) {
        let meta = f.wire == "_meta";
        let position = legacy
            .and_then(|l| l.iter().position(|a| *a == f.attr))
            .filter(|_| !meta);
        let tag = f.default.as_deref().is_some_and(|d| d.starts_with('"'));
        let group = match (meta, position, tag) {
            (true, _, _) => 3,
            (false, Some(_), _) => 0,
            (false, None, true) => 1,
            (false, None, false) => 2,
        };
        (f.default.is_some(), group, position.unwrap_or(0))
    };
    fields.sort_by_key(rank);
    Ok(())
}

/// One object holding every member's properties: required where every
/// member requires them; a property the members fix to different constants
/// takes any of them.
pub(super) fn flatten(members: &[ObjectView]) -> ObjectView {
    let mut flat = ObjectView::default();
    for view in members {
        for (name, schema) in &view.props {
            match flat.props.iter_mut().find(|(n, _)| n == name) {
                None => flat.props.push((name.clone(), schema.clone())),
                Some((_, old)) => {
                    let values = |s: &Value| -> Vec<Value> {
                        match (s.get("const"), s.get("enum")) {
                            (Some(c), _) => vec![c.clone()],
                            (None, Some(Value::Array(e))) => e.clone(),
                            _ => Vec::new(),
                        }
                    };
                    let (a, b) = (values(old), values(schema));
                    if !a.is_empty() && !b.is_empty() {
                        let mut all = a;
                        all.extend(
                            b.into_iter()
                                .filter(|v| !all.contains(v))
                                .collect::<Vec<_>>(),
                        );
                        *old = json!({ "type": "string", "enum": all });
                    }
                }
            }
        }
    }
    flat.required = members
        .first()
        .map(|first| {
            first
                .required
                .iter()
                .filter(|r| members.iter().all(|m| m.is_required(r)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    flat
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::{Map, json};

    use super::*;

    fn class(name: &str, def: Value) -> Class {
        let defs = Map::new();
        let kinds = BTreeMap::new();
        let shapes = Shapes::new_for_tests(&defs, &kinds);
        let view = ObjectView::of(&def, &defs).unwrap();
        Class::new(name, None, &view, &shapes).unwrap()
    }

    #[test]
    fn required_first_then_the_tag_then_the_rest_and_meta_last() {
        let c = class(
            "Thing",
            json!({
                "properties": {
                    "_meta": {"type": "object"},
                    "annotations": {"type": "string"},
                    "text": {"type": "string"},
                    "type": {"const": "text", "type": "string"},
                    "ttl": {"type": ["integer", "null"]},
                },
                "required": ["text", "type", "ttl"],
            }),
        );
        let attrs: Vec<&str> = c.fields.iter().map(|f| f.attr.as_str()).collect();
        assert_eq!(attrs, ["text", "ttl", "type", "annotations", "meta"]);
        let source = c.source();
        assert!(source.contains("    text: str\n"), "{source}");
        assert!(source.contains("    ttl: Optional[int]\n"), "{source}");
        assert!(
            source.contains("    type: Literal[\"text\"] = \"text\"\n"),
            "{source}"
        );
        assert!(
            source.contains("    meta: Optional[Dict[str, Any]] = None\n"),
            "{source}"
        );
        let registration = c.registration();
        assert!(
            registration.contains("(\"meta\", \"_meta\", None),"),
            "{registration}"
        );
        assert!(
            registration.contains("nullable=(\"ttl\",),"),
            "{registration}"
        );
    }

    #[test]
    fn the_old_positional_order_is_kept() {
        let c = class(
            "Resource",
            json!({
                "properties": {
                    "_meta": {"type": "object"},
                    "annotations": {"type": "string"},
                    "description": {"type": "string"},
                    "icons": {"type": "string"},
                    "mimeType": {"type": "string"},
                    "name": {"type": "string"},
                    "size": {"type": "integer"},
                    "title": {"type": "string"},
                    "uri": {"type": "string"},
                },
                "required": ["name", "uri"],
            }),
        );
        let attrs: Vec<&str> = c.fields.iter().map(|f| f.attr.as_str()).collect();
        assert_eq!(
            attrs,
            [
                "uri",
                "name",
                "title",
                "description",
                "mime_type",
                "size",
                "annotations",
                "icons",
                "meta"
            ]
        );
    }

    #[test]
    fn results_may_leave_required_lists_out() {
        let c = class(
            "ThingResult",
            json!({"properties": {"items": {"type": "array"}}, "required": ["items"]}),
        );
        assert!(
            c.source()
                .contains("    items: List[Any] = field(default_factory=list)\n")
        );
    }

    #[test]
    fn flattening_keeps_shared_requirements_and_every_tag() {
        let defs = Map::new();
        let a = ObjectView::of(
            &json!({"properties": {"type": {"const": "a"}, "name": {"type": "string"}}, "required": ["type", "name"]}),
            &defs,
        )
        .unwrap();
        let b = ObjectView::of(
            &json!({"properties": {"type": {"const": "b"}, "uri": {"type": "string"}}, "required": ["type", "uri"]}),
            &defs,
        )
        .unwrap();
        let flat = flatten(&[a, b]);
        let names: Vec<&str> = flat.props.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["type", "name", "uri"]);
        assert_eq!(flat.required, ["type"]);
        assert_eq!(
            flat.props[0].1,
            json!({"type": "string", "enum": ["a", "b"]})
        );
    }
}
