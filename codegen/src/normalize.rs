//! Fixes made to each revision's schema before anything else reads it: the
//! method table, the merge into the version-neutral schema and typify.
//!
//! Unlike [`crate::patches`] (which works around typify), these correct what
//! the schema itself says badly, so they change which JSON is valid; each
//! names the defect. A fix that finds nothing to change does nothing, so the
//! same list serves every revision.

use serde_json::{Map, Value, json};

use crate::Error;

/// One named fix and why it exists.
#[derive(Debug)]
pub struct Fix {
    /// Short identifier, used in error messages and docs.
    pub name: &'static str,
    /// What is wrong in the schema.
    pub reason: &'static str,
    apply: fn(&mut Map<String, Value>) -> Result<(), Error>,
}

/// Every fix, in the order it is applied.
pub const FIXES: &[Fix] = &[
    Fix {
        name: "single-object-client-notification",
        reason: "2026-07-28 writes `ClientNotification`, which has one member left \
                 (notifications/cancelled), as that member's object instead of a union; \
                 it becomes a one-member `anyOf` so that every revision's message unions \
                 have the same shape",
        apply: single_object_client_notification,
    },
    Fix {
        name: "json-value",
        reason: "2026-07-28's `JSONValue` admits only string, integer, boolean, arrays and \
                 objects: no non-integral number and no null, although JSON (and schema.ts) \
                 has both; it becomes any JSON value",
        apply: json_value,
    },
    Fix {
        name: "result-type-values",
        reason: "`resultType` is a plain string in the schema although its values are \
                 closed (`ResultType`: `complete`, `input_required`) and fixed per result; \
                 `InputRequiredResult` gets `input_required`, every other result \
                 `complete`, so that an unknown or wrong value is rejected and a \
                 response's result is told apart by it",
        apply: result_type_values,
    },
    Fix {
        name: "read-result-cache-hints",
        reason: "2026-07-28 requires `ttlMs` and `cacheScope` on `ReadResourceResult`, yet its \
                 own example `ReadResourceResultResponse/read-resource-result-response.json` \
                 omits both (the schema accepts that only as an `InputRequiredResult`, whose \
                 `resultType` it leaves open); a `resources/read` result without caching hints \
                 is read as one that gives none",
        apply: read_result_cache_hints,
    },
];

/// Applies every fix to a copy of `schema`.
pub fn apply_all(schema: &Value) -> Result<Value, Error> {
    let mut schema = schema.clone();
    let defs = schema
        .get_mut("$defs")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| Error::Schema("the schema has no `$defs` object".into()))?;
    for fix in FIXES {
        (fix.apply)(defs).map_err(|e| Error::Schema(format!("fix `{}`: {e}", fix.name)))?;
    }
    Ok(schema)
}

fn single_object_client_notification(defs: &mut Map<String, Value>) -> Result<(), Error> {
    let Some(def) = defs.get("ClientNotification") else {
        return Ok(());
    };
    if def.get("anyOf").is_some() {
        return Ok(());
    }
    let method = def
        .pointer("/properties/method/const")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            Error::Schema("`ClientNotification` is neither a union nor a message".into())
        })?;
    // The member is the def that carries the same method constant.
    let member = defs
        .iter()
        .find(|(name, d)| {
            *name != "ClientNotification"
                && d.pointer("/properties/method/const")
                    .and_then(Value::as_str)
                    == Some(method)
        })
        .map(|(name, _)| name.clone())
        .ok_or_else(|| Error::Schema(format!("no def is the `{method}` notification")))?;
    let description = def.get("description").cloned();
    let mut union = json!({ "anyOf": [{ "$ref": format!("#/$defs/{member}") }] });
    if let (Some(d), Some(obj)) = (description, union.as_object_mut()) {
        obj.insert("description".into(), d);
    }
    defs.insert("ClientNotification".into(), union);
    Ok(())
}

fn json_value(defs: &mut Map<String, Value>) -> Result<(), Error> {
    if let Some(def) = defs.get_mut("JSONValue") {
        let description = def.get("description").cloned();
        *def = json!({});
        if let (Some(d), Some(obj)) = (description, def.as_object_mut()) {
            obj.insert("description".into(), d);
        }
    }
    Ok(())
}

/// The `resultType` a result def carries: `input_required` for
/// `InputRequiredResult`, `complete` for every other def that has the field,
/// either for the base `Result` (which stands for any result).
fn result_type_values(defs: &mut Map<String, Value>) -> Result<(), Error> {
    if !defs.contains_key("ResultType") {
        return Ok(());
    }
    if let Some(def) = defs.get_mut("ResultType").and_then(Value::as_object_mut) {
        def.insert("enum".into(), json!(["complete", "input_required"]));
    }
    for (name, def) in defs.iter_mut() {
        let Some(prop) = def
            .pointer_mut("/properties/resultType")
            .and_then(Value::as_object_mut)
        else {
            continue;
        };
        match name.as_str() {
            "Result" => prop.insert("enum".into(), json!(["complete", "input_required"])),
            "InputRequiredResult" => prop.insert("const".into(), json!("input_required")),
            _ => prop.insert("const".into(), json!("complete")),
        };
    }
    Ok(())
}

fn read_result_cache_hints(defs: &mut Map<String, Value>) -> Result<(), Error> {
    if let Some(required) = defs
        .get_mut("ReadResourceResult")
        .and_then(|d| d.get_mut("required"))
        .and_then(Value::as_array_mut)
    {
        required.retain(|r| r != "ttlMs" && r != "cacheScope");
    }
    Ok(())
}
