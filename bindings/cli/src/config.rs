//! Commands over an `mcpServers` configuration file: `--config FILE
//! --server NAME` as a target, `mcp servers list`, `mcp tools list
//! --all-servers`.

use std::ffi::OsString;
use std::path::Path;

use mcp_core::client::group::{ServerState, ServerStatus};
use mcp_core::client::{GroupConfig, ServerConfig};
use serde_json::{Value, json};

use crate::commands::Printing;
use crate::error::CliError;
use crate::output;
use crate::transport::{self, ConnectOptions, Target};

/// Reads the configuration; a bad one is a bad command line.
pub(crate) fn read(path: &Path) -> Result<GroupConfig, CliError> {
    GroupConfig::from_file(path).map_err(|e| CliError::Usage(e.to_string()))
}

/// The target of `--config FILE [--server NAME]`: the named server, or the
/// only one.
pub(crate) fn target(path: &Path, server: Option<&str>) -> Result<Target, CliError> {
    let config = read(path)?;
    let name = match server {
        Some(name) => name.to_string(),
        None => {
            let mut names = config.servers().map(|(name, _)| name.to_string());
            match (names.next(), names.next()) {
                (Some(only), None) => only,
                (None, _) => {
                    return Err(CliError::Usage(format!(
                        "{} names no servers",
                        path.display()
                    )));
                }
                (Some(_), Some(_)) => {
                    let all: Vec<&str> = config.servers().map(|(name, _)| name).collect();
                    return Err(CliError::Usage(format!(
                        "{} names several servers: choose one with --server ({})",
                        path.display(),
                        all.join(", ")
                    )));
                }
            }
        }
    };
    let only = config
        .only(&name)
        .map_err(|e| CliError::Usage(e.to_string()))?;
    match only.get(&name) {
        Some(ServerConfig::Stdio {
            command,
            args,
            env,
            cwd,
        }) => Ok(Target::Stdio {
            program: OsString::from(command),
            args: args.iter().map(OsString::from).collect(),
            env: env.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            inherit_env: false,
            cwd: cwd.clone(),
        }),
        Some(ServerConfig::Http { url, headers }) => Ok(Target::Http {
            url: url.clone(),
            headers: headers
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }),
        _ => Err(CliError::Usage(format!(
            "the server `{name}` is of a kind this command does not know"
        ))),
    }
}

fn status_json(status: &ServerStatus, config: &GroupConfig) -> Value {
    let server = config.get(&status.name);
    json!({
        "name": status.name,
        "type": status.kind,
        "target": server.map(ServerConfig::describe),
        "state": status.state.as_str(),
        "error": status.error,
        "protocolVersion": status.protocol_version.map(|v| v.as_str()),
        "serverInfo": status.server_info,
        "tools": status.tools,
    })
}

/// `mcp servers list --config FILE`: every server, and whether it answers.
/// Exit status 1 when any does not.
pub(crate) async fn list_servers(
    path: &Path,
    options: ConnectOptions,
    printing: Printing,
) -> Result<(), CliError> {
    let config = read(path)?;
    let group = transport::group(&config, options).await;
    let status = group.status();
    group.close().await;
    if printing.json {
        let servers: Vec<Value> = status.iter().map(|s| status_json(s, &config)).collect();
        output::stdout(&output::json(&json!({ "servers": servers })));
    } else {
        let mut text = String::new();
        for s in &status {
            let target = config
                .get(&s.name)
                .map(ServerConfig::describe)
                .unwrap_or_default();
            let line = match (&s.state, &s.server_info, s.protocol_version) {
                (ServerState::Connected, Some(info), Some(version)) => format!(
                    "{}  [{}] {target}\n    answers: {} {} ({}), {} tools\n",
                    s.name,
                    s.kind,
                    info.name,
                    info.version,
                    version.as_str(),
                    s.tools
                ),
                _ => format!(
                    "{}  [{}] {target}\n    {}: {}\n",
                    s.name,
                    s.kind,
                    s.state,
                    s.error.as_deref().unwrap_or("no answer")
                ),
            };
            text.push_str(&line);
        }
        if status.is_empty() {
            text.push_str("(no servers)");
        }
        output::stdout(&text);
    }
    let silent: Vec<&str> = status
        .iter()
        .filter(|s| s.state != ServerState::Connected)
        .map(|s| s.name.as_str())
        .collect();
    if silent.is_empty() {
        Ok(())
    } else {
        output::stderr(&format!("error: no answer from {}", silent.join(", ")));
        Err(CliError::Reported)
    }
}

/// `mcp tools list --config FILE --all-servers`: the merged list, names
/// namespaced (`server__tool`). Servers that do not answer are named on
/// stderr (and in `servers` with --json); exit status 1 if any.
pub(crate) async fn list_all_tools(
    path: &Path,
    options: ConnectOptions,
    printing: Printing,
) -> Result<(), CliError> {
    let config = read(path)?;
    let group = transport::group(&config, options).await;
    let tools = group.tools();
    let status = group.status();
    group.close().await;
    if printing.json {
        let servers: Vec<Value> = status.iter().map(|s| status_json(s, &config)).collect();
        output::stdout(&output::json(
            &json!({ "tools": tools, "servers": servers }),
        ));
    } else {
        output::stdout(&output::tools(&tools));
    }
    let mut failed = false;
    for s in status.iter().filter(|s| s.state != ServerState::Connected) {
        failed = true;
        output::stderr(&format!(
            "error: server `{}`: {}",
            s.name,
            s.error.as_deref().unwrap_or("no answer")
        ));
    }
    if failed {
        Err(CliError::Reported)
    } else {
        Ok(())
    }
}
