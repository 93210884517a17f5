//! What the generator reads out of the schema besides plain types: which
//! unions are discriminated by a constant, and the method table (method name,
//! params, result) of every request and notification.

use serde_json::{Map, Value};

use crate::Error;
use crate::names::{defs, rust_type, variant_name};

/// A union (`anyOf` of `$ref`s) whose members all carry a distinct string
/// constant in the same property.
#[derive(Debug)]
pub(crate) struct TaggedUnion {
    /// The def name of the union, e.g. `ContentBlock`.
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    /// The discriminating property, e.g. `type` or `method`.
    pub(crate) tag: String,
    pub(crate) variants: Vec<Variant>,
    /// What the union is, which decides the extra API generated for it.
    pub(crate) kind: UnionKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UnionKind {
    /// Requests keyed on `method`: gets a method enum, `id()`, result mapping.
    Request,
    /// Notifications keyed on `method`: gets a method enum.
    Notification,
    /// Requests without a JSON-RPC envelope, keyed on `method` (2026-07-28's
    /// `InputRequest`, embedded in a result): gets a method enum.
    Embedded,
    /// Any other discriminated union (content blocks, elicitation params).
    Data,
}

#[derive(Debug)]
pub(crate) struct Variant {
    /// Rust variant name, e.g. `CallTool`.
    pub(crate) name: String,
    /// Def name of the member, e.g. `CallToolRequest`.
    pub(crate) def: String,
    /// The constant value of the tag, e.g. `tools/call`.
    pub(crate) tag_value: String,
    /// The tag may be omitted; this variant is then chosen.
    pub(crate) tag_optional: bool,
    /// For requests and notifications: the params type and whether it is required.
    pub(crate) params: Option<(String, bool)>,
    /// For requests: the def name of the result.
    pub(crate) result: Option<String>,
    /// The member has an `id` property, and whether it is required.
    pub(crate) id: Option<bool>,
    /// The member has a `jsonrpc` property, and whether it is required.
    pub(crate) jsonrpc: Option<bool>,
    /// The member is held in a `Box` (see [`holds_capabilities`]).
    pub(crate) boxed: bool,
}

/// Requests answered by `EmptyResult`, by def name (the schema says so only
/// in prose).
const EMPTY_RESULT_REQUESTS: &[&str] = &[
    "PingRequest",
    "SetLevelRequest",
    "SubscribeRequest",
    "UnsubscribeRequest",
];

/// Finds every discriminated union of the (unpatched) schema.
pub(crate) fn tagged_unions(schema: &Value) -> Result<Vec<TaggedUnion>, Error> {
    let defs = defs(schema).ok_or_else(|| Error::Schema("no `$defs`".into()))?;
    let mut unions = Vec::new();
    for (name, def) in defs {
        let Some(members) = def.get("anyOf").and_then(Value::as_array) else {
            continue;
        };
        let Some(refs) = members.iter().map(ref_name).collect::<Option<Vec<_>>>() else {
            continue;
        };
        if let Some(union) = discriminate(name, def, &refs, defs)? {
            unions.push(union);
        }
    }
    Ok(unions)
}

fn ref_name(v: &Value) -> Option<&str> {
    v.get("$ref")?.as_str()?.strip_prefix("#/$defs/")
}

fn discriminate(
    name: &str,
    def: &Value,
    refs: &[&str],
    defs: &Map<String, Value>,
) -> Result<Option<TaggedUnion>, Error> {
    'tags: for tag in ["method", "type", "mode"] {
        let mut variants = Vec::new();
        for member in refs {
            let Some(member_def) = defs.get(*member) else {
                return Err(Error::Schema(format!(
                    "`{name}` refers to missing `{member}`"
                )));
            };
            let Some(value) = member_def
                .pointer(&format!("/properties/{tag}/const"))
                .and_then(Value::as_str)
            else {
                continue 'tags;
            };
            let required = is_required(member_def, tag);
            let field = |prop: &str| {
                member_def
                    .pointer(&format!("/properties/{prop}"))
                    .map(|_| is_required(member_def, prop))
            };
            variants.push(Variant {
                name: variant_name(member),
                def: (*member).to_string(),
                tag_value: value.to_string(),
                tag_optional: !required,
                params: None,
                result: None,
                id: field("id"),
                jsonrpc: field("jsonrpc"),
                boxed: holds_capabilities(member_def, defs),
            });
        }
        // Boxing helps only beside smaller members.
        if variants.iter().all(|v| v.boxed) {
            for v in &mut variants {
                v.boxed = false;
            }
        }
        let mut values: Vec<&str> = variants.iter().map(|v| v.tag_value.as_str()).collect();
        values.sort_unstable();
        values.dedup();
        let optional = variants.iter().filter(|v| v.tag_optional).count();
        if values.len() != variants.len() || optional > 1 {
            continue;
        }
        let kind = match (
            tag,
            name.ends_with("Request"),
            name.ends_with("Notification"),
        ) {
            // No member needs an id: requests embedded in a result, not sent
            // as JSON-RPC requests.
            ("method", true, _) if variants.iter().all(|v| v.id != Some(true)) => {
                UnionKind::Embedded
            }
            ("method", true, _) => UnionKind::Request,
            ("method", _, true) => UnionKind::Notification,
            _ => UnionKind::Data,
        };
        if kind != UnionKind::Data {
            for v in &mut variants {
                let member_def = &defs[&v.def];
                v.params = params_of(member_def, &v.def)?;
                if matches!(kind, UnionKind::Request | UnionKind::Embedded) {
                    v.result = Some(result_of(&v.def, &v.tag_value, defs)?);
                }
            }
        }
        return Ok(Some(TaggedUnion {
            name: name.to_string(),
            description: def
                .get("description")
                .and_then(Value::as_str)
                .map(String::from),
            tag: tag.to_string(),
            variants,
            kind,
        }));
    }
    Ok(None)
}

/// Whether a union member holds a side's capabilities inline: in its own
/// properties, or in those of a def a property names (its params, their
/// `_meta`), a few levels down (`initialize`, `subscriptions/listen`). Each
/// capability is an inline optional struct, so such a member is over a
/// kilobyte where the others are a few hundred bytes: held in a `Box`, it
/// does not make every value of its union that large (a `tools/call` is
/// moved several times on its way to the handler). Arrays and unions hold
/// their items on the heap already and are not followed. When every member
/// of a union holds them (2026-07-28's own requests), none is boxed.
fn holds_capabilities(def: &Value, defs: &Map<String, Value>) -> bool {
    fn inline(def: &Value, defs: &Map<String, Value>, depth: u8) -> bool {
        let Some(props) = def.get("properties").and_then(Value::as_object) else {
            return false;
        };
        props.values().any(|prop| match ref_name(prop) {
            Some(target) if target.ends_with("Capabilities") => true,
            Some(target) => {
                depth > 0 && defs.get(target).is_some_and(|d| inline(d, defs, depth - 1))
            }
            None => depth > 0 && inline(prop, defs, depth - 1),
        })
    }
    inline(def, defs, 3)
}

fn is_required(def: &Value, prop: &str) -> bool {
    def.get("required")
        .and_then(Value::as_array)
        .is_some_and(|r| r.iter().any(|p| p == prop))
}

/// The Rust type of a request's or notification's `params`, and whether it is
/// required.
fn params_of(def: &Value, def_name: &str) -> Result<Option<(String, bool)>, Error> {
    let Some(params) = def.pointer("/properties/params") else {
        return Ok(None);
    };
    // Inline params objects are hoisted to `{def}Params` by the
    // `hoist-inline-params` patch.
    let target = match ref_name(params) {
        Some(target) => target.to_string(),
        None => format!("{def_name}Params"),
    };
    Ok(Some((rust_type(&target), is_required(def, "params"))))
}

/// The def of the result that completes a request: what its
/// `<Stem>ResultResponse` names besides `InputRequiredResult` (2026-07-28),
/// else `<Stem>Result`, else `EmptyResult` for the requests known to take it.
fn result_of(def_name: &str, method: &str, defs: &Map<String, Value>) -> Result<String, Error> {
    if EMPTY_RESULT_REQUESTS.contains(&def_name) {
        return Ok("EmptyResult".into());
    }
    let stem = def_name
        .strip_suffix("Request")
        .ok_or_else(|| Error::Schema(format!("request `{def_name}` does not end in Request")))?;
    if let Some(result) = defs.get(&format!("{stem}ResultResponse")) {
        let alternatives: Vec<&Value> = match result.pointer("/properties/result") {
            Some(r) => match r.get("anyOf").and_then(Value::as_array) {
                Some(any) => any.iter().collect(),
                None => vec![r],
            },
            None => Vec::new(),
        };
        let complete: Vec<&str> = alternatives
            .into_iter()
            .filter_map(ref_name)
            .filter(|r| *r != "InputRequiredResult")
            .collect();
        if let [one] = complete.as_slice() {
            return Ok((*one).to_string());
        }
        return Err(Error::Schema(format!(
            "`{stem}ResultResponse` does not name one result for `{method}`"
        )));
    }
    let result = format!("{stem}Result");
    if defs.contains_key(&result) {
        Ok(result)
    } else {
        Err(Error::Schema(format!(
            "no result type for `{method}`: expected `{result}` in the schema, or list the \
             request in EMPTY_RESULT_REQUESTS"
        )))
    }
}

/// The result unions (`ClientResult`, `ServerResult`) are replaced by enums
/// keyed on the request method; returns `(result union, request union)` pairs.
pub(crate) fn result_unions(schema: &Value) -> Vec<(&'static str, &'static str)> {
    let Some(defs) = defs(schema) else {
        return Vec::new();
    };
    [
        ("ServerResult", "ClientRequest"),
        ("ClientResult", "ServerRequest"),
    ]
    .into_iter()
    .filter(|(r, q)| defs.contains_key(*r) && defs.contains_key(*q))
    .collect()
}

/// `(def, part)` for every def written as `allOf` of `$ref`s, as Rust type
/// names (`GetTaskResult` is `allOf[Result, Task]`).
pub(crate) fn compositions(schema: &Value) -> Vec<(String, String)> {
    let Some(defs) = defs(schema) else {
        return Vec::new();
    };
    let mut pairs = Vec::new();
    for (name, def) in defs {
        let Some(parts) = def.get("allOf").and_then(Value::as_array) else {
            continue;
        };
        for part in parts.iter().filter_map(ref_name) {
            pairs.push((rust_type(name), rust_type(part)));
        }
    }
    pairs
}
