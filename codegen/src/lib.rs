//! The build step that turns the vendored MCP JSON schema into `mcp-core`'s
//! protocol types.
//!
//! Pipeline, per revision: schema JSON → [`normalize`] (the schema's own
//! defects fixed, each named) → the method table reads it. The revisions
//! with types are then [`merge`]d into the version-neutral schema, and each of
//! those schemas (every revision's, and the neutral one) goes through
//! [`patches`] (typify workarounds, in memory, each with its reason) → typify
//! `TypeSpace` → [`postprocess`] (AST rewrites) → plus our own items for what
//! typify cannot express (method table, constant types, tagged unions, result
//! enums) → prettyplease → one checked-in file per module.

mod c_methods;
mod catch_all;
mod consts;
mod faces;
pub mod merge;
mod methods;
mod model;
mod names;
pub mod normalize;
pub mod patches;
mod postprocess;
mod python;
mod serde_impls;
mod unions;

use std::collections::BTreeMap;

use proc_macro2::TokenStream;

use serde_json::Value;
use typify::{TypeSpace, TypeSpaceImpl, TypeSpacePatch, TypeSpaceSettings};

use crate::names::rust_type;
use crate::patches::{ANY_SCHEMA_DEF, NUMBER_DEF, OBJECT_SCHEMA_DEF};

/// Everything that can go wrong while generating.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema does not have the shape the generator relies on.
    #[error("schema: {0}")]
    Schema(String),
    /// The schema is not valid JSON, or not a valid JSON Schema document.
    #[error("schema JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// typify refused the schema.
    #[error("typify: {0}")]
    Typify(#[from] typify::Error),
    /// typify's output did not parse as Rust.
    #[error("generated tokens do not parse: {0}")]
    Syn(#[from] syn::Error),
}

/// `(revision, schema, whether its types are generated)`, oldest first,
/// relative to the workspace root. The older revisions feed only the method
/// table (which methods exist in which revision).
pub const REVISIONS: &[(&str, &str, bool)] = &[
    ("2024-11-05", "schema/2024-11-05/schema.json", false),
    ("2025-03-26", "schema/2025-03-26/schema.json", false),
    ("2025-06-18", "schema/2025-06-18/schema.json", false),
    ("2025-11-25", "schema/2025-11-25/schema.json", true),
    ("2026-07-28", "schema/2026-07-28/schema.json", true),
];

/// Where the generated Rust modules go: `<dir>/<module name>.rs`.
pub const RUST_OUTPUT_DIR: &str = "mcp-core/src/schema";

/// Every generated file of the workspace rooted at `root`, as
/// `(path relative to root, contents)`: what `cargo run -p codegen` writes
/// and `--check` compares.
pub fn generate_workspace(root: &std::path::Path) -> Result<Vec<(String, String)>, String> {
    let mut texts = Vec::new();
    for (_, schema, _) in REVISIONS {
        let path = root.join(schema);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        texts.push(text);
    }
    let revisions = revision_schemas(&texts);
    let modules = generate_all(&revisions).map_err(|e| e.to_string())?;
    let mut files: Vec<(String, String)> = modules
        .into_iter()
        .map(|m| (format!("{RUST_OUTPUT_DIR}/{}.rs", m.name), m.code))
        .collect();
    files.push(c_methods::file(&revisions).map_err(|e| e.to_string())?);
    files.extend(python::generate(&revisions).map_err(|e| e.to_string())?);
    files.extend(faces::generate(&revisions).map_err(|e| e.to_string())?);
    Ok(files)
}

/// [`REVISIONS`] with their schema files' texts (in the same order).
pub(crate) fn revision_schemas(texts: &[String]) -> Vec<RevisionSchema<'_>> {
    REVISIONS
        .iter()
        .zip(texts)
        .map(|((version, source, types), json)| RevisionSchema {
            version,
            json,
            source,
            types: *types,
        })
        .collect()
}

/// One protocol revision's schema, as read from `schema/`.
#[derive(Debug)]
pub struct RevisionSchema<'a> {
    /// The revision, e.g. `2026-07-28`.
    pub version: &'a str,
    /// The schema file's text.
    pub json: &'a str,
    /// The file's path, named in `@generated` headers.
    pub source: &'a str,
    /// Whether its types are generated (a module of its own, and part of
    /// the neutral module); otherwise it only feeds the method table.
    pub types: bool,
}

/// A generated module: its name under `mcp_core::schema` and its text.
#[derive(Debug)]
pub struct Module {
    /// `neutral`, or the revision's module name (`v2026_07_28`).
    pub name: String,
    /// The Rust source.
    pub code: String,
}

/// Generates every protocol module from the revisions' schemas (oldest
/// first): one exact module per revision with `types`, and the neutral
/// module merged from them, which also holds the method table and
/// [`ProtocolVersion`](revisions) list of every revision given.
pub fn generate_all(revisions: &[RevisionSchema<'_>]) -> Result<Vec<Module>, Error> {
    let mut with_types = Vec::new();
    let mut table = methods::Table::default();
    for rev in revisions {
        let raw: Value = serde_json::from_str(rev.json)?;
        if rev.types {
            let normalized = normalize::apply_all(&raw)?;
            table.add_revision(rev.version, &normalized)?;
            with_types.push((rev, normalized));
        } else {
            table.add_revision(rev.version, &raw)?;
        }
    }
    let normalized: Vec<&Value> = with_types.iter().map(|(_, v)| v).collect();
    let neutral = merge::neutral(&normalized)?;
    let sources: Vec<&str> = with_types.iter().map(|(r, _)| r.source).collect();

    let mut modules = Vec::new();
    let mut extra = table.emit(&neutral)?;
    extra.extend(methods::revision_enum(revisions.iter().map(|r| r.version)));
    let read_elsewhere = request_meta_keys(&neutral)?;
    modules.push(Module {
        name: "neutral".into(),
        code: module(
            &neutral,
            &sources.join(" + "),
            Methods::Own,
            extra,
            &read_elsewhere,
        )?,
    });
    for (rev, normalized) in &with_types {
        modules.push(Module {
            name: format!("v{}", rev.version.replace('-', "_")),
            code: module(
                normalized,
                rev.source,
                Methods::Shared,
                TokenStream::new(),
                &BTreeMap::new(),
            )?,
        });
    }
    Ok(modules)
}

/// Generates one self-contained module for `schema_json` (fixed and
/// patched as the protocol modules are); `source` names the schema file in
/// the `@generated` header. Used for the fixture schemas of the tests.
pub fn generate(schema_json: &str, source: &str) -> Result<String, Error> {
    let original: Value = serde_json::from_str(schema_json)?;
    let normalized = normalize::apply_all(&original)?;
    module(
        &normalized,
        source,
        Methods::Own,
        TokenStream::new(),
        &BTreeMap::new(),
    )
}

/// The def that declares the `_meta` keys of a request (2026-07-28).
const REQUEST_META_DEF: &str = "RequestMetaObject";

/// The neutral `_meta` structs of requests, each with the keys of
/// [`REQUEST_META_DEF`] that have no field of their own. A server serving a
/// 2026-07-28 request reads those per request (protocol revision, client
/// capabilities, client info, log level) before it decodes the params, and
/// hands them to handlers typed; it decodes the params inside the generated
/// `with_request_meta_taken`, so that they do not keep a second, untyped
/// copy in `extra` (building it cost more than the rest of a `tools/call`'s
/// params). Any other decode keeps every key: the neutral types still read
/// and write every message losslessly. A request `_meta` is a `_meta`
/// property that declares `progressToken`; its struct is named
/// `{Def}Meta`. None when no revision declares the def.
fn request_meta_keys(neutral: &Value) -> Result<BTreeMap<String, Vec<String>>, Error> {
    let mut out = BTreeMap::new();
    let Some(defs) = names::defs(neutral) else {
        return Ok(out);
    };
    let Some(declared) = defs
        .get(REQUEST_META_DEF)
        .and_then(|d| d.get("properties"))
        .and_then(Value::as_object)
    else {
        return Ok(out);
    };
    for (name, def) in defs {
        let Some(meta) = def
            .get("properties")
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("properties"))
            .and_then(Value::as_object)
        else {
            continue;
        };
        if !meta.contains_key("progressToken") {
            continue;
        }
        let keys: Vec<String> = declared
            .keys()
            .filter(|k| !meta.contains_key(k.as_str()))
            .cloned()
            .collect();
        if keys.is_empty() {
            return Err(Error::Schema(format!(
                "`{name}._meta` declares every key of `{REQUEST_META_DEF}`"
            )));
        }
        out.insert(format!("{}Meta", rust_type(name)), keys);
    }
    Ok(out)
}

/// Where a module's method-name constants live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Methods {
    /// It declares `mod methods` itself.
    Own,
    /// It uses the neutral module's (`super::methods`), a superset.
    Shared,
}

fn module(
    normalized: &Value,
    source: &str,
    methods_at: Methods,
    extra: TokenStream,
    read_elsewhere: &BTreeMap<String, Vec<String>>,
) -> Result<String, Error> {
    let unions = model::tagged_unions(normalized)?;
    let result_unions = model::result_unions(normalized);
    let (patched, synthesized) = patches::apply_all(normalized)?;

    let mut settings = TypeSpaceSettings::default();
    settings.with_derive("PartialEq".to_string());
    // Keeps key order of schema-typed maps (e.g. `experimental` capabilities).
    settings.with_map_type("::indexmap::IndexMap");
    let none = || std::iter::empty::<TypeSpaceImpl>();
    for union in &unions {
        settings.with_replacement(rust_type(&union.name), rust_type(&union.name), none());
    }
    for (result, _) in &result_unions {
        settings.with_replacement(rust_type(result), rust_type(result), none());
    }
    for (name, _) in &synthesized.consts {
        settings.with_replacement(name, name, [TypeSpaceImpl::Default].into_iter());
    }
    settings.with_replacement(NUMBER_DEF, "::serde_json::Number", none());
    settings.with_replacement(OBJECT_SCHEMA_DEF, OBJECT_SCHEMA_DEF, none());
    settings.with_replacement(ANY_SCHEMA_DEF, ANY_SCHEMA_DEF, none());
    // Ids and tokens key the engine's maps of in-flight requests.
    for def in ["RequestId", "ProgressToken"] {
        let mut patch = TypeSpacePatch::default();
        patch.with_derive("Eq").with_derive("Hash");
        settings.with_patch(def, &patch);
    }
    for def in ["Result", "Error"] {
        settings.with_patch(def, TypeSpacePatch::default().with_rename(rust_type(def)));
    }

    let root: schemars_08::schema::RootSchema = serde_json::from_value(patched)?;
    let mut space = TypeSpace::new(&settings);
    space.add_root_schema(root)?;
    let mut file: syn::File = syn::parse2(space.to_stream())?;
    postprocess::optional_containers(&mut file);
    catch_all::add(&mut file)?;
    let const_names: Vec<String> = synthesized.consts.iter().map(|(n, _)| n.clone()).collect();
    postprocess::constructors(&mut file, &const_names);
    postprocess::compositions(&mut file, &model::compositions(normalized), &const_names);
    serde_impls::rewrite(&mut file, read_elsewhere)?;
    let with_progress_token = postprocess::with_progress_token(&file);

    let (table, method_names) = consts::method_table(&unions);
    let mut ours = match methods_at {
        Methods::Own => {
            let mut own = table;
            own.extend(catch_all::extra_type());
            own
        }
        Methods::Shared => quote::quote! { use super::{methods, Extra}; },
    };
    ours.extend(consts::const_types(&synthesized.consts, &method_names));
    ours.extend(consts::exact_json_types());
    ours.extend(unions::method_traits());
    ours.extend(unions::message_traits(&unions));
    for union in &unions {
        ours.extend(unions::tagged_union(
            union,
            &synthesized.consts,
            &with_progress_token,
        ));
    }
    for (result, requests) in &result_unions {
        let Some(requests) = unions.iter().find(|u| u.name == *requests) else {
            return Err(Error::Schema(format!(
                "`{requests}` is not a method-keyed union"
            )));
        };
        ours.extend(unions::result_union(result, requests));
    }
    ours.extend(extra);
    let ours: syn::File = syn::parse2(ours)?;
    file.items.extend(ours.items);

    Ok(format!(
        "// @generated by codegen from {source} — do not edit\n\
         // Regenerate with `cargo run -p codegen`; see codegen/src/normalize.rs and\n\
         // codegen/src/patches.rs for every adjustment made to the schema before typify reads it.\n\n{}",
        prettyplease::unparse(&file)
    ))
}
