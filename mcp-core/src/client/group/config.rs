//! The `mcpServers` configuration: the JSON file Claude Desktop, Cursor and
//! VS Code (`servers`) use to name the MCP servers an application talks to.
//!
//! ```json
//! {"mcpServers": {
//!   "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
//!             "env": {"DEBUG": "1"}},
//!   "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
//! }}
//! ```

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde_json::{Map, Value};

use crate::{Error, Result};

/// How to reach one server of an `mcpServers` configuration.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerConfig {
    /// A server started as a child process, spoken to over its stdin and
    /// stdout (`command`, `args`, `env`, `cwd`).
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it, beside the few safe ones every
        /// child gets (`PATH`, `HOME`, `LANG`, …; see
        /// [`ChildProcess`](crate::transport::ChildProcess)).
        env: IndexMap<String, String>,
        /// Its working directory.
        cwd: Option<PathBuf>,
    },
    /// A Streamable HTTP endpoint (`url`, `headers`).
    Http {
        /// The endpoint.
        url: String,
        /// Headers sent with every request (e.g. `Authorization`).
        headers: IndexMap<String, String>,
    },
}

impl ServerConfig {
    /// A stdio server started as `command args…`.
    pub fn stdio<I, S>(command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::Stdio {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: IndexMap::new(),
            cwd: None,
        }
    }

    /// A Streamable HTTP server at `url`.
    pub fn http(url: impl Into<String>) -> Self {
        Self::Http {
            url: url.into(),
            headers: IndexMap::new(),
        }
    }

    /// `stdio` or `http`, as the configuration's `type` says it.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }

    /// The command line or the URL, for people (no environment or header
    /// values: they may be secrets).
    pub fn describe(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Self::Http { url, .. } => url.clone(),
        }
    }
}

/// The servers of an `mcpServers` configuration, in the file's order.
///
/// Each entry is a stdio server (`command`, with optional `args`, `env`,
/// `cwd`) or a Streamable HTTP server (`url`, with optional `headers`); a
/// `type` of `stdio` or `http` (VS Code; `streamable-http` too) may say
/// which. The servers may sit under `mcpServers` (Claude Desktop, Cursor)
/// or `servers` (VS Code). `${env:NAME}` in a string is replaced by the
/// environment variable `NAME` of this process. Entries with
/// `"disabled": true` are left out; keys this library does not know
/// (`autoApprove`, `timeout`, …) are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroupConfig {
    servers: IndexMap<String, ServerConfig>,
}

impl GroupConfig {
    /// An empty configuration, to fill with [`insert`](Self::insert).
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads the configuration file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::Config(format!("cannot read {}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| match e {
            Error::Config(message) => Error::Config(format!("{}: {message}", path.display())),
            other => other,
        })
    }

    /// Parses a configuration from JSON text.
    pub fn parse(text: &str) -> Result<Self> {
        let value: Value = serde_json::from_str(text)
            .map_err(|e| Error::Config(format!("not valid JSON: {e}")))?;
        Self::from_value(&value)
    }

    /// Reads a configuration from JSON already parsed.
    pub fn from_value(value: &Value) -> Result<Self> {
        let Value::Object(top) = value else {
            return Err(Error::Config(
                "expected a JSON object with `mcpServers` (or `servers`)".into(),
            ));
        };
        let (key, servers) = match (top.get("mcpServers"), top.get("servers")) {
            (Some(_), Some(_)) => {
                return Err(Error::Config(
                    "both `mcpServers` and `servers` are present: use one".into(),
                ));
            }
            (Some(servers), None) => ("mcpServers", servers),
            (None, Some(servers)) => ("servers", servers),
            (None, None) => {
                return Err(Error::Config(
                    "no `mcpServers` (or `servers`) object of servers".into(),
                ));
            }
        };
        let Value::Object(servers) = servers else {
            return Err(Error::Config(format!(
                "`{key}` must be an object of named servers"
            )));
        };
        let mut config = Self::new();
        for (name, entry) in servers {
            let at = |message: String| Error::Config(format!("{key}.{name}: {message}"));
            if name.is_empty() {
                return Err(Error::Config(format!("{key}: a server has an empty name")));
            }
            let Value::Object(entry) = entry else {
                return Err(at("must be an object".into()));
            };
            if entry.get("disabled") == Some(&Value::Bool(true)) {
                continue;
            }
            let server = entry_of(entry).map_err(at)?;
            config.servers.insert(name.clone(), server);
        }
        Ok(config)
    }

    /// Adds (or replaces) a server.
    pub fn insert(&mut self, name: impl Into<String>, server: ServerConfig) -> &mut Self {
        self.servers.insert(name.into(), server);
        self
    }

    /// The server named `name`.
    pub fn get(&self, name: &str) -> Option<&ServerConfig> {
        self.servers.get(name)
    }

    /// Every server, in the configuration's order.
    pub fn servers(&self) -> impl Iterator<Item = (&str, &ServerConfig)> {
        self.servers.iter().map(|(name, s)| (name.as_str(), s))
    }

    /// The number of servers.
    pub fn len(&self) -> usize {
        self.servers.len()
    }

    /// Whether there are no servers.
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Only the server named `name` (for tools that talk to one).
    pub fn only(&self, name: &str) -> Result<Self> {
        let Some(server) = self.servers.get(name) else {
            let known: Vec<&str> = self.servers.keys().map(String::as_str).collect();
            return Err(Error::Config(format!(
                "no server `{name}` in the configuration (it has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            )));
        };
        let mut only = Self::new();
        only.insert(name, server.clone());
        Ok(only)
    }
}

/// One entry, or what is wrong with it.
fn entry_of(entry: &Map<String, Value>) -> std::result::Result<ServerConfig, String> {
    let kind = match entry.get("type") {
        None => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(other) => return Err(format!("`type` must be a string, got {other}")),
    };
    let has_command = entry.contains_key("command");
    let has_url = entry.contains_key("url");
    let stdio = match kind {
        Some("stdio") => true,
        Some("http" | "streamable-http" | "streamableHttp") => false,
        Some("sse") => {
            return Err(
                "`type` sse (the HTTP+SSE transport of 2024-11-05) is not supported; \
                        give the server's Streamable HTTP endpoint with `type` http"
                    .into(),
            );
        }
        Some(other) => {
            return Err(format!(
                "unknown `type` `{other}`: use stdio (with `command`) or http (with `url`)"
            ));
        }
        None => match (has_command, has_url) {
            (true, true) => return Err("has both `command` and `url`: give one".into()),
            (true, false) => true,
            (false, true) => false,
            (false, false) => {
                return Err("needs `command` (a stdio server) or `url` (an HTTP server)".into());
            }
        },
    };
    if stdio {
        if has_url {
            return Err("a stdio server takes `command`, not `url`".into());
        }
        let command = string(entry, "command")?.ok_or("a stdio server needs `command`")?;
        if command.is_empty() {
            return Err("`command` is empty".into());
        }
        let args = match entry.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => expand(s).map_err(|e| format!("`args[{i}]`: {e}")),
                    other => Err(format!("`args[{i}]` must be a string, got {other}")),
                })
                .collect::<std::result::Result<_, _>>()?,
            Some(other) => return Err(format!("`args` must be an array of strings, got {other}")),
        };
        Ok(ServerConfig::Stdio {
            command,
            args,
            env: strings(entry, "env")?,
            cwd: string(entry, "cwd")?.map(PathBuf::from),
        })
    } else {
        if has_command {
            return Err("an HTTP server takes `url`, not `command`".into());
        }
        let url = string(entry, "url")?.ok_or("an HTTP server needs `url`")?;
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(format!("`url` {url} is not an http:// or https:// URL"));
        }
        Ok(ServerConfig::Http {
            url,
            headers: strings(entry, "headers")?,
        })
    }
}

/// An optional string field, expanded.
fn string(entry: &Map<String, Value>, key: &str) -> std::result::Result<Option<String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => expand(s).map(Some).map_err(|e| format!("`{key}`: {e}")),
        Some(other) => Err(format!("`{key}` must be a string, got {other}")),
    }
}

/// An optional object of strings (numbers and booleans taken as their
/// JSON text, as people write `"PORT": 8080`), expanded.
fn strings(
    entry: &Map<String, Value>,
    key: &str,
) -> std::result::Result<IndexMap<String, String>, String> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(IndexMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(name, value)| {
                let text = match value {
                    Value::String(s) => s.clone(),
                    Value::Number(_) | Value::Bool(_) => value.to_string(),
                    other => return Err(format!("`{key}.{name}` must be a string, got {other}")),
                };
                let text = expand(&text).map_err(|e| format!("`{key}.{name}`: {e}"))?;
                Ok((name.clone(), text))
            })
            .collect(),
        Some(other) => Err(format!("`{key}` must be an object of strings, got {other}")),
    }
}

/// Replaces each `${env:NAME}` by the environment variable `NAME`; other
/// `${…}` (VS Code's `${input:…}`, `${workspaceFolder}`) are left as they are.
fn expand(text: &str) -> std::result::Result<String, String> {
    const START: &str = "${env:";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(START) {
        out.push_str(&rest[..at]);
        let after = &rest[at + START.len()..];
        let Some(end) = after.find('}') else {
            return Err(format!("`${{env:` without a closing `}}` in {text:?}"));
        };
        let name = &after[..end];
        let value = std::env::var(name)
            .map_err(|_| format!("the environment variable `{name}` is not set"))?;
        out.push_str(&value);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "tests")]

    use super::*;
    use serde_json::json;

    fn error(value: Value) -> String {
        GroupConfig::from_value(&value).unwrap_err().to_string()
    }

    #[test]
    fn reads_stdio_and_http_entries_in_order() {
        let config = GroupConfig::parse(
            r#"{"mcpServers": {
                "files": {"command": "npx", "args": ["-y", "server"], "env": {"A": "1", "PORT": 8080}},
                "remote": {"url": "https://example.com/mcp", "headers": {"X-Key": "k"}},
                "off": {"command": "x", "disabled": true},
                "typed": {"type": "stdio", "command": "srv", "autoApprove": []}
            }}"#,
        )
        .unwrap();
        let names: Vec<&str> = config.servers().map(|(name, _)| name).collect();
        assert_eq!(names, ["files", "remote", "typed"]);
        let ServerConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } = config.get("files").unwrap()
        else {
            panic!("not stdio")
        };
        assert_eq!(
            (command.as_str(), args.as_slice()),
            ("npx", &["-y".to_string(), "server".to_string()][..])
        );
        assert_eq!(env.get("PORT").map(String::as_str), Some("8080"));
        assert_eq!(*cwd, None);
        assert_eq!(
            config.get("remote"),
            Some(&ServerConfig::Http {
                url: "https://example.com/mcp".into(),
                headers: [("X-Key".to_string(), "k".to_string())]
                    .into_iter()
                    .collect(),
            })
        );
        assert_eq!(config.get("typed").unwrap().kind(), "stdio");
    }

    #[test]
    fn reads_vs_code_servers_with_types() {
        let config = GroupConfig::from_value(&json!({"servers": {
            "a": {"type": "http", "url": "http://127.0.0.1:1/mcp"},
            "b": {"type": "stdio", "command": "srv"}
        }}))
        .unwrap();
        assert_eq!(config.get("a").unwrap().kind(), "http");
        assert_eq!(config.get("b").unwrap().describe(), "srv");
    }

    #[test]
    fn errors_name_the_entry_and_the_problem() {
        let cases = [
            (json!([]), "expected a JSON object"),
            (json!({"other": {}}), "no `mcpServers`"),
            (
                json!({"mcpServers": {}, "servers": {}}),
                "both `mcpServers` and `servers`",
            ),
            (json!({"mcpServers": []}), "`mcpServers` must be an object"),
            (
                json!({"mcpServers": {"a": 1}}),
                "mcpServers.a: must be an object",
            ),
            (
                json!({"mcpServers": {"a": {}}}),
                "mcpServers.a: needs `command`",
            ),
            (
                json!({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}),
                "mcpServers.a: has both",
            ),
            (
                json!({"mcpServers": {"a": {"command": 3}}}),
                "mcpServers.a: `command` must be a string",
            ),
            (
                json!({"mcpServers": {"a": {"command": ""}}}),
                "mcpServers.a: `command` is empty",
            ),
            (
                json!({"mcpServers": {"a": {"command": "x", "args": "y"}}}),
                "mcpServers.a: `args` must be an array",
            ),
            (
                json!({"mcpServers": {"a": {"command": "x", "args": [1]}}}),
                "mcpServers.a: `args[0]` must be a string",
            ),
            (
                json!({"mcpServers": {"a": {"command": "x", "env": {"K": []}}}}),
                "mcpServers.a: `env.K` must be a string",
            ),
            (
                json!({"servers": {"b": {"url": "ftp://h"}}}),
                "servers.b: `url` ftp://h is not an http",
            ),
            (
                json!({"servers": {"b": {"type": "sse", "url": "http://h"}}}),
                "servers.b: `type` sse",
            ),
            (
                json!({"servers": {"b": {"type": "ws", "url": "http://h"}}}),
                "servers.b: unknown `type` `ws`",
            ),
            (
                json!({"servers": {"b": {"type": "stdio", "url": "http://h"}}}),
                "servers.b: a stdio server takes `command`",
            ),
            (
                json!({"servers": {"b": {"type": "http", "command": "x"}}}),
                "servers.b: an HTTP server takes `url`",
            ),
            (
                json!({"servers": {"b": {"url": "http://h", "headers": {"K": null}}}}),
                "servers.b: `headers.K` must be a string",
            ),
            (
                json!({"servers": {"c": {"command": "${env:LIBMCP_SURELY_UNSET_VAR}"}}}),
                "servers.c: `command`: the environment variable `LIBMCP_SURELY_UNSET_VAR` is not set",
            ),
        ];
        for (value, expected) in cases {
            let message = error(value.clone());
            assert!(message.contains(expected), "{value}: {message}");
            assert!(message.starts_with("invalid configuration: "), "{message}");
        }
        let e = GroupConfig::parse("{").unwrap_err().to_string();
        assert!(e.contains("not valid JSON"), "{e}");
    }

    #[test]
    fn file_errors_name_the_file() {
        let e = GroupConfig::from_file("/nonexistent/mcp.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read /nonexistent/mcp.json"), "{e}");
    }

    #[test]
    fn expands_environment_variables() {
        let path = std::env::var("PATH").unwrap();
        assert_eq!(expand("a${env:PATH}b").unwrap(), format!("a{path}b"));
        assert_eq!(
            expand("${workspaceFolder}/x").unwrap(),
            "${workspaceFolder}/x"
        );
        assert!(expand("${env:PATH").is_err());
    }

    #[test]
    fn only_names_the_known_servers() {
        let mut config = GroupConfig::new();
        config.insert("a", ServerConfig::stdio("srv", ["x"]));
        assert_eq!(config.only("a").unwrap().len(), 1);
        let e = config.only("b").unwrap_err().to_string();
        assert!(
            e.contains("no server `b`") && e.contains("it has: a"),
            "{e}"
        );
    }
}
