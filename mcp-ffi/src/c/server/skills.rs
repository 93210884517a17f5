//! The skills extension on a server: serving the skills of a directory.

use mcp_core::skills::SkillCatalog;

use super::*;

/// Serves the skills under `dir` (the skills extension,
/// `io.modelcontextprotocol/skills`), in place of those served until now:
/// every folder holding a `SKILL.md` is a skill named after the folder, with
/// all the files under it. Clients list them with `skills/list`, get one
/// with `skills/get` and read its files as resources; with
/// `directory_read`, folders are listed with `resources/directory/read`.
/// Before or while serving; while serving, clients are told that the
/// resource list changed (the `resources` capability must have been
/// declared when the server was first served, otherwise
/// `MCP_ERR_CAPABILITY`). A skill that breaks the extension's rules (its
/// frontmatter, name, limits), or a file or folder that cannot be read, is
/// `MCP_ERR_INVALID_ARGUMENT` naming it, and nothing changes.
///
/// # Safety
/// `server` is NULL or a live server; `dir` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_skills_dir(
    server: *const Server,
    dir: *const c_char,
    directory_read: bool,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let dir = arg!(str dir);
        let catalog = SkillCatalog::load_dir(dir)?.directory_read(directory_read);
        server
            .core
            .set_skills(catalog)
            .map_err(|e| Failure::new(MCP_ERR_CAPABILITY, e.to_string()))
    })
}
