//! How schema names become Rust names, in one place.

use heck::ToUpperCamelCase;
use serde_json::{Map, Value};

/// The `$defs` object of a schema.
pub(crate) fn defs(schema: &Value) -> Option<&Map<String, Value>> {
    schema.get("$defs").and_then(Value::as_object)
}

/// The Rust name typify gives a `$defs` entry.
pub(crate) fn rust_type(def: &str) -> String {
    match def {
        // Would shadow `std::result::Result` and `std::error::Error` for every
        // user who glob-imports the schema module.
        "Result" => "BaseResult".into(),
        "Error" => "ErrorObject".into(),
        _ => def.to_upper_camel_case(),
    }
}

/// Name of the zero-sized type that stands for a string constant found at
/// `path` (property names) inside `def`.
pub(crate) fn const_type_name(def: &str, path: &[String], _value: &str) -> String {
    if path.len() == 1 && path[0] == "jsonrpc" {
        return "JsonRpcVersion".into();
    }
    let mut name = rust_type(def);
    for segment in path {
        name.push_str(&segment.to_upper_camel_case());
    }
    name
}

/// The variant name for a union member: the def name without the suffix or
/// prefix every member of its union shares.
pub(crate) fn variant_name(member: &str) -> String {
    let mut name = member;
    for prefix in ["ElicitRequest"] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if !rest.is_empty() {
                name = rest;
            }
        }
    }
    for suffix in ["Request", "Notification", "Content", "Params"] {
        if let Some(rest) = name.strip_suffix(suffix) {
            if !rest.is_empty() {
                name = rest;
                break;
            }
        }
    }
    name.to_upper_camel_case()
}

/// SCREAMING_SNAKE name of a method constant, e.g. `tools/call` → `TOOLS_CALL`.
pub(crate) fn method_const(method: &str) -> String {
    use heck::ToShoutySnakeCase;
    method.replace('/', "_").to_shouty_snake_case()
}
