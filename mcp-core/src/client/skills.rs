//! The skills extension on the client: listing and looking up skills, and
//! loading one — its `SKILL.md` read and verified against the entry (size,
//! digest, frontmatter) only when asked, every other file only when asked
//! for, each verified the same way. Content that fails is never handed out.

use base64::Engine;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::Client;
use crate::extensions::{SKILLS, SKILLS_GET, SKILLS_LIST};
use crate::schema::ReadResourceResultContentsItem;
use crate::session::RequestOptions;
use crate::skills::{SkillEntry, SkillProblem, verify_file, verify_skill_md};
use crate::{Error, Result};

/// One page of `skills/list`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct SkillsPage {
    /// The entries of this page.
    pub skills: Vec<SkillEntry>,
    /// The cursor of the next page, if there is one.
    pub next_cursor: Option<String>,
}

/// A skill whose `SKILL.md` was read and verified against its entry.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct LoadedSkill {
    /// The entry it was verified against.
    pub entry: SkillEntry,
    /// The text of its `SKILL.md`.
    pub skill_md: String,
}

#[derive(Deserialize)]
struct ListResult {
    skills: Vec<SkillEntry>,
    #[serde(rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct GetResult {
    skill: SkillEntry,
}

impl Client {
    /// Whether the server declared the skills extension.
    pub fn offers_skills(&self) -> bool {
        self.server
            .capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(SKILLS))
    }

    /// A request of the skills extension: under 2026-07-28 declaring the
    /// extension in the request's client capabilities.
    async fn skills_request(&self, method: &str, params: &Map<String, Value>) -> Result<String> {
        self.require(
            self.offers_skills(),
            method,
            &format!("extensions.{SKILLS}"),
        )?;
        let raw = match &self.modern {
            Some(modern) => {
                modern
                    .call_declaring(
                        self.peer(),
                        &self.service,
                        method,
                        params,
                        RequestOptions::default(),
                        Some(SKILLS),
                    )
                    .await?
            }
            None => {
                self.peer()
                    .request_raw(method, params, RequestOptions::default())
                    .await?
            }
        };
        Ok(raw.get().to_string())
    }

    /// `skills/list`: one page (from `cursor`). Reads no skill file.
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<SkillsPage> {
        let mut params = Map::new();
        if let Some(cursor) = cursor {
            params.insert("cursor".into(), Value::String(cursor.into()));
        }
        let raw = self.skills_request(SKILLS_LIST, &params).await?;
        let result: ListResult = serde_json::from_str(&raw)
            .map_err(|e| Error::Protocol(format!("malformed `{SKILLS_LIST}` result: {e}")))?;
        Ok(SkillsPage {
            skills: result.skills,
            next_cursor: result.next_cursor,
        })
    }

    /// Every page of `skills/list` (a cursor seen twice ends the listing
    /// with an error). Reads no skill file.
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>> {
        let mut all = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = self.list_skills(cursor.as_deref()).await?;
            all.extend(page.skills);
            match page.next_cursor {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.clone()) {
                        return Err(Error::Protocol(format!(
                            "`{SKILLS_LIST}` repeated the cursor `{next}`"
                        )));
                    }
                    cursor = Some(next);
                }
                _ => return Ok(all),
            }
        }
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is at `uri`.
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry> {
        let mut params = Map::new();
        params.insert("uri".into(), Value::String(uri.into()));
        let raw = self.skills_request(SKILLS_GET, &params).await?;
        let result: GetResult = serde_json::from_str(&raw)
            .map_err(|e| Error::Protocol(format!("malformed `{SKILLS_GET}` result: {e}")))?;
        Ok(result.skill)
    }

    /// Loads the skill of `entry`: reads its `SKILL.md` and verifies it
    /// against the entry (size, digest, then the frontmatter field by
    /// field). Fails with [`Error::Skill`] on any mismatch, and the content
    /// is not returned. Reads no other file.
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill> {
        let bytes = self.read_bytes(&entry.uri).await?;
        let fail = |problem| Error::Skill {
            uri: entry.uri.clone(),
            problem,
        };
        let text = String::from_utf8(bytes).map_err(|_| {
            fail(SkillProblem::Frontmatter(
                "the SKILL.md read is not UTF-8".into(),
            ))
        })?;
        verify_skill_md(entry, &text).map_err(fail)?;
        Ok(LoadedSkill {
            entry: entry.clone(),
            skill_md: text,
        })
    }

    /// Reads the file of `entry`'s skill at `uri` and verifies it against
    /// the entry (listed, size, digest); fails with [`Error::Skill`] on any
    /// mismatch, and the content is not returned.
    pub async fn read_skill_file(&self, entry: &SkillEntry, uri: &str) -> Result<Vec<u8>> {
        let fail = |problem| Error::Skill {
            uri: entry.uri.clone(),
            problem,
        };
        if entry.file(uri).is_none()
            && matches!(entry.resources, crate::skills::SkillResources::Files(_))
        {
            return Err(fail(SkillProblem::NotListed(uri.to_string())));
        }
        let bytes = self.read_bytes(uri).await?;
        verify_file(entry, uri, &bytes).map_err(fail)?;
        Ok(bytes)
    }

    /// [`load_skill`](Self::load_skill) of the skill at `uri`, looked up
    /// first (`skills/get`): what a face without entry objects calls.
    pub async fn load_skill_at(&self, uri: &str) -> Result<LoadedSkill> {
        let entry = self.get_skill(uri).await?;
        self.load_skill(&entry).await
    }

    /// [`read_skill_file`](Self::read_skill_file) of `file_uri`, a file of
    /// the skill at `skill_uri`, looked up first (`skills/get`).
    pub async fn read_skill_file_at(&self, skill_uri: &str, file_uri: &str) -> Result<Vec<u8>> {
        let entry = self.get_skill(skill_uri).await?;
        self.read_skill_file(&entry, file_uri).await
    }

    /// The bytes `resources/read` gives for `uri` (text as UTF-8, a blob
    /// decoded).
    async fn read_bytes(&self, uri: &str) -> Result<Vec<u8>> {
        let result = self.read_resource(uri).await?;
        let content = result
            .contents
            .iter()
            .find(|c| content_uri(c) == uri)
            .or_else(|| result.contents.first());
        match content {
            Some(ReadResourceResultContentsItem::TextResourceContents(t)) => {
                Ok(t.text.clone().into_bytes())
            }
            Some(ReadResourceResultContentsItem::BlobResourceContents(b)) => {
                base64::engine::general_purpose::STANDARD
                    .decode(&b.blob)
                    .map_err(|e| Error::Protocol(format!("the blob of {uri} is not base64: {e}")))
            }
            None => Err(Error::Skill {
                uri: uri.to_string(),
                problem: SkillProblem::NoContent(uri.to_string()),
            }),
        }
    }
}

fn content_uri(content: &ReadResourceResultContentsItem) -> &str {
    match content {
        ReadResourceResultContentsItem::TextResourceContents(t) => &t.uri,
        ReadResourceResultContentsItem::BlobResourceContents(b) => &b.uri,
    }
}
