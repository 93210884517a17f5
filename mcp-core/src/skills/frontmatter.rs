//! `SKILL.md` frontmatter: the leading `---` block of YAML, read as a JSON
//! object, and the rules its `name`, `description` and `metadata` keep.

use serde_json::{Map, Value};

use super::{SKILL_LIMITS, SkillProblem};

/// The prefix of `metadata` keys the extension reserves.
#[cfg(feature = "server")]
const RESERVED_PREFIX: &str = "io.modelcontextprotocol/";

/// The frontmatter of `text` (a `SKILL.md`) as a JSON object, and the body
/// after it. A leading byte-order mark is skipped.
pub fn parse_frontmatter(text: &str) -> Result<(Map<String, Value>, &str), SkillProblem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || SkillProblem::Frontmatter("no leading `---` delimited block".into());
    let rest = text
        .strip_prefix("---\r\n")
        .or_else(|| text.strip_prefix("---\n"))
        .ok_or_else(missing)?;
    let (yaml, body) = closing(rest).ok_or_else(missing)?;
    let value: Value =
        serde_norway::from_str(yaml).map_err(|e| SkillProblem::Frontmatter(e.to_string()))?;
    match value {
        Value::Object(map) => Ok((map, body)),
        other => Err(SkillProblem::Frontmatter(format!(
            "the YAML is {}, not a mapping",
            kind_of(&other)
        ))),
    }
}

/// The YAML before the closing `---` line, and what follows that line.
fn closing(rest: &str) -> Option<(&str, &str)> {
    let mut start = 0;
    for line in rest.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        if content.trim_end_matches([' ', '\t']) == "---" {
            let yaml = rest.get(..start)?;
            let body = rest.get(start + line.len()..)?;
            return Some((yaml, body));
        }
        start += line.len();
    }
    None
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a sequence",
        Value::Object(_) => "a mapping",
    }
}

/// Checks a name against the Agent Skills naming rules: 1–64 characters,
/// lowercase ASCII letters, digits and hyphens, no hyphen first, last or
/// twice in a row.
pub fn validate_name(name: &str) -> Result<(), SkillProblem> {
    let bad = |why: &str| Err(SkillProblem::Name(format!("`{name}` {why}")));
    if name.is_empty() {
        return bad("is empty");
    }
    if name.chars().count() > SKILL_LIMITS.name_chars {
        return bad("is longer than 64 characters");
    }
    if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        return bad("may only have lowercase letters, digits and hyphens");
    }
    if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        return bad("may not start or end with a hyphen or have two in a row");
    }
    Ok(())
}

/// Checks a frontmatter: a valid `name`, a non-empty `description` of at
/// most 1024 characters, and no `metadata` key under the reserved prefix.
/// Returns the name.
#[cfg(feature = "server")]
pub(crate) fn validate(frontmatter: &Map<String, Value>) -> Result<&str, SkillProblem> {
    let name = match frontmatter.get("name") {
        Some(Value::String(name)) => name,
        Some(_) => return Err(SkillProblem::Name("`name` is not a string".into())),
        None => return Err(SkillProblem::Name("`name` is missing".into())),
    };
    validate_name(name)?;
    match frontmatter.get("description") {
        Some(Value::String(d)) if d.trim().is_empty() => {
            return Err(SkillProblem::Description("`description` is empty".into()));
        }
        Some(Value::String(d)) if d.chars().count() > SKILL_LIMITS.description_chars => {
            return Err(SkillProblem::Description(format!(
                "`description` is longer than {} characters",
                SKILL_LIMITS.description_chars
            )));
        }
        Some(Value::String(_)) => {}
        Some(_) => {
            return Err(SkillProblem::Description(
                "`description` is not a string".into(),
            ));
        }
        None => return Err(SkillProblem::Description("`description` is missing".into())),
    }
    if let Some(Value::Object(metadata)) = frontmatter.get("metadata")
        && let Some(key) = metadata.keys().find(|k| k.starts_with(RESERVED_PREFIX))
    {
        return Err(SkillProblem::ReservedMetadata(key.clone()));
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn frontmatter_is_read_as_json() {
        let text =
            "---\nname: pdf\ndescription: Reads PDFs\nmetadata:\n  tags: [a, b]\n---\nBody\n";
        let (fm, body) = parse_frontmatter(text).unwrap();
        assert_eq!(
            Value::Object(fm.clone()),
            json!({"name": "pdf", "description": "Reads PDFs", "metadata": {"tags": ["a", "b"]}})
        );
        assert_eq!(body, "Body\n");
        assert_eq!(validate(&fm).unwrap(), "pdf");
        let crlf = "\u{feff}---\r\nname: x\r\ndescription: y\r\n--- \r\n";
        assert_eq!(parse_frontmatter(crlf).unwrap().1, "");
    }

    #[test]
    fn malformed_frontmatter_is_a_clear_error() {
        for (text, says) in [
            ("no frontmatter", "no leading"),
            ("---\nname: x\n", "no leading"),
            ("---\n- a\n- b\n---\n", "a sequence"),
            ("---\n---\n", "empty"),
            ("---\nname: [unclosed\n---\n", "malformed"),
        ] {
            let e = parse_frontmatter(text).unwrap_err();
            assert!(matches!(e, SkillProblem::Frontmatter(_)), "{text}");
            assert!(e.to_string().contains(says) || says == "malformed", "{e}");
        }
    }

    #[test]
    fn names_and_descriptions_keep_the_rules() {
        for good in ["a", "pdf-processing", "x1", &"a".repeat(64)] {
            assert!(validate_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "é", &"a".repeat(65)] {
            assert!(validate_name(bad).is_err(), "{bad}");
        }
        let check = |v: Value| validate(v.as_object().unwrap()).map(str::to_owned);
        assert!(check(json!({"name": "a"})).is_err());
        assert!(check(json!({"name": "a", "description": " "})).is_err());
        assert!(check(json!({"name": "a", "description": "d".repeat(1025)})).is_err());
        assert!(check(json!({"name": 1, "description": "d"})).is_err());
        assert_eq!(
            check(
                json!({"name": "a", "description": "d", "metadata": {"io.modelcontextprotocol/x": 1}})
            ),
            Err(SkillProblem::ReservedMetadata(
                "io.modelcontextprotocol/x".into()
            ))
        );
    }
}
