//! Answering the extension's requests from a [`SkillCatalog`]:
//! `skills/list` (paginated), `skills/get`, `resources/directory/read`, and
//! reading a skill file for `resources/read`.

use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::SkillCatalog;
use crate::jsonrpc::RpcError;
use crate::schema::ReadResourceResult;
use crate::server::pagination::page;

#[derive(Deserialize)]
struct ListParams {
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    cursor: Option<String>,
}

fn decode<T: for<'de> Deserialize<'de>>(
    method: &str,
    params: Map<String, Value>,
) -> Result<T, RpcError> {
    serde_json::from_value(Value::Object(params))
        .map_err(|e| RpcError::invalid_params(format!("invalid `{method}` params: {e}")))
}

fn with_cursor(mut result: Map<String, Value>, next: Option<String>) -> Map<String, Value> {
    if let Some(next) = next {
        result.insert("nextCursor".into(), Value::String(next));
    }
    result
}

/// `skills/list`: a page of entries (an entry is never split).
pub(crate) fn list(
    catalog: &SkillCatalog,
    params: Map<String, Value>,
    page_size: usize,
) -> Result<Map<String, Value>, RpcError> {
    let params: ListParams = decode(super::SKILLS_LIST, params)?;
    let (skills, next) = page(&catalog.skills, params.cursor.as_deref(), page_size)?;
    let entries: Vec<Value> = skills
        .iter()
        .map(|s| serde_json::to_value(s.entry()))
        .collect::<Result<_, _>>()
        .map_err(|e| RpcError::internal(format!("could not encode a skill: {e}")))?;
    let mut result = Map::new();
    result.insert("skills".into(), Value::Array(entries));
    Ok(with_cursor(result, next))
}

/// `skills/get`: the entry of the skill at `uri`; -32602 for a URI that
/// names no skill served here.
pub(crate) fn get(
    catalog: &SkillCatalog,
    params: Map<String, Value>,
) -> Result<Map<String, Value>, RpcError> {
    let params: UriParams = decode(super::SKILLS_GET, params)?;
    let skill = catalog.get(&params.uri).ok_or_else(|| {
        RpcError::invalid_params(format!("no skill is served at {}", params.uri))
            .with_data(json!({ "uri": params.uri }))
    })?;
    let entry = serde_json::to_value(skill.entry())
        .map_err(|e| RpcError::internal(format!("could not encode a skill: {e}")))?;
    let mut result = Map::new();
    result.insert("skill".into(), entry);
    Ok(result)
}

/// `resources/directory/read`: the direct children of a skill's folder
/// (folders as `inode/directory`), in pages; -32602 for a URI that is no
/// folder of a skill.
pub(crate) fn directory_read(
    catalog: &SkillCatalog,
    params: Map<String, Value>,
    page_size: usize,
) -> Result<Map<String, Value>, RpcError> {
    let params: UriParams = decode(super::DIRECTORY_READ, params)?;
    let children = catalog
        .skills()
        .find_map(|s| s.children(&params.uri))
        .ok_or_else(|| {
            RpcError::invalid_params(format!("{} is not a directory", params.uri))
                .with_data(json!({ "uri": params.uri }))
        })?;
    let children: crate::fast_map::FastIndexMap<String, _> =
        children.into_iter().map(|r| (r.uri.clone(), r)).collect();
    let (resources, next) = page(&children, params.cursor.as_deref(), page_size)?;
    let resources = serde_json::to_value(resources)
        .map_err(|e| RpcError::internal(format!("could not encode a resource: {e}")))?;
    let mut result = Map::new();
    result.insert("resources".into(), resources);
    Ok(with_cursor(result, next))
}

/// The skill file at `uri`, read, if it is one.
pub(crate) fn read(catalog: &SkillCatalog, uri: &str) -> Option<ReadResourceResult> {
    catalog.skill_of_file(uri)?.read(uri)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;
    use crate::skills::Skill;

    fn catalog() -> SkillCatalog {
        let mut catalog = SkillCatalog::new();
        for name in ["a", "b", "c"] {
            catalog.add(Skill::new(name, "d", "body").unwrap()).unwrap();
        }
        catalog
            .add(
                Skill::from_files(
                    "d",
                    [
                        ("SKILL.md", &b"---\nname: d\ndescription: D\n---\n"[..]),
                        ("refs/x.md", b"x"),
                    ],
                )
                .unwrap(),
            )
            .unwrap();
        catalog
    }

    fn params(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn list_pages_get_finds_and_refuses_unknown_uris() {
        let c = catalog();
        let first = list(&c, Map::new(), 3).unwrap();
        assert_eq!(first["skills"].as_array().unwrap().len(), 3);
        let cursor = first["nextCursor"].clone();
        let second = list(&c, params(json!({ "cursor": cursor })), 3).unwrap();
        assert_eq!(second["skills"][0]["uri"], "skill://d/SKILL.md");
        assert!(second.get("nextCursor").is_none());
        assert!(list(&c, params(json!({"cursor": "zz"})), 3).is_err());
        let got = get(&c, params(json!({"uri": "skill://b/SKILL.md"}))).unwrap();
        assert_eq!(got["skill"]["frontmatter"]["name"], "b");
        let e = get(&c, params(json!({"uri": "skill://nope/SKILL.md"}))).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(
            get(&c, Map::new()).unwrap_err().code,
            ErrorCode::INVALID_PARAMS
        );
    }

    #[test]
    fn directories_list_children_and_refuse_files() {
        let c = catalog();
        let root = directory_read(&c, params(json!({"uri": "skill://d"})), 10).unwrap();
        assert_eq!(root["resources"][1]["mimeType"], "inode/directory");
        let sub = directory_read(&c, params(json!({"uri": "skill://d/refs"})), 10).unwrap();
        assert_eq!(sub["resources"][0]["uri"], "skill://d/refs/x.md");
        let paged = directory_read(&c, params(json!({"uri": "skill://d"})), 1).unwrap();
        assert!(paged.contains_key("nextCursor"));
        for uri in ["skill://d/SKILL.md", "skill://zz"] {
            let e = directory_read(&c, params(json!({ "uri": uri })), 10).unwrap_err();
            assert_eq!(e.code, ErrorCode::INVALID_PARAMS);
        }
        assert!(read(&c, "skill://d/refs/x.md").is_some());
        assert!(read(&c, "skill://d/refs/none.md").is_none());
    }
}
