//! The `MCP_METHOD_*` names in `bindings/c/include/mcp.h` are the method
//! table: one per method of every revision, each with its wire name. The
//! codegen and header drift checks compare each step with the one before;
//! this compares the end with the start.

use std::path::Path;

use mcp_core::schema::METHOD_TABLE;

/// The C name of a method: `logging/setLevel` → `MCP_METHOD_LOGGING_SET_LEVEL`.
fn c_name(method: &str) -> String {
    let mut name = String::from("MCP_METHOD_");
    let mut previous_lower = false;
    for c in method.chars() {
        if c == '/' {
            name.push('_');
        } else if c.is_ascii_uppercase() && previous_lower {
            name.push('_');
            name.push(c);
        } else {
            name.push(c.to_ascii_uppercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    name
}

/// Every `#define MCP_METHOD_…` of the header as `(name, value)`.
fn defined(header: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for line in header.lines() {
        let line = line.trim();
        if !line.starts_with('#') || !line.contains("MCP_METHOD_") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (name, value) = match words.as_slice() {
            ["#define", name, value] => (*name, *value),
            _ => panic!("an MCP_METHOD_ line not of the form `#define NAME \"value\"`: {line}"),
        };
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{name} is not a plain string literal: {value}"));
        found.push((name.to_string(), value.to_string()));
    }
    found
}

#[test]
fn c_names_follow_the_rust_constants() {
    assert_eq!(c_name("tools/call"), "MCP_METHOD_TOOLS_CALL");
    assert_eq!(c_name("logging/setLevel"), "MCP_METHOD_LOGGING_SET_LEVEL");
    assert_eq!(
        c_name("notifications/tools/list_changed"),
        "MCP_METHOD_NOTIFICATIONS_TOOLS_LIST_CHANGED"
    );
}

#[test]
fn header_method_names_are_the_method_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../bindings/c/include/mcp.h");
    let header = std::fs::read_to_string(&path).expect("read mcp.h");
    let mut in_header = defined(&header);
    in_header.sort();
    let mut in_table: Vec<(String, String)> = METHOD_TABLE
        .iter()
        .map(|m| (c_name(m.name), m.name.to_string()))
        .collect();
    in_table.sort();
    assert_eq!(
        in_header.len(),
        METHOD_TABLE.len(),
        "one MCP_METHOD_ name per method (run `cargo run -p codegen` and bindings/c/gen-header.sh)"
    );
    assert_eq!(
        in_header, in_table,
        "mcp.h's MCP_METHOD_ names differ from the method table (run `cargo run -p codegen` and \
         bindings/c/gen-header.sh)"
    );
}
