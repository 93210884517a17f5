//! Checking what a client read against the entry it was listed with: every
//! listed file by size and digest, a `SKILL.md` also by its frontmatter,
//! field by field. Content that fails is not to be used.

use serde_json::Value;

use super::{SkillEntry, SkillProblem, SkillResources, digest, parse_frontmatter};

/// Checks `bytes`, read from `uri`, against `entry`: the file must be
/// listed, with this many bytes and this digest (the size first, so a
/// file of the wrong length fails without being hashed). An entry whose
/// resources are `"dynamic"` lists no digests: nothing to check.
pub fn verify_file(entry: &SkillEntry, uri: &str, bytes: &[u8]) -> Result<(), SkillProblem> {
    let file = match &entry.resources {
        SkillResources::Files(files) => files
            .iter()
            .find(|f| f.uri == uri)
            .ok_or_else(|| SkillProblem::NotListed(uri.to_string()))?,
        SkillResources::Dynamic(_) => return Ok(()),
    };
    let size = bytes.len() as u64;
    if size != file.size {
        return Err(SkillProblem::SizeMismatch {
            uri: uri.to_string(),
            expected: file.size,
            actual: size,
        });
    }
    let actual = digest(bytes);
    if actual != file.digest {
        return Err(SkillProblem::DigestMismatch {
            uri: uri.to_string(),
            expected: file.digest.clone(),
            actual,
        });
    }
    Ok(())
}

/// Checks the text of the skill's `SKILL.md` against `entry`: as a file
/// ([`verify_file`]), then its frontmatter against the entry's, every field
/// of either (a field one side lacks counts as `null`).
pub fn verify_skill_md(entry: &SkillEntry, text: &str) -> Result<(), SkillProblem> {
    verify_file(entry, &entry.uri, text.as_bytes())?;
    let (read, _) = parse_frontmatter(text)?;
    let listed = &entry.frontmatter;
    let differs = read
        .keys()
        .chain(listed.keys())
        .find(|k| read.get(*k).unwrap_or(&Value::Null) != listed.get(*k).unwrap_or(&Value::Null));
    match differs {
        Some(field) => Err(SkillProblem::FrontmatterMismatch {
            field: field.clone(),
        }),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skills::SkillFile;
    use serde_json::json;

    const MD: &str = "---\nname: pdf\ndescription: Reads PDFs\n---\nBody\n";

    fn entry(md: &str) -> SkillEntry {
        SkillEntry::new(
            "skill://pdf/SKILL.md".into(),
            json!({"name": "pdf", "description": "Reads PDFs"})
                .as_object()
                .cloned()
                .unwrap_or_default(),
            SkillResources::Files(vec![SkillFile::new(
                "skill://pdf/SKILL.md".into(),
                digest(md.as_bytes()),
                md.len() as u64,
            )]),
        )
    }

    #[test]
    fn a_faithful_skill_md_passes() {
        assert_eq!(verify_skill_md(&entry(MD), MD), Ok(()));
    }

    #[test]
    fn tampering_is_caught_by_size_digest_or_frontmatter() {
        let e = entry(MD);
        let longer = format!("{MD}more");
        assert!(matches!(
            verify_skill_md(&e, &longer),
            Err(SkillProblem::SizeMismatch { expected, actual, .. }) if actual == expected + 4
        ));
        let same_length = MD.replace("Body", "Evil");
        assert!(matches!(
            verify_skill_md(&e, &same_length),
            Err(SkillProblem::DigestMismatch { .. })
        ));
        // Digest and size agree with the tampered file, the frontmatter not.
        let other = MD.replace("Reads PDFs", "Steals keys");
        let e = SkillEntry {
            frontmatter: entry(MD).frontmatter,
            ..entry(&other)
        };
        assert_eq!(
            verify_skill_md(&e, &other),
            Err(SkillProblem::FrontmatterMismatch {
                field: "description".into()
            })
        );
        assert!(matches!(
            verify_file(&e, "skill://pdf/other.md", b""),
            Err(SkillProblem::NotListed(_))
        ));
        assert!(SkillProblem::NotListed(String::new()).is_verification_failure());
    }
}
