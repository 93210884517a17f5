//! The state of a group's servers as every face shows it.

use mcp_core::client::group::ServerStatus as CoreStatus;
use mcp_core::client::{ClientGroup, GroupConfig, ServerConfig};
use mcp_core::schema::Implementation;
use serde::Serialize;

/// One server of a group: `{"name", "type", "target", "state", "error",
/// "protocolVersion", "serverInfo", "tools", "connections"}`, in that order.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// Its name in the configuration.
    pub name: String,
    /// `stdio` or `http`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What it is started as or reached at (the command line, or the URL).
    pub target: Option<String>,
    /// `connecting`, `connected`, `failed`, `disconnected` or `closed`.
    pub state: &'static str,
    /// Why it failed or went away.
    pub error: Option<String>,
    /// The revision spoken with it, once connected.
    pub protocol_version: Option<&'static str>,
    /// Its `serverInfo`, once connected.
    pub server_info: Option<Implementation>,
    /// How many tools it has in the merged list.
    pub tools: usize,
    /// How many times it was connected.
    pub connections: u64,
}

impl ServerStatus {
    /// `status`, with its target read from `config`.
    pub fn new(status: &CoreStatus, config: &GroupConfig) -> Self {
        Self {
            name: status.name.clone(),
            kind: status.kind,
            target: config.get(&status.name).map(ServerConfig::describe),
            state: status.state.as_str(),
            error: status.error.clone(),
            protocol_version: status.protocol_version.map(|v| v.as_str()),
            server_info: status.server_info.clone(),
            tools: status.tools,
            connections: status.connections,
        }
    }
}

/// Every server of a group, in configuration order: `{"servers": […]}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupStatus {
    /// The servers.
    pub servers: Vec<ServerStatus>,
}

impl GroupStatus {
    /// The state of every server of `group`, connected from `config`.
    pub fn of(group: &ClientGroup, config: &GroupConfig) -> Self {
        Self {
            servers: group
                .status()
                .iter()
                .map(|s| ServerStatus::new(s, config))
                .collect(),
        }
    }

    /// The JSON text every face gives: compact, keys in the order above.
    pub fn to_json(&self) -> mcp_core::Result<String> {
        Ok(serde_json::to_string(self)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::client::group::ServerState;

    #[test]
    fn keys_are_camel_case_in_one_order() {
        let config =
            GroupConfig::parse(r#"{"mcpServers": {"down": {"command": "/x", "args": ["a"]}}}"#)
                .unwrap_or_default();
        let status = ServerStatus {
            name: "down".into(),
            kind: "stdio",
            target: config.get("down").map(ServerConfig::describe),
            state: ServerState::Failed.as_str(),
            error: Some("gone".into()),
            protocol_version: None,
            server_info: None,
            tools: 0,
            connections: 0,
        };
        let text = GroupStatus {
            servers: vec![status],
        }
        .to_json()
        .unwrap_or_default();
        assert_eq!(
            text,
            r#"{"servers":[{"name":"down","type":"stdio","target":"/x a","state":"failed","error":"gone","protocolVersion":null,"serverInfo":null,"tools":0,"connections":0}]}"#
        );
    }
}
