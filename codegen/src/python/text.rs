//! Python source text: names, string literals, docstrings and comments.

use heck::ToSnakeCase;

use crate::Error;

/// Python's keywords and soft keywords a name must not be.
const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Names of `Model`'s own API, which a field must not shadow.
const MODEL_API: &[&str] = &["extra", "from_dict", "to_dict"];

/// The attribute for a wire property: `_meta` is `meta`, camelCase becomes
/// snake_case, a keyword gets a trailing `_`.
pub(super) fn attr_name(wire: &str, owner: &str) -> Result<String, Error> {
    let mut name = if wire == "_meta" {
        "meta".to_string()
    } else {
        wire.to_snake_case()
    };
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    if !is_identifier(&name) || MODEL_API.contains(&name.as_str()) {
        return Err(Error::Schema(format!(
            "`{owner}.{wire}` has no usable Python attribute name (got `{name}`)"
        )));
    }
    Ok(name)
}

/// `snake_case` of a def name, for private module-level names.
pub(super) fn snake(name: &str) -> String {
    name.to_snake_case()
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A Python string literal (JSON's escapes are Python's).
pub(super) fn string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// A docstring at `indent`, one line if short.
pub(super) fn docstring(text: &str, indent: &str) -> String {
    let body = text
        .trim()
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\\\"\\\"");
    // A closing quote right before `"""` would end the string early.
    let body = match body.strip_suffix('"') {
        Some(rest) => format!("{rest}\\\""),
        None => body,
    };
    if !body.contains('\n') && indent.len() + body.len() + 6 <= 100 {
        return format!("{indent}\"\"\"{body}\"\"\"\n");
    }
    let mut out = format!("{indent}\"\"\"");
    for (i, line) in body.lines().enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.is_empty() {
                out.push_str(indent);
            }
        }
        out.push_str(line.trim_end());
    }
    out.push('\n');
    out.push_str(indent);
    out.push_str("\"\"\"\n");
    out
}

/// The first paragraph of `text` as `#:` comment lines (Sphinx reads them as
/// the attribute's documentation).
pub(super) fn attr_comment(text: &str, indent: &str) -> String {
    let paragraph = text.trim().split("\n\n").next().unwrap_or_default();
    paragraph
        .lines()
        .map(|line| format!("{indent}#: {}\n", line.trim_end()).replace("#: \n", "#:\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attribute_names() {
        assert_eq!(attr_name("_meta", "X").unwrap(), "meta");
        assert_eq!(attr_name("mimeType", "X").unwrap(), "mime_type");
        assert_eq!(attr_name("websiteUrl", "X").unwrap(), "website_url");
        assert_eq!(attr_name("ttlMs", "X").unwrap(), "ttl_ms");
        assert_eq!(attr_name("from", "X").unwrap(), "from_");
        assert_eq!(
            attr_name("io.modelcontextprotocol/logLevel", "X").unwrap(),
            "io_modelcontextprotocol_log_level"
        );
        assert!(attr_name("2x", "X").is_err());
        assert!(attr_name("extra", "X").is_err());
    }

    #[test]
    fn literals_and_docs_are_escaped() {
        assert_eq!(string("a\"b\\c\n"), r#""a\"b\\c\n""#);
        assert_eq!(
            docstring("Say \"hi\"", "    "),
            "    \"\"\"Say \"hi\\\"\"\"\"\n"
        );
        assert_eq!(docstring("a\\b", ""), "\"\"\"a\\\\b\"\"\"\n");
        assert_eq!(
            docstring("First.\n\nSecond.", "    "),
            "    \"\"\"First.\n\n    Second.\n    \"\"\"\n"
        );
        assert_eq!(
            attr_comment("One\ntwo\n\nThree", "  "),
            "  #: One\n  #: two\n"
        );
    }
}
