//! Official extensions (SEP-2133) and the methods they add, which no
//! revision's schema lists: the extension method table, beside the generated
//! [`METHOD_TABLE`](crate::schema::METHOD_TABLE).
//!
//! An extension exists only in revisions whose capabilities carry
//! `extensions` (2026-07-28 on); a client opts in per request, in the
//! `extensions` of the capabilities in its `_meta`, and a server declares it
//! in the capabilities `server/discover` returns.
//!
//! Each extension method name is written once, here (or, where the core
//! protocol of an older revision had a method of the same name, taken from
//! the generated constants); dispatch matches [`ExtensionMethod`]
//! exhaustively.

use serde_json::{Map, Value, json};

use crate::ProtocolVersion;
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{ClientCapabilities, ClientRequestMethod, methods};

/// The tasks extension (SEP-2663): a `tools/call` may be answered with a
/// task (`resultType: "task"`), polled with `tasks/get`, given input with
/// `tasks/update` and cancelled with `tasks/cancel`.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// `tasks/update`, which only the tasks extension has.
pub const TASKS_UPDATE: &str = "tasks/update";

/// The skills extension (SEP-2640): `skills/list`, `skills/get`, skill
/// files served as resources, and `resources/directory/read` with
/// `directoryRead: true` (see [`crate::skills`]).
pub const SKILLS: &str = "io.modelcontextprotocol/skills";

/// `skills/list`.
pub const SKILLS_LIST: &str = "skills/list";

/// `skills/get`.
pub const SKILLS_GET: &str = "skills/get";

/// `resources/directory/read`, offered with `directoryRead: true`.
pub const DIRECTORY_READ: &str = "resources/directory/read";

/// A method an extension adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExtensionMethod {
    /// `tasks/get` of the tasks extension: the task, with its result,
    /// error or open input requests inlined.
    TasksGet,
    /// `tasks/update`: answers to a task's open input requests.
    TasksUpdate,
    /// `tasks/cancel`: asks for a task to stop (acknowledged, cooperative).
    TasksCancel,
    /// `skills/list` of the skills extension: the skills served, paginated.
    SkillsList,
    /// `skills/get`: the entry of one skill, by URI.
    SkillsGet,
    /// `resources/directory/read` of the skills extension (with
    /// `directoryRead: true`): a folder's direct children.
    DirectoryRead,
}

/// One row of the extension method table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtensionMethodSpec {
    /// The wire name.
    pub name: &'static str,
    /// The extension identifier the client must declare.
    pub extension: &'static str,
    /// The param that `Mcp-Name` repeats over Streamable HTTP, if any.
    pub name_param: Option<NameParam>,
    /// Whether the client must declare the extension on the request
    /// (-32021 otherwise); the skills extension's methods are answered to
    /// any client of a server that offers it.
    pub client_declares: bool,
    /// Whether the result carries the caching hints `ttlMs`/`cacheScope`.
    pub cacheable: bool,
}

/// A param that `Mcp-Name` repeats (SEP-2243).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameParam {
    /// `taskId`.
    TaskId,
}

impl NameParam {
    /// The param's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TaskId => "taskId",
        }
    }
}

/// Every extension method, each once (client → server requests).
pub static EXTENSION_METHOD_TABLE: [ExtensionMethodSpec; 6] = [
    ExtensionMethodSpec {
        name: methods::TASKS_GET,
        extension: TASKS,
        name_param: Some(NameParam::TaskId),
        client_declares: true,
        cacheable: false,
    },
    ExtensionMethodSpec {
        name: TASKS_UPDATE,
        extension: TASKS,
        name_param: Some(NameParam::TaskId),
        client_declares: true,
        cacheable: false,
    },
    ExtensionMethodSpec {
        name: methods::TASKS_CANCEL,
        extension: TASKS,
        name_param: Some(NameParam::TaskId),
        client_declares: true,
        cacheable: false,
    },
    ExtensionMethodSpec {
        name: SKILLS_LIST,
        extension: SKILLS,
        name_param: None,
        client_declares: false,
        cacheable: true,
    },
    ExtensionMethodSpec {
        name: SKILLS_GET,
        extension: SKILLS,
        name_param: None,
        client_declares: false,
        cacheable: true,
    },
    ExtensionMethodSpec {
        name: DIRECTORY_READ,
        extension: SKILLS,
        name_param: None,
        client_declares: false,
        cacheable: true,
    },
];

impl ExtensionMethod {
    /// Every extension method.
    pub const ALL: &'static [Self] = &[
        Self::TasksGet,
        Self::TasksUpdate,
        Self::TasksCancel,
        Self::SkillsList,
        Self::SkillsGet,
        Self::DirectoryRead,
    ];

    /// What the table says of this method.
    pub fn spec(self) -> &'static ExtensionMethodSpec {
        match self {
            Self::TasksGet => &EXTENSION_METHOD_TABLE[0],
            Self::TasksUpdate => &EXTENSION_METHOD_TABLE[1],
            Self::TasksCancel => &EXTENSION_METHOD_TABLE[2],
            Self::SkillsList => &EXTENSION_METHOD_TABLE[3],
            Self::SkillsGet => &EXTENSION_METHOD_TABLE[4],
            Self::DirectoryRead => &EXTENSION_METHOD_TABLE[5],
        }
    }

    /// The wire name.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// The method with wire name `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|m| m.spec().name == name)
    }

    /// Whether the method exists in `version` (extensions exist from the
    /// revision whose capabilities carry `extensions`).
    pub fn in_revision(self, version: ProtocolVersion) -> bool {
        version.has_extensions()
    }
}

/// A client request's method, as the tables say for one request: a core
/// method of its revision, or an extension method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(any(feature = "server", feature = "http-client")),
    allow(dead_code)
)]
pub(crate) enum RequestMethod {
    Core(ClientRequestMethod),
    Extension(ExtensionMethod),
}

#[cfg_attr(
    not(any(feature = "server", feature = "http-client")),
    allow(dead_code)
)]
impl RequestMethod {
    /// The method `name` names under `version` (`None` for a session, whose
    /// revision is settled later, or for an unknown name): a core method
    /// first, then, in revisions with extensions, an extension method (so
    /// `tasks/get` is the core method in 2025-11-25 and the extension's in
    /// 2026-07-28).
    pub(crate) fn resolve(name: &str, version: Option<ProtocolVersion>) -> Option<Self> {
        let core = ClientRequestMethod::from_name(name);
        let Some(version) = version else {
            return core.map(Self::Core);
        };
        match core {
            Some(m) if m.in_revision(version) => Some(Self::Core(m)),
            _ => ExtensionMethod::from_name(name)
                .filter(|m| m.in_revision(version))
                .map(Self::Extension)
                .or(core.map(Self::Core)),
        }
    }
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
/// Whether `capabilities` declare extension `id`.
pub(crate) fn declared(capabilities: &ClientCapabilities, id: &str) -> bool {
    capabilities
        .extensions
        .as_ref()
        .is_some_and(|e| e.contains_key(id))
}

#[cfg_attr(not(feature = "server"), allow(dead_code))]
/// -32021 naming the extension the client must declare.
pub(crate) fn missing(id: &str) -> RpcError {
    let mut extensions = Map::new();
    extensions.insert(id.to_string(), json!({}));
    RpcError::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("Missing required client capability: the `{id}` extension"),
    )
    .with_data(json!({ "requiredCapabilities": { "extensions": Value::Object(extensions) } }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_per_revision() {
        use ProtocolVersion::*;
        for m in ExtensionMethod::ALL {
            assert_eq!(ExtensionMethod::from_name(m.as_str()), Some(*m));
        }
        assert_eq!(
            RequestMethod::resolve("tasks/get", Some(V2025_11_25)),
            Some(RequestMethod::Core(ClientRequestMethod::GetTask))
        );
        assert_eq!(
            RequestMethod::resolve("tasks/get", Some(V2026_07_28)),
            Some(RequestMethod::Extension(ExtensionMethod::TasksGet))
        );
        assert_eq!(
            RequestMethod::resolve("tasks/update", None),
            None,
            "no extension method in a session"
        );
        assert_eq!(
            RequestMethod::resolve("tasks/result", Some(V2026_07_28)),
            Some(RequestMethod::Core(ClientRequestMethod::GetTaskPayload)),
            "a core method of another revision stays one (answered -32601)"
        );
    }
}
