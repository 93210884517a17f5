//! Broken copies of a valid message, derived from the official schema: each
//! drops a field the schema requires, puts an unknown value where the schema
//! has a closed set of strings, or gives `resultType` a wrong value.
//!
//! The schema is walked alongside the message. A union (`anyOf`) is entered
//! only where exactly one alternative fits the message, so every copy breaks
//! the alternative the message actually is.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use serde_json::{Map, Value};

/// The value put where the schema allows only certain strings.
pub(crate) const UNKNOWN: &str = "x-unknown-value";

/// What a broken copy breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    /// A field the schema lists as `required` is gone.
    DropRequired,
    /// A string the schema restricts (`enum`, `const`) has an unknown value.
    UnknownEnum,
    /// `resultType` has an unknown value.
    UnknownResultType,
    /// `resultType` has the other valid value (`complete` ↔ `input_required`).
    OtherResultType,
}

/// One broken copy.
#[derive(Clone, Debug)]
pub(crate) struct Mutant {
    pub(crate) kind: Kind,
    /// What was changed, e.g. `drop /params/name`.
    pub(crate) what: String,
    /// The JSON pointer of the changed value, or of the object that lost a
    /// field.
    pub(crate) pointer: String,
    /// For a dropped field: the `$defs` entry whose `required` lists it
    /// (`None` for an inline object).
    pub(crate) owner: Option<String>,
    pub(crate) value: Value,
}

/// One revision's official schema.
pub(crate) struct Schema {
    pub(crate) revision: &'static str,
    doc: Value,
    validators: Mutex<HashMap<String, Arc<jsonschema::Validator>>>,
}

impl Schema {
    /// The schema of `revision` (e.g. `2026-07-28`), loaded once.
    pub(crate) fn get(revision: &'static str) -> &'static Schema {
        static LOADED: OnceLock<Mutex<Vec<&'static Schema>>> = OnceLock::new();
        let loaded = LOADED.get_or_init(Default::default);
        let mut loaded = loaded.lock().unwrap();
        if let Some(s) = loaded.iter().find(|s| s.revision == revision) {
            return s;
        }
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../schema")
            .join(revision)
            .join("schema.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        let mut doc: Value = serde_json::from_str(&text).unwrap();
        apply_codegen_fixes(&mut doc);
        let schema: &'static Schema = Box::leak(Box::new(Schema {
            revision,
            doc,
            validators: Mutex::default(),
        }));
        loaded.push(schema);
        schema
    }

    pub(crate) fn def(&self, name: &str) -> &Value {
        self.doc["$defs"]
            .get(name)
            .unwrap_or_else(|| panic!("{}: no `$defs/{name}`", self.revision))
    }

    pub(crate) fn has_def(&self, name: &str) -> bool {
        self.doc["$defs"].get(name).is_some()
    }

    /// Follows `$ref`s to the schema they name.
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        self.resolve_named(schema).1
    }

    /// Follows `$ref`s; also gives the name of the last `$defs` entry.
    fn resolve_named<'a>(&'a self, mut schema: &'a Value) -> (Option<&'a str>, &'a Value) {
        let mut last = None;
        while let Some(name) = ref_name(schema) {
            last = Some(name);
            schema = self.def(name);
        }
        (last, schema)
    }

    /// Whether the official schema accepts `instance` as a `def`.
    pub(crate) fn accepts(&self, def: &str, instance: &Value) -> bool {
        let validator = {
            let mut cache = self.validators.lock().unwrap();
            Arc::clone(cache.entry(def.to_owned()).or_insert_with(|| {
                let mut root = self.doc.clone();
                root.as_object_mut()
                    .unwrap()
                    .insert("$ref".into(), Value::String(format!("#/$defs/{def}")));
                Arc::new(jsonschema::validator_for(&root).unwrap())
            }))
        };
        validator.is_valid(instance)
    }

    /// Every broken copy of `value`, a valid `def`, that the schema rejects
    /// (so none is valid JSON that a type would be wrong to reject: dropping
    /// a field of one alternative may leave another that fits).
    pub(crate) fn mutants(&self, def: &str, value: &Value) -> Vec<Mutant> {
        let mut edits = Vec::new();
        self.walk(&ref_to(def), value, "", None, &mut edits);
        let checked = self.accepts(def, value);
        edits
            .into_iter()
            .filter_map(|edit| {
                let mut copy = value.clone();
                apply(&mut copy, &edit.pointer, edit.change);
                let schema_rejects = !checked || !self.accepts(def, &copy);
                let kind = match edit.kind {
                    Kind::UnknownEnum if edit.pointer.ends_with("/resultType") => {
                        Kind::UnknownResultType
                    }
                    other => other,
                };
                schema_rejects.then_some(Mutant {
                    kind,
                    what: edit.what,
                    pointer: edit.pointer,
                    owner: edit.owner,
                    value: copy,
                })
            })
            .collect()
    }

    /// `owner` is the `$defs` entry `schema` stands for, if it is one.
    fn walk(
        &self,
        schema: &Value,
        value: &Value,
        pointer: &str,
        owner: Option<&str>,
        out: &mut Vec<Edit>,
    ) {
        let (name, schema) = self.resolve_named(schema);
        let owner = name.or(owner);
        if let Some(alternatives) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            if let Some(one) = self.the_fitting(alternatives, value) {
                self.walk(one, value, pointer, None, out);
            }
            return;
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            for part in parts {
                self.walk(part, value, pointer, None, out);
            }
        }
        match value {
            Value::Object(obj) => self.walk_object(schema, obj, pointer, owner, out),
            Value::Array(items) => {
                if let Some(item_schema) = schema.get("items") {
                    for (i, item) in items.iter().enumerate() {
                        self.walk(item_schema, item, &format!("{pointer}/{i}"), None, out);
                    }
                }
            }
            Value::String(s) => {
                let closed = strings(schema.get("enum")).is_some()
                    || schema.get("const").is_some_and(Value::is_string);
                if closed && s != UNKNOWN {
                    out.push(Edit {
                        kind: Kind::UnknownEnum,
                        what: format!("unknown value at {pointer}"),
                        pointer: pointer.to_owned(),
                        owner: None,
                        change: Change::Set(Value::String(UNKNOWN.into())),
                    });
                }
            }
            _ => {}
        }
    }

    fn walk_object(
        &self,
        schema: &Value,
        obj: &Map<String, Value>,
        pointer: &str,
        owner: Option<&str>,
        out: &mut Vec<Edit>,
    ) {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for required in strings(schema.get("required")).unwrap_or_default() {
            if obj.contains_key(required) {
                out.push(Edit {
                    kind: Kind::DropRequired,
                    what: format!("drop {pointer}/{required}"),
                    pointer: pointer.to_owned(),
                    owner: owner.map(str::to_owned),
                    change: Change::Remove(required.to_owned()),
                });
            }
        }
        for (key, child) in obj {
            let child_pointer = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
            if key == "resultType" && properties.contains_key(key) {
                let other = if child == "input_required" {
                    "complete"
                } else {
                    "input_required"
                };
                out.push(Edit {
                    kind: Kind::OtherResultType,
                    what: format!("resultType {other} at {child_pointer}"),
                    pointer: child_pointer.clone(),
                    owner: None,
                    change: Change::Set(Value::String(other.into())),
                });
            }
            match properties.get(key) {
                Some(child_schema) => self.walk(child_schema, child, &child_pointer, None, out),
                None => {
                    if let Some(extra) = schema
                        .get("additionalProperties")
                        .filter(|s| s.as_object().is_some_and(|o| !o.is_empty()))
                    {
                        self.walk(extra, child, &child_pointer, None, out);
                    }
                }
            }
        }
    }

    /// The one alternative of a union that `value` fits by its constants,
    /// closed strings, required fields and JSON type; `None` when none or
    /// several do.
    fn the_fitting<'a>(&'a self, alternatives: &'a [Value], value: &Value) -> Option<&'a Value> {
        let fitting: Vec<&Value> = alternatives
            .iter()
            .filter(|alt| self.fits(self.resolve(alt), value))
            .collect();
        match fitting.as_slice() {
            [one] => Some(one),
            _ => None,
        }
    }

    fn fits(&self, schema: &Value, value: &Value) -> bool {
        let type_fits = match schema.get("type").and_then(Value::as_str) {
            Some("object") => value.is_object(),
            Some("array") => value.is_array(),
            Some("string") => value.is_string(),
            Some("boolean") => value.is_boolean(),
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("number") => value.is_number(),
            _ => true,
        };
        if !type_fits {
            return false;
        }
        if let Some(c) = schema.get("const") {
            return c == value;
        }
        if let Some(allowed) = strings(schema.get("enum")) {
            return value.as_str().is_some_and(|s| allowed.contains(&s));
        }
        let Some(obj) = value.as_object() else {
            return true;
        };
        let required = strings(schema.get("required")).unwrap_or_default();
        if !required.iter().all(|r| obj.contains_key(*r)) {
            return false;
        }
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return true;
        };
        properties.iter().all(|(key, prop)| {
            let prop = self.resolve(prop);
            match obj.get(key) {
                Some(v) if prop.get("const").is_some() || prop.get("enum").is_some() => {
                    self.fits(prop, v)
                }
                _ => true,
            }
        })
    }
}

/// The codegen fixes (`codegen/src/normalize.rs`) that change which JSON is
/// valid, applied to the schema the broken copies are judged by:
/// `result-type-values` gives `resultType` its closed values (the schema has
/// a plain string although its prose, `ResultType`, names them, and
/// `input_required` belongs to `InputRequiredResult` alone);
/// `read-result-cache-hints` lets a `resources/read` result omit its caching
/// hints, as the specification's own example does.
fn apply_codegen_fixes(doc: &mut Value) {
    let Some(defs) = doc.get_mut("$defs").and_then(Value::as_object_mut) else {
        return;
    };
    if !defs.contains_key("ResultType") {
        return;
    }
    if let Some(required) = defs
        .get_mut("ReadResourceResult")
        .and_then(|d| d.get_mut("required"))
        .and_then(Value::as_array_mut)
    {
        required.retain(|r| r != "ttlMs" && r != "cacheScope");
    }
    for (name, def) in defs.iter_mut() {
        let Some(prop) = def
            .pointer_mut("/properties/resultType")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        let pinned = match name.as_str() {
            "Result" => serde_json::json!({ "enum": ["complete", "input_required"] }),
            "InputRequiredResult" => serde_json::json!({ "const": "input_required" }),
            _ => serde_json::json!({ "const": "complete" }),
        };
        prop.extend(pinned.as_object().unwrap().clone());
    }
}

/// A change found by the walk, not yet applied.
struct Edit {
    kind: Kind,
    what: String,
    pointer: String,
    owner: Option<String>,
    change: Change,
}

fn ref_to(def: &str) -> Value {
    serde_json::json!({ "$ref": format!("#/$defs/{def}") })
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

enum Change {
    /// Remove this key from the object at the pointer.
    Remove(String),
    /// Replace the value at the pointer.
    Set(Value),
}

fn apply(root: &mut Value, pointer: &str, change: Change) {
    let target = root
        .pointer_mut(pointer)
        .expect("the pointer came from the value");
    match change {
        Change::Remove(key) => {
            target.as_object_mut().unwrap().remove(&key);
        }
        Change::Set(v) => *target = v,
    }
}

fn strings(v: Option<&Value>) -> Option<Vec<&str>> {
    v?.as_array()?.iter().map(Value::as_str).collect()
}
