//! Loading a [`SkillCatalog`] from a directory of skill folders: every
//! folder with a `SKILL.md` is a skill, at the folder's path from the
//! directory (so its name is the folder's name), with every file under it.

use std::path::{Path, PathBuf};

use super::{SKILL_LIMITS, SKILL_MD, Skill, SkillCatalog, SkillProblem};
use crate::{Error, Result};

impl SkillCatalog {
    /// The skills under `dir`: each folder holding a `SKILL.md` (at any
    /// depth; folders in a skill belong to it) is a skill whose path is the
    /// folder's path from `dir`. Symbolic links and hidden entries (`.`
    /// first) are skipped. Fails on the first skill that breaks a rule
    /// (see [`Skill::from_files`]), or on a file or folder that cannot be
    /// read ([`Error::InvalidArgument`] naming it).
    pub fn load_dir(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        if !dir.is_dir() {
            return Err(Error::InvalidArgument(format!(
                "the skills directory {} is not a readable directory",
                dir.display()
            )));
        }
        let mut catalog = Self::new();
        let mut pending = vec![dir.to_path_buf()];
        while let Some(folder) = pending.pop() {
            if folder.join(SKILL_MD).is_file() {
                let path = relative(dir, &folder)?;
                catalog.add(load_skill(&folder, &path)?)?;
                continue;
            }
            let mut subfolders = Vec::new();
            for entry in read_dir(&folder)? {
                if entry.1.is_dir() {
                    subfolders.push(entry.0);
                }
            }
            subfolders.sort();
            pending.extend(subfolders.into_iter().rev());
        }
        Ok(catalog)
    }
}

/// The visible entries of `folder` (no symbolic links): path and type.
fn read_dir(folder: &Path) -> Result<Vec<(PathBuf, std::fs::FileType)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(unreadable(folder))? {
        let entry = entry.map_err(unreadable(folder))?;
        let kind = entry.file_type().map_err(unreadable(&entry.path()))?;
        if kind.is_symlink() || entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        out.push((entry.path(), kind));
    }
    Ok(out)
}

/// The error of a file or folder that cannot be read, naming it.
fn unreadable(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |e| Error::InvalidArgument(format!("cannot read {}: {e}", path.display()))
}

/// `folder`'s path from `dir`, `/`-separated.
fn relative(dir: &Path, folder: &Path) -> Result<String> {
    let rel = folder.strip_prefix(dir).unwrap_or(folder);
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    match parts {
        Some(parts) if !parts.is_empty() => Ok(parts.join("/")),
        _ => Err(Error::Skill {
            uri: folder.display().to_string(),
            problem: SkillProblem::Path(
                "a skill folder needs a UTF-8 name under the skills directory".into(),
            ),
        }),
    }
}

/// The skill in `folder`, with every file under it.
fn load_skill(folder: &Path, path: &str) -> Result<Skill> {
    let mut files = Vec::new();
    let mut total: u64 = 0;
    let mut pending = vec![folder.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for (entry, kind) in read_dir(&dir)? {
            if kind.is_dir() {
                pending.push(entry);
                continue;
            }
            let too_many = files.len() >= SKILL_LIMITS.files_per_skill;
            total = total.saturating_add(entry.metadata().map_err(unreadable(&entry))?.len());
            if too_many || total > SKILL_LIMITS.total_bytes {
                // Refused before reading more of an oversized skill.
                let problem = if too_many {
                    SkillProblem::TooManyFiles {
                        count: files.len() + 1,
                        limit: SKILL_LIMITS.files_per_skill,
                    }
                } else {
                    SkillProblem::TooLarge {
                        bytes: total,
                        limit: SKILL_LIMITS.total_bytes,
                    }
                };
                return Err(Error::Skill {
                    uri: format!("{}://{path}/{SKILL_MD}", super::SCHEME),
                    problem,
                });
            }
            let rel = relative(folder, &entry)?;
            files.push((rel, std::fs::read(&entry).map_err(unreadable(&entry))?));
        }
    }
    Skill::from_files(path, files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_nested_skill_folders_and_refuses_bad_ones() {
        let dir = std::env::temp_dir().join(format!("mcp-skills-load-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let write = |rel: &str, text: &str| {
            let p = dir.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("a/SKILL.md", "---\nname: a\ndescription: A\n---\n");
        write("a/refs/x.md", "x");
        write("group/b/SKILL.md", "---\nname: b\ndescription: B\n---\n");
        write(".hidden/SKILL.md", "broken");
        let catalog = SkillCatalog::load_dir(&dir).unwrap();
        let uris: Vec<_> = catalog.skills().map(|s| s.entry().uri.clone()).collect();
        assert_eq!(uris, ["skill://a/SKILL.md", "skill://group/b/SKILL.md"]);
        assert!(catalog.skill_of_file("skill://a/refs/x.md").is_some());
        write("c/SKILL.md", "---\nname: not-c\ndescription: C\n---\n");
        let err = SkillCatalog::load_dir(&dir).unwrap_err();
        assert!(err.to_string().contains("not-c"), "{err}");
        assert_eq!(err.kind(), crate::ErrorKind::InvalidArgument);
        std::fs::remove_dir_all(&dir).unwrap();
        let err = SkillCatalog::load_dir(&dir).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::InvalidArgument);
        assert!(
            err.to_string().contains(&dir.display().to_string()),
            "{err}"
        );
    }
}
