//! The everything server's skills (the skills extension): two fixture
//! skills compiled in from `skill-files/` (beside this file, so
//! that the published crate has them), or the skills of
//! a directory (`mcp serve everything --skills DIR`), with
//! `resources/directory/read` on.

use std::path::Path;

use mcp_core::skills::{Skill, SkillCatalog};

/// The fixture skills: each a path and its files.
const FIXTURES: &[(&str, &[(&str, &str)])] = &[
    (
        "pdf-processing",
        &[
            (
                "SKILL.md",
                include_str!("skill-files/pdf-processing/SKILL.md"),
            ),
            (
                "references/FORMS.md",
                include_str!("skill-files/pdf-processing/references/FORMS.md"),
            ),
        ],
    ),
    (
        "release-notes",
        &[
            (
                "SKILL.md",
                include_str!("skill-files/release-notes/SKILL.md"),
            ),
            (
                "templates/notes.md",
                include_str!("skill-files/release-notes/templates/notes.md"),
            ),
        ],
    ),
];

/// The fixture catalog.
pub fn fixture_skills() -> mcp_core::Result<SkillCatalog> {
    let mut catalog = SkillCatalog::new().directory_read(true);
    for (path, files) in FIXTURES {
        catalog.add(Skill::from_files(path, files.iter().copied())?)?;
    }
    Ok(catalog)
}

/// The skills of `dir`.
pub fn directory_skills(dir: &Path) -> mcp_core::Result<SkillCatalog> {
    Ok(SkillCatalog::load_dir(dir)?.directory_read(true))
}
