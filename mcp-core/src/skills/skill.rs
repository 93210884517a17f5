//! [`Skill`]: one skill a server serves, built from its files and checked
//! against the rules of the extension once, when it is built.

use std::fmt;
use std::sync::Arc;

use base64::Engine;
use serde_json::{Map, Value};

use super::frontmatter::{parse_frontmatter, validate};
use super::{
    DIRECTORY_MIME_TYPE, SCHEME, SKILL_LIMITS, SKILL_MD, SkillEntry, SkillFile, SkillProblem,
    SkillResources, digest,
};
use crate::schema::{ReadResourceResult, Resource};
use crate::{Error, Result};

/// One file of a skill, as served.
#[derive(Clone)]
pub(super) struct FileData {
    /// The path in the skill (`references/FORMS.md`).
    pub(super) path: String,
    pub(super) uri: String,
    pub(super) bytes: Arc<[u8]>,
    pub(super) mime_type: &'static str,
}

/// One skill: its `SKILL.md` and every other file, with the listing entry
/// worked out from them (digests and sizes). Cheap to clone.
///
/// ```
/// use mcp_core::skills::Skill;
///
/// let skill = Skill::from_files("pdf-processing", [
///     ("SKILL.md", b"---\nname: pdf-processing\ndescription: Fills PDF forms\n---\nUse forms.md.\n".to_vec()),
///     ("references/forms.md", b"How to fill forms.\n".to_vec()),
/// ])?;
/// assert_eq!(skill.entry().uri, "skill://pdf-processing/SKILL.md");
/// # Ok::<(), mcp_core::Error>(())
/// ```
#[derive(Clone)]
pub struct Skill {
    entry: Arc<SkillEntry>,
    /// `skill://<skill-path>`.
    root: Arc<str>,
    /// `SKILL.md` first, then by path.
    pub(super) files: Arc<[FileData]>,
}

impl fmt::Debug for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Skill")
            .field("uri", &self.entry.uri)
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

impl Skill {
    /// The skill at `skill_path` (its last segment being the skill's name,
    /// as in `pdf-processing` or `acme/pdf-processing`) made of `files`,
    /// each a path in the skill and its bytes; one must be `SKILL.md`.
    ///
    /// Fails with [`Error::Skill`] when the skill breaks a rule: a malformed
    /// or incomplete frontmatter, a name that breaks the naming rules or is
    /// not the last segment of the path, a reserved `metadata` key, a bad
    /// path, more than 512 files or 16 MiB.
    pub fn from_files<P, B>(
        skill_path: &str,
        files: impl IntoIterator<Item = (P, B)>,
    ) -> Result<Self>
    where
        P: AsRef<str>,
        B: Into<Vec<u8>>,
    {
        let root = format!("{SCHEME}://{}", check_skill_path(skill_path)?);
        let uri = format!("{root}/{SKILL_MD}");
        let fail = |problem| Error::Skill {
            uri: uri.clone(),
            problem,
        };
        let mut data = Vec::new();
        let mut total: u64 = 0;
        for (path, bytes) in files {
            let path = check_file_path(path.as_ref()).map_err(fail)?;
            let bytes: Vec<u8> = bytes.into();
            total = total.saturating_add(bytes.len() as u64);
            data.push(FileData {
                uri: format!("{root}/{}", encode_path(&path)),
                mime_type: mime_type(&path, &bytes),
                path,
                bytes: bytes.into(),
            });
        }
        if data.len() > SKILL_LIMITS.files_per_skill {
            return Err(fail(SkillProblem::TooManyFiles {
                count: data.len(),
                limit: SKILL_LIMITS.files_per_skill,
            }));
        }
        if total > SKILL_LIMITS.total_bytes {
            return Err(fail(SkillProblem::TooLarge {
                bytes: total,
                limit: SKILL_LIMITS.total_bytes,
            }));
        }
        data.sort_by(|a, b| (a.path != SKILL_MD, &a.path).cmp(&(b.path != SKILL_MD, &b.path)));
        if let Some(pair) = data.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(fail(SkillProblem::Path(format!(
                "`{}` is given twice",
                pair[0].path
            ))));
        }
        let Some(md) = data.first().filter(|f| f.path == SKILL_MD) else {
            return Err(fail(SkillProblem::Path("the skill has no SKILL.md".into())));
        };
        let text = std::str::from_utf8(&md.bytes)
            .map_err(|_| fail(SkillProblem::Frontmatter("SKILL.md is not UTF-8".into())))?;
        let (frontmatter, _) = parse_frontmatter(text).map_err(fail)?;
        let name = validate(&frontmatter).map_err(fail)?;
        let segment = skill_path.rsplit('/').next().unwrap_or_default();
        if name != segment {
            return Err(fail(SkillProblem::NameMismatch {
                name: name.to_string(),
                segment: segment.to_string(),
            }));
        }
        let resources = data
            .iter()
            .map(|f| SkillFile::new(f.uri.clone(), digest(&f.bytes), f.bytes.len() as u64))
            .collect();
        Ok(Self {
            entry: Arc::new(SkillEntry::new(
                uri,
                frontmatter,
                SkillResources::Files(resources),
            )),
            root: root.into(),
            files: data.into(),
        })
    }

    /// A skill of one file: a `SKILL.md` with `name` and `description` in
    /// its frontmatter and `body` after it, served at `skill://<name>/`.
    pub fn new(name: &str, description: &str, body: &str) -> Result<Self> {
        let mut frontmatter = Map::new();
        frontmatter.insert("name".into(), Value::String(name.into()));
        frontmatter.insert("description".into(), Value::String(description.into()));
        let yaml = serde_norway::to_string(&frontmatter).map_err(|e| Error::Skill {
            uri: format!("{SCHEME}://{name}/{SKILL_MD}"),
            problem: SkillProblem::Frontmatter(e.to_string()),
        })?;
        let text = format!("---\n{yaml}---\n{body}");
        Self::from_files(name, [(SKILL_MD, text.into_bytes())])
    }

    /// The skill's listing entry.
    pub fn entry(&self) -> &SkillEntry {
        &self.entry
    }

    /// The skill's name.
    pub fn name(&self) -> &str {
        self.entry.name().unwrap_or_default()
    }

    /// `skill://<skill-path>`: the skill's folder.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// The `SKILL.md` as a resource of `resources/list`: named and
    /// described by its frontmatter, `text/markdown`.
    pub(crate) fn manifest_resource(&self) -> Resource {
        Resource {
            description: self.entry.description().map(str::to_owned),
            mime_type: Some("text/markdown".into()),
            size: self.files.first().map(|f| f.bytes.len() as i64),
            ..Resource::new(self.name(), self.entry.uri.clone())
        }
    }

    /// The file at `uri`, read.
    pub(crate) fn read(&self, uri: &str) -> Option<ReadResourceResult> {
        let file = self.files.iter().find(|f| f.uri == uri)?;
        let mime = Some(file.mime_type.to_string());
        Some(match std::str::from_utf8(&file.bytes) {
            Ok(text) => ReadResourceResult::text(uri, mime, text),
            Err(_) => ReadResourceResult::blob(
                uri,
                mime,
                base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            ),
        })
    }

    /// The direct children of the folder at `uri` (the skill's root or a
    /// folder in it), files and folders, or `None` if `uri` is no folder of
    /// this skill.
    pub(crate) fn children(&self, uri: &str) -> Option<Vec<Resource>> {
        let prefix = if uri == &*self.root {
            String::new()
        } else {
            let rest = uri.strip_prefix(&*self.root)?.strip_prefix('/')?;
            format!("{}/", rest.trim_end_matches('/'))
        };
        let mut children: Vec<Resource> = Vec::new();
        let mut found = false;
        for file in self.files.iter() {
            // Compared as written in URIs (segments percent-encoded).
            let encoded = encode_path(&file.path);
            let Some(rest) = encoded.strip_prefix(&prefix) else {
                continue;
            };
            found = true;
            match rest.split_once('/') {
                None => {
                    let name = file.path.rsplit('/').next().unwrap_or(&file.path);
                    children.push(Resource {
                        mime_type: Some(file.mime_type.to_string()),
                        size: Some(file.bytes.len() as i64),
                        ..Resource::new(name, file.uri.clone())
                    });
                }
                Some((dir, _)) => {
                    let dir_uri = format!("{}/{prefix}{dir}", self.root);
                    if !children.iter().any(|c| c.uri == dir_uri) {
                        children.push(Resource {
                            mime_type: Some(DIRECTORY_MIME_TYPE.into()),
                            ..Resource::new(dir, dir_uri)
                        });
                    }
                }
            }
        }
        found.then_some(children)
    }
}

/// A skill path: segments of unreserved URI characters, the first a valid
/// authority.
fn check_skill_path(path: &str) -> Result<&str> {
    let bad = |why: String| Error::Skill {
        uri: format!("{SCHEME}://{path}/{SKILL_MD}"),
        problem: SkillProblem::Path(why),
    };
    if path.is_empty() {
        return Err(bad("the skill path is empty".into()));
    }
    for segment in path.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(bad(format!("`{path}` has an empty, `.` or `..` segment")));
        }
        if !segment.bytes().all(unreserved) {
            return Err(bad(format!(
                "segment `{segment}` may only have letters, digits, `-`, `.`, `_` and `~`"
            )));
        }
    }
    Ok(path)
}

/// A file's path in its skill, `/`-separated, with no empty, `.` or `..`
/// segment.
fn check_file_path(path: &str) -> Result<String, SkillProblem> {
    let path = path.replace('\\', "/");
    if path.is_empty()
        || path.starts_with('/')
        || path
            .split('/')
            .any(|s| s.is_empty() || s == "." || s == "..")
    {
        return Err(SkillProblem::Path(format!(
            "`{path}` is not a relative path inside the skill"
        )));
    }
    Ok(path)
}

fn unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

/// A path with each segment percent-encoded.
fn encode_path(path: &str) -> String {
    path.split('/').map(encode).collect::<Vec<_>>().join("/")
}

fn encode(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        if unreserved(b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The MIME type a file is served with, by its extension (text that is
/// not known is `text/plain`, anything else `application/octet-stream`).
fn mime_type(path: &str, bytes: &[u8]) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "py" => "text/x-python",
        "sh" => "text/x-shellscript",
        "js" | "mjs" => "text/javascript",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        _ if std::str::from_utf8(bytes).is_ok() => "text/plain",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &[u8] = b"---\nname: pdf\ndescription: Reads PDFs\n---\nBody\n";

    fn problem(r: Result<Skill>) -> SkillProblem {
        match r {
            Err(Error::Skill { problem, .. }) => problem,
            other => panic!("expected a skill error, got {other:?}"),
        }
    }

    #[test]
    fn a_skill_lists_every_file_with_digest_and_size() {
        let skill = Skill::from_files(
            "acme/pdf",
            [
                ("scripts/run me.sh", b"echo hi\n".to_vec()),
                ("SKILL.md", MD.to_vec()),
            ],
        )
        .unwrap();
        assert_eq!(skill.entry().uri, "skill://acme/pdf/SKILL.md");
        let SkillResources::Files(files) = &skill.entry().resources else {
            panic!("a manifest")
        };
        assert_eq!(files[0].uri, skill.entry().uri);
        assert_eq!(files[0].size, MD.len() as u64);
        assert_eq!(files[1].uri, "skill://acme/pdf/scripts/run%20me.sh");
        assert!(skill.read(&files[1].uri).is_some());
        let root = skill.children("skill://acme/pdf").unwrap();
        assert_eq!(root.len(), 2);
        assert_eq!(root[1].mime_type.as_deref(), Some(DIRECTORY_MIME_TYPE));
        assert_eq!(root[1].uri, "skill://acme/pdf/scripts");
        assert_eq!(skill.children("skill://acme/pdf/scripts").unwrap().len(), 1);
        let spaced =
            Skill::from_files("pdf", [("SKILL.md", MD), ("my refs/a b.md", b"x")]).unwrap();
        let root = spaced.children("skill://pdf").unwrap();
        assert_eq!(root[1].uri, "skill://pdf/my%20refs");
        let inner = spaced.children(&root[1].uri).unwrap();
        assert_eq!(inner[0].uri, "skill://pdf/my%20refs/a%20b.md");
        assert_eq!(inner[0].name, "a b.md");
        assert!(skill.children(&files[0].uri).is_none());
    }

    #[test]
    fn bad_skills_are_refused_with_a_clear_problem() {
        assert!(matches!(
            problem(Skill::from_files("other", [("SKILL.md", MD)])),
            SkillProblem::NameMismatch { .. }
        ));
        assert!(matches!(
            problem(Skill::from_files("pdf", [("README.md", MD)])),
            SkillProblem::Path(_)
        ));
        assert!(matches!(
            problem(Skill::from_files("pdf", [("SKILL.md", MD), ("../x", MD)])),
            SkillProblem::Path(_)
        ));
        assert!(matches!(
            problem(Skill::from_files(
                "pdf",
                [("SKILL.md", &b"no frontmatter"[..])]
            )),
            SkillProblem::Frontmatter(_)
        ));
        let many = (0..=SKILL_LIMITS.files_per_skill).map(|i| (format!("f{i}"), Vec::new()));
        let many = many.chain([("SKILL.md".to_string(), MD.to_vec())]);
        assert!(matches!(
            problem(Skill::from_files("pdf", many)),
            SkillProblem::TooManyFiles { .. }
        ));
        let big = vec![b'x'; SKILL_LIMITS.total_bytes as usize];
        assert!(matches!(
            problem(Skill::from_files(
                "pdf",
                [("SKILL.md", MD.to_vec()), ("big", big)]
            )),
            SkillProblem::TooLarge { .. }
        ));
        assert!(Skill::from_files("p df", [("SKILL.md", MD)]).is_err());
    }

    #[test]
    fn a_skill_in_memory() {
        let skill = Skill::new("notes", "Takes: notes", "Write it down.\n").unwrap();
        assert_eq!(skill.entry().description(), Some("Takes: notes"));
        assert!(Skill::new("Bad Name", "d", "").is_err());
    }
}
