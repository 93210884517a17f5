//! In-memory adjustments to the MCP schema before typify sees it.
//!
//! This is the one place where the generator deviates from feeding the
//! vendored schema to typify verbatim. Each patch names the typify problem it
//! solves; none changes what JSON is valid, except where its reason says the
//! JSON schema disagrees with the normative `schema.ts`.

use serde_json::{Map, Value, json};

use crate::Error;
use crate::names::{const_type_name, defs};

/// One named adjustment and why it exists.
#[derive(Debug)]
pub struct Patch {
    /// Short identifier, used in error messages and docs.
    pub name: &'static str,
    /// Why the patch is needed.
    pub reason: &'static str,
    apply: fn(&mut Map<String, Value>, &mut Synthesized) -> Result<(), Error>,
}

/// Types the patches introduce that typify must not generate itself: the
/// generator emits them (see `support.rs`) and typify is told to use them.
#[derive(Debug, Default)]
pub struct Synthesized {
    /// `(type name, constant value)` for every string constant.
    pub consts: Vec<(String, String)>,
}

/// Name of the synthesized def that stands for JSON numbers kept exactly.
pub const NUMBER_DEF: &str = "JsonNumber";
/// Name of the synthesized def for a JSON Schema object kept exactly.
pub const OBJECT_SCHEMA_DEF: &str = "ObjectSchema";
/// Name of the synthesized def for any JSON Schema kept exactly.
pub const ANY_SCHEMA_DEF: &str = "AnySchema";

/// Every patch, in the order it is applied.
pub const PATCHES: &[Patch] = &[
    Patch {
        name: "task-status-description",
        reason: "typify 0.8 panics (`merged_schema.metadata.is_none()`) merging \
                 `allOf[Result, Task]` when `Task.status` has a `description` beside its `$ref`; \
                 the description is documentation only",
        apply: task_status_description,
    },
    Patch {
        name: "hoist-inline-params",
        reason: "a few requests and notifications (tasks/get, tasks/result, tasks/cancel, \
                 notifications/elicitation/complete) declare `params` inline; naming them \
                 `<Message>Params` like every other params type gives the dispatch code a \
                 stable name to refer to",
        apply: hoist_inline_params,
    },
    Patch {
        name: "exact-tool-schemas",
        reason: "typify drops JSON Schema keywords the MCP schema does not list \
                 (`$defs`, `additionalProperties`, `$schema`, …) and may reorder properties; \
                 a tool's input/output schema is kept as the exact JSON object given: an \
                 `ObjectSchema` where the schema requires `type: \"object\"`, an `AnySchema` \
                 where it takes any JSON Schema (2026-07-28's `outputSchema`, e.g. of an array)",
        apply: exact_tool_schemas,
    },
    Patch {
        name: "string-consts",
        reason: "typify ignores `const`, so `jsonrpc`, `method`, content `type` and elicitation \
                 `mode` would accept any string; each constant becomes a zero-sized type that \
                 (de)serializes exactly its value",
        apply: string_consts,
    },
    Patch {
        name: "exact-numbers",
        reason: "typify maps `number` to f64, so `150` comes back as `150.0`; \
                 numbers become serde_json::Number, which keeps integers integral",
        apply: exact_numbers,
    },
    Patch {
        name: "elicit-result-values",
        reason: "the JSON schema allows only string|integer|boolean|string[] in ElicitResult \
                 content, but schema.ts (normative) says string|number|boolean|string[] \
                 (SEP-1034 defaults such as `95.5` must be accepted)",
        apply: elicit_result_values,
    },
    Patch {
        name: "legacy-enum-names-required",
        reason: "LegacyTitledEnumSchema differs from UntitledSingleSelectEnumSchema only by \
                 `enumNames`; requiring it lets the untagged union tell them apart \
                 (a legacy schema without enumNames is an untitled one)",
        apply: legacy_enum_names_required,
    },
    Patch {
        name: "anyof-as-oneof",
        reason: "typify turns a non-exclusive `anyOf` into a struct of flattened optional \
                 subtypes that loses fields (elicitation `enum`, `oneOf`, `items`); MCP's unions \
                 are alternatives, so they become `oneOf` (an enum), most specific variant first",
        apply: anyof_as_oneof,
    },
];

/// Applies every patch to a copy of `schema`.
pub fn apply_all(schema: &Value) -> Result<(Value, Synthesized), Error> {
    let mut schema = schema.clone();
    let mut synthesized = Synthesized::default();
    let defs = schema
        .get_mut("$defs")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::Schema("the schema has no `$defs` object".into()))?;
    for patch in PATCHES {
        (patch.apply)(defs, &mut synthesized)
            .map_err(|e| Error::Schema(format!("patch `{}`: {e}", patch.name)))?;
    }
    Ok((schema, synthesized))
}

fn task_status_description(
    defs: &mut Map<String, Value>,
    _: &mut Synthesized,
) -> Result<(), Error> {
    // Absent in fixture schemas and future revisions: nothing to do then.
    if let Some(status) = defs
        .get_mut("Task")
        .and_then(|t| t.pointer_mut("/properties/status"))
        .and_then(Value::as_object_mut)
    {
        status.remove("description");
    }
    Ok(())
}

fn hoist_inline_params(defs: &mut Map<String, Value>, _: &mut Synthesized) -> Result<(), Error> {
    let mut hoisted = Vec::new();
    for (name, def) in defs.iter_mut() {
        let is_message = def.pointer("/properties/method/const").is_some();
        let Some(params) = def.pointer_mut("/properties/params") else {
            continue;
        };
        if !is_message || params.get("$ref").is_some() {
            continue;
        }
        let target = format!("{name}Params");
        let inline = std::mem::replace(params, json!({ "$ref": format!("#/$defs/{target}") }));
        hoisted.push((target, inline));
    }
    for (target, inline) in hoisted {
        if defs.insert(target.clone(), inline).is_some() {
            return Err(Error::Schema(format!("`{target}` already exists")));
        }
    }
    Ok(())
}

fn string_consts(defs: &mut Map<String, Value>, out: &mut Synthesized) -> Result<(), Error> {
    let names: Vec<String> = defs.keys().cloned().collect();
    for def in names {
        if let Some(schema) = defs.get_mut(&def) {
            replace_consts(schema, &def, &[], out);
        }
    }
    for (name, value) in &out.consts {
        defs.insert(name.clone(), json!({ "type": "string", "enum": [value] }));
    }
    Ok(())
}

/// Walks a schema (not a `properties` map) and replaces `{const: "…"}`.
fn replace_consts(schema: &mut Value, def: &str, path: &[String], out: &mut Synthesized) {
    let Some(obj) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::String(value)) = obj.get("const") {
        let name = const_type_name(def, path, value);
        if !out.consts.iter().any(|(n, _)| *n == name) {
            out.consts.push((name.clone(), value.clone()));
        }
        let description = obj.get("description").cloned();
        obj.clear();
        obj.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
        if let Some(d) = description {
            obj.insert("description".into(), d);
        }
        return;
    }
    for (key, child) in obj.iter_mut() {
        match key.as_str() {
            "properties" => {
                if let Some(props) = child.as_object_mut() {
                    for (prop, sub) in props.iter_mut() {
                        let mut p = path.to_vec();
                        p.push(prop.clone());
                        replace_consts(sub, def, &p, out);
                    }
                }
            }
            "items" | "additionalProperties" => replace_consts(child, def, path, out),
            "anyOf" | "oneOf" | "allOf" => {
                if let Some(items) = child.as_array_mut() {
                    for sub in items {
                        replace_consts(sub, def, path, out);
                    }
                }
            }
            _ => {}
        }
    }
}

fn exact_numbers(defs: &mut Map<String, Value>, _: &mut Synthesized) -> Result<(), Error> {
    fn walk(v: &mut Value) {
        match v {
            Value::Object(obj) => {
                if obj.get("type") == Some(&Value::String("number".into())) {
                    let description = obj.get("description").cloned();
                    obj.clear();
                    obj.insert("$ref".into(), format!("#/$defs/{NUMBER_DEF}").into());
                    if let Some(d) = description {
                        obj.insert("description".into(), d);
                    }
                    return;
                }
                obj.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    defs.values_mut().for_each(walk);
    defs.insert(NUMBER_DEF.into(), json!({ "type": "number" }));
    Ok(())
}

fn exact_tool_schemas(defs: &mut Map<String, Value>, _: &mut Synthesized) -> Result<(), Error> {
    let Some(props) = defs
        .get_mut("Tool")
        .and_then(|t| t.get_mut("properties"))
        .and_then(Value::as_object_mut)
    else {
        return Ok(());
    };
    for key in ["inputSchema", "outputSchema"] {
        if let Some(prop) = props.get_mut(key) {
            let target = if requires_object_type(prop) {
                OBJECT_SCHEMA_DEF
            } else {
                ANY_SCHEMA_DEF
            };
            let description = prop.get("description").cloned();
            let mut replacement = json!({ "$ref": format!("#/$defs/{target}") });
            if let (Some(d), Some(obj)) = (description, replacement.as_object_mut()) {
                obj.insert("description".into(), d);
            }
            *prop = replacement;
        }
    }
    defs.insert(OBJECT_SCHEMA_DEF.into(), json!({ "type": "object" }));
    defs.insert(ANY_SCHEMA_DEF.into(), json!({ "type": "object" }));
    Ok(())
}

/// Whether a schema-valued property requires `"type": "object"`.
fn requires_object_type(prop: &Value) -> bool {
    let required = prop
        .get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|k| k == "type"));
    required && prop.pointer("/properties/type/const") == Some(&json!("object"))
}

fn elicit_result_values(defs: &mut Map<String, Value>, _: &mut Synthesized) -> Result<(), Error> {
    let Some(values) = defs
        .get_mut("ElicitResult")
        .and_then(|d| d.pointer_mut("/properties/content/additionalProperties"))
    else {
        return Ok(());
    };
    *values = json!({ "anyOf": [
        { "type": "array", "items": { "type": "string" } },
        { "type": "string" },
        { "$ref": format!("#/$defs/{NUMBER_DEF}") },
        { "type": "boolean" }
    ]});
    Ok(())
}

fn legacy_enum_names_required(
    defs: &mut Map<String, Value>,
    _: &mut Synthesized,
) -> Result<(), Error> {
    if let Some(required) = defs
        .get_mut("LegacyTitledEnumSchema")
        .and_then(|d| d.get_mut("required"))
        .and_then(Value::as_array_mut)
    {
        if !required.iter().any(|r| r == "enumNames") {
            required.push("enumNames".into());
        }
    }
    Ok(())
}

/// Variants that must be tried before others in an untagged union, because a
/// later one would also accept their JSON and drop fields.
const SPECIFIC_FIRST: &[&str] = &[
    "TitledSingleSelectEnumSchema",
    "LegacyTitledEnumSchema",
    "UntitledSingleSelectEnumSchema",
    "TitledMultiSelectEnumSchema",
    "UntitledMultiSelectEnumSchema",
];

fn anyof_as_oneof(defs: &mut Map<String, Value>, _: &mut Synthesized) -> Result<(), Error> {
    fn rank(v: &Value) -> usize {
        v.get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.rsplit('/').next())
            .and_then(|n| SPECIFIC_FIRST.iter().position(|s| *s == n))
            .unwrap_or(SPECIFIC_FIRST.len())
    }
    // Walks schemas only: a *property* named `anyOf` (the items of
    // `TitledMultiSelectEnumSchema`) is a name, not the keyword.
    fn walk(schema: &mut Value) {
        let Some(obj) = schema.as_object_mut() else {
            return;
        };
        if let Some(Value::Array(mut variants)) = obj.remove("anyOf") {
            variants.sort_by_key(rank);
            obj.insert("oneOf".into(), Value::Array(variants));
        }
        for (key, child) in obj.iter_mut() {
            match key.as_str() {
                "properties" | "patternProperties" | "$defs" => {
                    if let Some(named) = child.as_object_mut() {
                        named.values_mut().for_each(walk);
                    }
                }
                "items" | "additionalProperties" | "not" => walk(child),
                "oneOf" | "allOf" => {
                    if let Some(items) = child.as_array_mut() {
                        items.iter_mut().for_each(walk);
                    }
                }
                _ => {}
            }
        }
    }
    defs.values_mut().for_each(walk);
    Ok(())
}

/// The names of the `$defs` after patching (for tests and diagnostics).
pub fn def_names(schema: &Value) -> Vec<String> {
    defs(schema)
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}
