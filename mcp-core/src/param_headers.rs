//! The request headers a 2026-07-28 client adds over Streamable HTTP
//! (SEP-2243): `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-{Name}` for tool
//! arguments whose `inputSchema` property is marked `x-mcp-header`; the
//! `=?base64?…?=` form for values that are not plain header text; and the
//! rules that make a tool's declarations invalid (a client leaves such a tool
//! out of `tools/list`); and, for a server, the check that the headers of a
//! `tools/call` repeat its arguments (-32020 otherwise).
//!
//! Each build uses the half of its features (server, HTTP client).
#![cfg_attr(
    not(all(feature = "server", feature = "http-client")),
    allow(dead_code)
)]

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

/// The schema keyword naming a header.
const ANNOTATION: &str = "x-mcp-header";
/// Largest integer a header may carry (JavaScript's safe range).
#[cfg(feature = "http-client")]
const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One mirrored argument: the header's name part and the chain of
/// `properties` keys that leads to the argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    pub(crate) name: String,
    pub(crate) path: Vec<String>,
}

/// The header declarations of one tool's `inputSchema`, or why they are
/// invalid.
pub(crate) fn declarations(input_schema: &Value) -> Result<Vec<ParamHeader>, String> {
    let mut found = Vec::new();
    let mut path = Vec::new();
    visit(input_schema, true, true, &mut path, &mut found)?;
    let mut seen = std::collections::HashSet::new();
    for header in &found {
        if !seen.insert(header.name.to_ascii_lowercase()) {
            return Err(format!(
                "`{ANNOTATION}` value `{}` is used more than once (case-insensitively)",
                header.name
            ));
        }
    }
    Ok(found)
}

/// Walks a schema: `reachable` is whether `node` is reached from the root
/// through `properties` keys only; `root` whether it is the root itself.
fn visit(
    node: &Value,
    reachable: bool,
    root: bool,
    path: &mut Vec<String>,
    found: &mut Vec<ParamHeader>,
) -> Result<(), String> {
    match node {
        Value::Object(object) => {
            if let Some(annotation) = object.get(ANNOTATION) {
                if !reachable || root {
                    return Err(format!(
                        "`{ANNOTATION}` is only allowed on a property reached through \
                         `properties` from the schema root"
                    ));
                }
                found.push(ParamHeader {
                    name: check_name(annotation, path)?,
                    path: path.clone(),
                });
                check_type(object, path)?;
            }
            for (key, child) in object {
                match (key.as_str(), child) {
                    ("properties", Value::Object(properties)) if reachable => {
                        for (name, schema) in properties {
                            path.push(name.clone());
                            visit(schema, true, false, path, found)?;
                            path.pop();
                        }
                    }
                    (ANNOTATION, _) => {}
                    _ => visit(child, false, false, path, found)?,
                }
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| visit(item, false, false, path, found)),
        _ => Ok(()),
    }
}

fn check_name(annotation: &Value, path: &[String]) -> Result<String, String> {
    let at = path.join(".");
    let Value::String(name) = annotation else {
        return Err(format!("`{ANNOTATION}` of `{at}` is not a string"));
    };
    if name.is_empty() {
        return Err(format!("`{ANNOTATION}` of `{at}` is empty"));
    }
    if let Some(bad) = name.chars().find(|c| !is_tchar(*c)) {
        return Err(format!(
            "`{ANNOTATION}` of `{at}` (`{}`) has {bad:?}, which is not allowed in a header name",
            name.escape_debug()
        ));
    }
    Ok(name.clone())
}

fn check_type(schema: &Map<String, Value>, path: &[String]) -> Result<(), String> {
    match schema.get("type").and_then(Value::as_str) {
        Some("string" | "integer" | "boolean") => Ok(()),
        other => Err(format!(
            "`{ANNOTATION}` of `{}` is on a property of type {}; only string, integer and \
             boolean may be mirrored",
            path.join("."),
            other.map_or_else(|| "unspecified".to_string(), |t| format!("`{t}`"))
        )),
    }
}

/// RFC 9110 `tchar`.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

#[cfg(feature = "http-client")]
/// The `Mcp-Param-*` headers of one call: name and encoded value for each
/// declared argument present (and not null) in `arguments`.
pub(crate) fn param_values(
    declared: &[ParamHeader],
    arguments: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    declared
        .iter()
        .filter_map(|header| {
            let value = value_at(arguments, &header.path)?;
            let text = match value {
                Value::String(s) => s.clone(),
                Value::Bool(b) => b.to_string(),
                Value::Number(n) => match n.as_i64() {
                    Some(i) if i.abs() <= MAX_SAFE_INTEGER => i.to_string(),
                    _ => n.to_string(),
                },
                _ => return None,
            };
            Some((format!("mcp-param-{}", header.name), encode_value(&text)))
        })
        .collect()
}

#[cfg(feature = "http-client")]
/// A value as a header carries it: as is when it is plain header text,
/// otherwise `=?base64?…?=` of its UTF-8 (non-ASCII, control characters,
/// leading or trailing whitespace, or text that looks like the encoding).
pub(crate) fn encode_value(text: &str) -> String {
    let printable = text.chars().all(|c| (' '..='~').contains(&c));
    let padded = text.starts_with(' ') || text.ends_with(' ');
    let looks_encoded = text.starts_with("=?base64?") && text.ends_with("?=");
    if printable && !padded && !looks_encoded {
        text.to_string()
    } else {
        format!("=?base64?{}?=", STANDARD.encode(text.as_bytes()))
    }
}

/// A header value as the client meant it: the text inside `=?base64?…?=`
/// (which must be canonical Base64 of UTF-8), anything else literally.
pub(crate) fn decode_value(raw: &str) -> Result<std::borrow::Cow<'_, str>, String> {
    let Some(inner) = raw
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Ok(std::borrow::Cow::Borrowed(raw));
    };
    let bytes = STANDARD
        .decode(inner)
        .map_err(|e| format!("`{raw}` is not valid Base64 ({e})"))?;
    String::from_utf8(bytes)
        .map(std::borrow::Cow::Owned)
        .map_err(|_| format!("`{raw}` does not decode to UTF-8 text"))
}

/// The `Mcp-Param-*` headers of one request, by lower-case name part; a
/// value that is not header text is kept as `None` (refused if declared).
pub(crate) type SentParams = Vec<(String, Option<String>)>;

/// Checks that the headers a `tools/call` came with repeat every declared
/// argument present in the body (a null or absent one needs no header), as
/// the server side of SEP-2243 requires; the error says which one differs.
pub(crate) fn check_sent(
    declared: &[ParamHeader],
    arguments: Option<&Map<String, Value>>,
    sent: &SentParams,
) -> Result<(), String> {
    for header in declared {
        let Some(value) = value_at(arguments, &header.path) else {
            continue;
        };
        let wanted = header.name.to_ascii_lowercase();
        let Some((_, raw)) = sent.iter().find(|(name, _)| *name == wanted) else {
            return Err(format!(
                "the Mcp-Param-{} header is missing but the arguments carry `{}`",
                header.name,
                header.path.join(".")
            ));
        };
        let Some(raw) = raw else {
            return Err(format!(
                "the Mcp-Param-{} header has characters a header value may not carry",
                header.name
            ));
        };
        let text = decode_value(raw).map_err(|e| format!("Mcp-Param-{}: {e}", header.name))?;
        if !same_value(&text, value) {
            return Err(format!(
                "Mcp-Param-{} is `{raw}` but the arguments carry {value} at `{}`",
                header.name,
                header.path.join(".")
            ));
        }
    }
    Ok(())
}

/// The argument at `path`, unless absent or null.
fn value_at<'a>(arguments: Option<&'a Map<String, Value>>, path: &[String]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    let mut value = arguments?.get(first)?;
    for key in rest {
        value = value.get(key)?;
    }
    (!value.is_null()).then_some(value)
}

/// Whether header text `text` stands for body value `value`: strings as
/// they are, booleans in lower case, integers compared as numbers (`42.0`
/// is `42`).
fn same_value(text: &str, value: &Value) -> bool {
    match value {
        Value::String(s) => s == text,
        Value::Bool(b) => text == if *b { "true" } else { "false" },
        Value::Number(n) => match (text.parse::<f64>(), n.as_f64()) {
            (Ok(h), Some(b)) => h == b,
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn decodes_the_base64_form_strictly() {
        assert_eq!(decode_value("us-west1").unwrap(), "us-west1");
        assert_eq!(decode_value("=?base64?SGVsbG8=?=").unwrap(), "Hello");
        // Without the closing marker it is literal.
        assert_eq!(
            decode_value("=?base64?SGVsbG8=").unwrap(),
            "=?base64?SGVsbG8="
        );
        assert!(
            decode_value("=?base64?SGVsbG8?=").is_err(),
            "missing padding"
        );
        assert!(
            decode_value("=?base64?SGVs!!!bG8=?=").is_err(),
            "bad characters"
        );
        assert!(decode_value("=?base64?/w==?=").is_err(), "not UTF-8");
        for text in ["Hello, 世界", " padded ", "line1\nline2", "=?base64?x?="] {
            assert_eq!(decode_value(&encode_value(text)).unwrap(), text);
        }
    }

    #[test]
    fn checks_sent_headers_against_the_arguments() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"}
        }});
        let declared = declarations(&schema).unwrap();
        let args = json!({"region": "eu", "n": 42, "flag": true});
        let args = args.as_object();
        let sent = |pairs: &[(&str, &str)]| -> SentParams {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), Some(v.to_string())))
                .collect()
        };
        let all = sent(&[("region", "eu"), ("n", "42.0"), ("flag", "true")]);
        assert_eq!(check_sent(&declared, args, &all), Ok(()));
        let encoded = sent(&[("region", "=?base64?ZXU=?="), ("n", "42"), ("flag", "true")]);
        assert_eq!(check_sent(&declared, args, &encoded), Ok(()));
        for bad in [
            sent(&[("n", "42"), ("flag", "true")]),
            sent(&[("region", "us"), ("n", "42"), ("flag", "true")]),
            sent(&[("region", "eu"), ("n", "43"), ("flag", "true")]),
            sent(&[("region", "eu"), ("n", "42"), ("flag", "True")]),
            sent(&[("region", "=?base64?ZXU?="), ("n", "42"), ("flag", "true")]),
        ] {
            assert!(check_sent(&declared, args, &bad).is_err(), "{bad:?}");
        }
        let unreadable = vec![
            ("region".to_string(), None),
            ("n".to_string(), Some("42".to_string())),
            ("flag".to_string(), Some("true".to_string())),
        ];
        assert!(check_sent(&declared, args, &unreadable).is_err());
        // Absent or null arguments need no header.
        let none = json!({"region": null});
        assert_eq!(check_sent(&declared, none.as_object(), &Vec::new()), Ok(()));
    }

    fn names(schema: Value) -> Result<Vec<String>, String> {
        declarations(&schema).map(|d| d.into_iter().map(|h| h.name).collect())
    }

    #[test]
    fn finds_declarations_on_reachable_primitives() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {
                "n": {"type": "integer", "x-mcp-header": "N"}}},
            "query": {"type": "string"}
        }});
        assert_eq!(names(schema).unwrap(), ["Region", "N"]);
    }

    #[test]
    fn refuses_invalid_declarations() {
        for bad in [
            json!({"properties": {"v": {"type": "string", "x-mcp-header": ""}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "My Region"}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "A:B"}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "Région"}}}),
            json!({"properties": {"v": {"type": "string", "x-mcp-header": "R\t1"}}}),
            json!({"properties": {"v": {"type": "number", "x-mcp-header": "V"}}}),
            json!({"properties": {"v": {"type": "object", "x-mcp-header": "V"}}}),
            json!({"properties": {"v": {"type": "null", "x-mcp-header": "V"}}}),
            json!({"properties": {"v": {"type": "array", "x-mcp-header": "V"}}}),
            json!({"properties": {
                "a": {"type": "string", "x-mcp-header": "MyField"},
                "b": {"type": "string", "x-mcp-header": "myfield"}}}),
            json!({"properties": {"v": {"type": "array", "items":
                {"type": "string", "x-mcp-header": "V"}}}}),
            json!({"anyOf": [{"properties": {"v": {"type": "string", "x-mcp-header": "V"}}}]}),
            json!({"type": "string", "x-mcp-header": "Root"}),
        ] {
            assert!(declarations(&bad).is_err(), "{bad} should be refused");
        }
    }

    #[test]
    fn encodes_values_that_are_not_plain_text() {
        assert_eq!(encode_value("us-west1"), "us-west1");
        assert_eq!(encode_value("us west 1"), "us west 1");
        assert_eq!(encode_value(""), "");
        assert_eq!(
            encode_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(encode_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(encode_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(encode_value("\tx"), "=?base64?CXg=?=");
        assert_eq!(
            encode_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
    }

    #[test]
    fn mirrors_present_arguments_only() {
        let declared = declarations(&json!({"properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": "boolean", "x-mcp-header": "Verbose"},
            "o": {"type": "object", "properties": {"d": {"type": "boolean", "x-mcp-header": "D"}}}
        }}))
        .unwrap();
        let args = json!({"region": "eu", "priority": 42, "verbose": null, "o": {"d": true}});
        assert_eq!(
            param_values(&declared, args.as_object()),
            [
                ("mcp-param-Region".to_string(), "eu".to_string()),
                ("mcp-param-Priority".to_string(), "42".to_string()),
                ("mcp-param-D".to_string(), "true".to_string()),
            ]
        );
    }
}
