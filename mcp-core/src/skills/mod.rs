//! The skills extension (SEP-2640, [`SKILLS`]):
//! a server serves skills — folders of files whose root is a `SKILL.md` with
//! YAML frontmatter — listed by `skills/list`, one looked up by
//! `skills/get`, their files read with `resources/read` (and, with
//! `directoryRead`, their folders with `resources/directory/read`).
//!
//! A listing entry ([`SkillEntry`]) carries the skill's URI
//! (`skill://<skill-path>/SKILL.md`, the last segment of the path being the
//! skill's name), its frontmatter as JSON, and the URI, SHA-256 digest and
//! size of every file. A client fetches files only when it loads a skill,
//! and checks each against its entry ([`verify_file`],
//! [`verify_skill_md`]) before using it.
//!
//! The server side: [`Skill`] (one skill, validated, from files in memory),
//! [`SkillCatalog`] (the skills a server serves, built in memory or
//! [loaded from a directory](SkillCatalog::load_dir)), given to a
//! [`Server`](crate::server::Server) with
//! [`ServerBuilder::skills`](crate::server::ServerBuilder::skills) or
//! [`Server::set_skills`](crate::server::Server::set_skills).

mod digest;
mod entry;
mod frontmatter;
mod problem;
mod verify;

#[cfg(feature = "server")]
mod catalog;
#[cfg(feature = "server")]
mod load;
#[cfg(feature = "server")]
pub(crate) mod serve;
#[cfg(feature = "server")]
mod skill;

pub use digest::digest;
pub use entry::{SkillEntry, SkillFile, SkillResources};
pub use frontmatter::{parse_frontmatter, validate_name};
pub use problem::SkillProblem;
pub use verify::{verify_file, verify_skill_md};

#[cfg(feature = "server")]
pub use catalog::SkillCatalog;
#[cfg(feature = "server")]
pub use skill::Skill;

/// The file at the root of every skill.
pub const SKILL_MD: &str = "SKILL.md";

/// The URI scheme servers should use for skills.
pub const SCHEME: &str = "skill";

pub use crate::extensions::{DIRECTORY_READ, SKILLS, SKILLS_GET, SKILLS_LIST};

/// The MIME type of a directory in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// The limits of the extension and of the Agent Skills specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SkillLimits {
    /// Characters of a name (1 to 64).
    pub name_chars: usize,
    /// Characters of a description (1 to 1024).
    pub description_chars: usize,
    /// Files of one skill, `SKILL.md` included.
    pub files_per_skill: usize,
    /// Bytes of one skill, summed over its files.
    pub total_bytes: u64,
}

/// The limits servers keep to (SEP-2640: 512 files and 16 MiB a skill; the
/// Agent Skills specification: names of 64 characters, descriptions of
/// 1024).
pub const SKILL_LIMITS: SkillLimits = SkillLimits {
    name_chars: 64,
    description_chars: 1024,
    files_per_skill: 512,
    total_bytes: 16 * 1024 * 1024,
};

/// The directory part of a skill URI (`skill://a/b/SKILL.md` →
/// `skill://a/b`), if it names a `SKILL.md` under at least one segment.
pub fn skill_root(uri: &str) -> Option<&str> {
    let root = uri.strip_suffix(SKILL_MD)?.strip_suffix('/')?;
    let (_, path) = root.split_once("://")?;
    (!path.is_empty()).then_some(root)
}

/// The skill name a skill URI ends with (`skill://a/pdf/SKILL.md` → `pdf`).
pub fn name_of(uri: &str) -> Option<&str> {
    let root = skill_root(uri)?;
    let (_, path) = root.split_once("://")?;
    path.rsplit('/').find(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_and_names_of_skill_uris() {
        assert_eq!(skill_root("skill://pdf/SKILL.md"), Some("skill://pdf"));
        assert_eq!(name_of("skill://acme/pdf/SKILL.md"), Some("pdf"));
        assert_eq!(skill_root("skill://SKILL.md"), None);
        assert_eq!(skill_root("skill://pdf/README.md"), None);
        assert_eq!(name_of("nonsense"), None);
    }
}
