//! [`SkillCatalog`]: the skills a server serves, by URI.

use super::Skill;
use super::SkillProblem;
use crate::fast_map::{FastIndexMap, FastMap};
use crate::{Error, Result};

/// The skills a server serves, in the order added, each at its URI; built in
/// memory ([`add`](Self::add)) or [loaded from a directory](Self::load_dir).
/// Give it to a server with
/// [`ServerBuilder::skills`](crate::server::ServerBuilder::skills); replace
/// it while serving with
/// [`Server::set_skills`](crate::server::Server::set_skills).
#[derive(Clone, Debug, Default)]
pub struct SkillCatalog {
    pub(super) skills: FastIndexMap<String, Skill>,
    /// Every file's URI: its skill's URI.
    files: FastMap<String, String>,
    directory_read: bool,
}

impl SkillCatalog {
    /// An empty catalog.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `skill`; fails if a skill at its URI is already here.
    pub fn add(&mut self, skill: Skill) -> Result<()> {
        let uri = skill.entry().uri.clone();
        if self.skills.contains_key(&uri) {
            return Err(Error::Skill {
                uri,
                problem: SkillProblem::Duplicate,
            });
        }
        for file in skill.files.iter() {
            self.files.insert(file.uri.clone(), uri.clone());
        }
        self.skills.insert(uri, skill);
        Ok(())
    }

    /// [`add`](Self::add), by value.
    pub fn with(mut self, skill: Skill) -> Result<Self> {
        self.add(skill)?;
        Ok(self)
    }

    /// Offers `resources/directory/read` on the skills' folders (declared as
    /// `directoryRead: true`).
    #[must_use]
    pub fn directory_read(mut self, on: bool) -> Self {
        self.directory_read = on;
        self
    }

    /// Whether `resources/directory/read` is offered.
    pub fn offers_directory_read(&self) -> bool {
        self.directory_read
    }

    /// The skills, in order.
    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.values()
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.skills.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The skill whose `SKILL.md` is at `uri`.
    pub fn get(&self, uri: &str) -> Option<&Skill> {
        self.skills.get(uri)
    }

    /// The skill that has a file at `uri`.
    pub(crate) fn skill_of_file(&self, uri: &str) -> Option<&Skill> {
        self.skills.get(self.files.get(uri)?)
    }

    /// The settings the extension is declared with.
    pub(crate) fn settings(&self) -> crate::schema::JsonObject {
        let mut settings = indexmap::IndexMap::new();
        if self.directory_read {
            settings.insert(
                "directoryRead".to_string(),
                crate::schema::JsonValue(serde_json::Value::Bool(true)),
            );
        }
        crate::schema::JsonObject(settings)
    }
}
