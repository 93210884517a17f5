//! Commands over an `mcpServers` configuration file: `--config FILE
//! --server NAME` as a target, `mcp servers list`, `mcp tools list
//! --all-servers`.

use std::ffi::OsString;
use std::path::Path;

use mcp_core::client::group::ServerState;
use mcp_core::client::{GroupConfig, ServerConfig};
use mcp_host::{GroupStatus, ServerStatus};
use serde_json::json;

/// Whether the server answers.
fn answers(status: &ServerStatus) -> bool {
    status.state == ServerState::Connected.as_str()
}

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

/// `mcp servers list --config FILE`: every server, and whether it answers.
/// Exit status 1 when any does not. With --json, the one status text of
/// every face (`mcp_host::GroupStatus`, as C's `mcp_group_status` gives it).
pub(crate) async fn list_servers(
    path: &Path,
    options: ConnectOptions,
    printing: Printing,
) -> Result<(), CliError> {
    let config = read(path)?;
    let group = transport::group(&config, options).await;
    let status = GroupStatus::of(&group, &config);
    group.close().await;
    if printing.json {
        output::stdout(&status.to_json().map_err(CliError::request)?);
    } else {
        let mut text = String::new();
        for s in &status.servers {
            let target = s.target.as_deref().unwrap_or_default();
            let line = match (&s.server_info, s.protocol_version) {
                (Some(info), Some(version)) if answers(s) => format!(
                    "{}  [{}] {target}\n    answers: {} {} ({version}), {} tools\n",
                    s.name, s.kind, info.name, info.version, s.tools
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
        if status.servers.is_empty() {
            text.push_str("(no servers)");
        }
        output::stdout(&text);
    }
    let silent: Vec<&str> = status
        .servers
        .iter()
        .filter(|s| !answers(s))
        .map(|s| s.name.as_str())
        .collect();
    if silent.is_empty() {
        Ok(())
    } else {
        output::stderr(&format!("error: no answer from {}", silent.join(", ")));
        Err(CliError::Reported)
    }
}

/// The servers that do not answer, each named on stderr; exit status 1 if
/// any.
fn report_silent(status: &GroupStatus) -> Result<(), CliError> {
    let mut failed = false;
    for s in status.servers.iter().filter(|s| !answers(s)) {
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
    let status = GroupStatus::of(&group, &config);
    group.close().await;
    if printing.json {
        output::stdout(&output::json(
            &json!({ "tools": tools, "servers": status.servers }),
        ));
    } else {
        output::stdout(&output::tools(&tools));
    }
    report_silent(&status)
}
