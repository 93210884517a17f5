//! What can be wrong with a skill: on the server, a skill that breaks the
//! rules of the extension when it is built or loaded; on the client, a file
//! that does not match the entry it was listed with.

use std::fmt;

use crate::ErrorKind;

/// Why a skill was refused, carried by [`Error::Skill`](crate::Error::Skill).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SkillProblem {
    /// `SKILL.md` has no leading `---` block of YAML, the YAML does not
    /// parse, or it is not a mapping.
    Frontmatter(String),
    /// The name breaks the naming rules (1–64 characters, lowercase letters,
    /// digits and single inner hyphens).
    Name(String),
    /// The description is missing, empty or too long.
    Description(String),
    /// The last segment of the skill's path is not its name.
    NameMismatch {
        /// The frontmatter's `name`.
        name: String,
        /// The last segment of the skill's path.
        segment: String,
    },
    /// A `metadata` key under the prefix the extension reserves
    /// (`io.modelcontextprotocol/`).
    ReservedMetadata(String),
    /// More files than a skill may have.
    TooManyFiles {
        /// Files found.
        count: usize,
        /// At most.
        limit: usize,
    },
    /// More bytes than a skill may have.
    TooLarge {
        /// Bytes found.
        bytes: u64,
        /// At most.
        limit: u64,
    },
    /// A path that cannot be a file of a skill (empty, absolute, `..`, not
    /// UTF-8) or a skill path that is not a valid URI path.
    Path(String),
    /// A skill with this URI is already in the catalog.
    Duplicate,
    /// The bytes read are not those the entry's digest names.
    DigestMismatch {
        /// The file.
        uri: String,
        /// The entry's digest.
        expected: String,
        /// The digest of what was read.
        actual: String,
    },
    /// The bytes read are not as many as the entry's size says.
    SizeMismatch {
        /// The file.
        uri: String,
        /// The entry's size.
        expected: u64,
        /// Bytes read.
        actual: u64,
    },
    /// The frontmatter of the `SKILL.md` read differs from the entry's.
    FrontmatterMismatch {
        /// The first field that differs.
        field: String,
    },
    /// The file is not in the entry's list of files (or the entry lists
    /// none).
    NotListed(String),
    /// `resources/read` gave no content for the file.
    NoContent(String),
}

impl SkillProblem {
    /// What kind of failure this is: a file that fails verification is the
    /// server's fault (`Protocol`); a skill that breaks the rules as given
    /// to the library is the caller's (`InvalidArgument`).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Self::DigestMismatch { .. }
            | Self::SizeMismatch { .. }
            | Self::FrontmatterMismatch { .. }
            | Self::NotListed(_)
            | Self::NoContent(_) => ErrorKind::Protocol,
            _ => ErrorKind::InvalidArgument,
        }
    }

    /// Whether a read file failed verification against its entry.
    pub fn is_verification_failure(&self) -> bool {
        self.kind() == ErrorKind::Protocol
    }
}

impl fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Frontmatter(why) => write!(f, "malformed SKILL.md frontmatter: {why}"),
            Self::Name(why) => write!(f, "invalid name: {why}"),
            Self::Description(why) => write!(f, "invalid description: {why}"),
            Self::NameMismatch { name, segment } => write!(
                f,
                "the last segment of the skill path (`{segment}`) is not its name (`{name}`)"
            ),
            Self::ReservedMetadata(key) => write!(
                f,
                "frontmatter metadata key `{key}` is under the reserved prefix \
                 `io.modelcontextprotocol/`"
            ),
            Self::TooManyFiles { count, limit } => {
                write!(f, "{count} files, more than the {limit} a skill may have")
            }
            Self::TooLarge { bytes, limit } => {
                write!(f, "{bytes} bytes, more than the {limit} a skill may have")
            }
            Self::Path(why) => write!(f, "invalid path: {why}"),
            Self::Duplicate => write!(f, "a skill with this URI is already in the catalog"),
            Self::DigestMismatch {
                uri,
                expected,
                actual,
            } => write!(
                f,
                "digest mismatch for {uri}: the entry says {expected}, the content is {actual}"
            ),
            Self::SizeMismatch {
                uri,
                expected,
                actual,
            } => write!(
                f,
                "size mismatch for {uri}: the entry says {expected} bytes, the content has {actual}"
            ),
            Self::FrontmatterMismatch { field } => write!(
                f,
                "the SKILL.md frontmatter differs from the listed entry in `{field}`"
            ),
            Self::NotListed(uri) => write!(f, "{uri} is not a listed file of the skill"),
            Self::NoContent(uri) => write!(f, "resources/read gave no content for {uri}"),
        }
    }
}
