//! The per-method surface of every face, generated from the method table:
//! [`operations`] decides which client requests each face exposes and in
//! what shape; [`c`] writes the C exports, [`python`] the Python
//! extension's dispatcher and the package's `Client`/`SyncClient` methods.
//! Hand-written face code keeps only what is of its language (the shapes'
//! argument handling, ownership, exceptions).

mod c;
mod operations;
mod python;
mod text;

use serde_json::Value;

use crate::model::{self, UnionKind};
use crate::{Error, RevisionSchema, merge, normalize};

/// Every generated face file, as `(path relative to the root, contents)`.
pub(crate) fn generate(revisions: &[RevisionSchema<'_>]) -> Result<Vec<(String, String)>, Error> {
    let mut normalized = Vec::new();
    for rev in revisions.iter().filter(|r| r.types) {
        let raw: Value = serde_json::from_str(rev.json)?;
        normalized.push(normalize::apply_all(&raw)?);
    }
    let neutral = merge::neutral(&normalized.iter().collect::<Vec<_>>())?;
    let operations = operations::operations(&neutral, crate::methods::capability)?;
    let variants: Vec<(String, String)> = model::tagged_unions(&neutral)?
        .into_iter()
        .filter(|u| u.kind == UnionKind::Request && u.name == "ClientRequest")
        .flat_map(|u| u.variants.into_iter().map(|v| (v.name, v.tag_value)))
        .collect();
    Ok(vec![
        c::file(&operations),
        python::native(&operations, &variants),
        python::package(&operations),
    ])
}
