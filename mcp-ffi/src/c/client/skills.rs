//! The skills extension on a connected client: list the server's skills,
//! look one up, load its `SKILL.md` and read its other files, each file
//! verified against the skill's entry (size, digest, frontmatter) by
//! mcp-core before it reaches the caller.

use base64::Engine;
use mcp_core::skills::{SKILLS_GET, SKILLS_LIST};

use super::*;

/// Lists every skill the server offers (`skills/list`, all pages):
/// `*result_json` is `{"skills":[{"uri":…,"frontmatter":{…},"resources":…},…]}`.
/// `MCP_ERR_CAPABILITY` if the server does not declare the skills
/// extension (so for each function here).
///
/// # Safety
/// `client` is NULL or a live client; `options` is NULL or valid;
/// `result_json` is NULL or points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_list_skills(
    client: *const Client,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: this function's contract.
    unsafe {
        super::shapes::listing(
            client,
            options,
            result_json,
            SKILLS_LIST,
            "skills",
            |core| async move { core.list_all_skills().await },
        )
    }
}

/// Looks up the skill at `uri` (`skills/get`, a `skill://…` URI):
/// `*result_json` is its entry, `{"uri":…,"frontmatter":{…},"resources":…}`.
///
/// # Safety
/// `client` is NULL or a live client; `uri` is NULL or NUL-terminated;
/// `options` is NULL or valid; `result_json` is NULL or points to writable
/// memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_get_skill(
    client: *const Client,
    uri: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: this function's contract.
    unsafe {
        super::shapes::text_result(
            client,
            (uri, "uri"),
            options,
            result_json,
            SKILLS_GET,
            |core, uri| async move { core.get_skill(&uri).await },
        )
    }
}

/// Loads the skill at `uri`: looks it up, reads its `SKILL.md` and verifies
/// it against the entry. `*result_json` is
/// `{"skill":{…entry…},"skillMd":"---\nname: …"}`. A file that does not
/// match its entry (size, digest, frontmatter) is `MCP_ERR_PROTOCOL`, and
/// nothing of it is written.
///
/// # Safety
/// As for `mcp_client_get_skill`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_load_skill(
    client: *const Client,
    uri: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: this function's contract.
    unsafe {
        super::shapes::text_result(
            client,
            (uri, "uri"),
            options,
            result_json,
            SKILLS_GET,
            |core, uri| async move {
                let loaded = core.load_skill_at(&uri).await?;
                Ok(json!({ "skill": loaded.entry, "skillMd": loaded.skill_md }))
            },
        )
    }
}

/// Reads `file_uri`, one of the files of the skill at `skill_uri` (as its
/// entry lists them), and verifies it against the entry: `*result_json` is
/// `{"uri":…,"text":…}` for UTF-8 content, else `{"uri":…,"blob":"<base64>"}`
/// (the forms of resource contents). A mismatch, or a file the entry does
/// not list, is `MCP_ERR_PROTOCOL`.
///
/// # Safety
/// `client` is NULL or a live client; the URIs are NULL or NUL-terminated;
/// `options` is NULL or valid; `result_json` is NULL or points to writable
/// memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_read_skill_file(
    client: *const Client,
    skill_uri: *const c_char,
    file_uri: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let skill = arg!(str skill_uri).to_string();
        let file = arg!(str file_uri).to_string();
        let options = arg!(call_options options);
        out.set(&client.call_json(&options, SKILLS_GET, |core| async move {
            let bytes = core.read_skill_file_at(&skill, &file).await?;
            Ok(match String::from_utf8(bytes) {
                Ok(text) => json!({ "uri": file, "text": text }),
                Err(e) => json!({
                    "uri": file,
                    "blob": base64::engine::general_purpose::STANDARD.encode(e.into_bytes()),
                }),
            })
        })?)
    })
}
