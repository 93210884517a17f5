//! The wire shape of a skill: the entry `skills/list` and `skills/get`
//! answer with.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One skill as listed: where its `SKILL.md` is, its frontmatter, and its
/// files.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of the skill's `SKILL.md` (`skill://<skill-path>/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md` frontmatter as a JSON object (`name` and
    /// `description` at least).
    pub frontmatter: Map<String, Value>,
    /// Every file of the skill, or `"dynamic"`.
    pub resources: SkillResources,
}

impl SkillEntry {
    /// An entry with every field given.
    pub fn new(uri: String, frontmatter: Map<String, Value>, resources: SkillResources) -> Self {
        Self {
            uri,
            frontmatter,
            resources,
        }
    }

    /// The skill's name (`frontmatter.name`).
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.get("name").and_then(Value::as_str)
    }

    /// The skill's description (`frontmatter.description`).
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The listed file at `uri`, if the entry lists its files.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match &self.resources {
            SkillResources::Files(files) => files.iter().find(|f| f.uri == uri),
            SkillResources::Dynamic(_) => None,
        }
    }
}

/// The files of a skill: a complete manifest, or `"dynamic"` (none
/// published).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file, each once, `SKILL.md` included.
    Files(Vec<SkillFile>),
    /// The string `"dynamic"`: the server publishes no manifest.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One file of a skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    /// Where `resources/read` reads it.
    pub uri: String,
    /// `sha256:` and the SHA-256 of its bytes in lowercase hex.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillFile {
    /// A file entry.
    pub fn new(uri: String, digest: String, size: u64) -> Self {
        Self { uri, digest, size }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_round_trip_both_forms_of_resources() {
        let listed = json!({
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 3}]
        });
        let entry: SkillEntry = serde_json::from_value(listed.clone()).unwrap();
        assert_eq!(entry.name(), Some("a"));
        assert_eq!(entry.file("skill://a/SKILL.md").map(|f| f.size), Some(3));
        assert_eq!(serde_json::to_value(&entry).unwrap(), listed);
        let dynamic: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md",
            "frontmatter": {"name": "a", "description": "d"},
            "resources": "dynamic"
        }))
        .unwrap();
        assert_eq!(dynamic.resources, SkillResources::Dynamic(Dynamic::Dynamic));
        assert!(
            serde_json::from_value::<SkillEntry>(json!({
                "uri": "u", "frontmatter": {}, "resources": "static"
            }))
            .is_err()
        );
    }
}
