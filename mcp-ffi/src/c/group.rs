//! `mcp_group`: every server of an `mcpServers` configuration used as one
//! (see `mcp_core::client::ClientGroup`). Made connected by
//! `mcp_group_connect` (or `_connect_file`), which returns once each server
//! has connected or failed; `mcp_group_status` says which. Tools are named
//! `server__tool`; a call to a tool of a server that failed or went away
//! fails naming the server, and a server that went away is started again by
//! the next call that needs it. No callbacks: every call blocks the calling
//! thread.

use std::ffi::c_char;
use std::sync::{Arc, Mutex};

use mcp_core::client::{Client, ClientGroup, GroupConfig};
use mcp_host::GroupStatus;
use serde_json::{Value, json};
use tokio::runtime::{Handle, Runtime};

use super::error::{Failure, McpResult};
use super::ffi::{arg, boundary, boundary_or, expect_object, take_handle, to_json};
use super::runtime::{new_runtime, run, shut_down};

/// A connected group of servers (`mcp_group` in C).
#[derive(Debug)]
pub struct Group {
    handle: Handle,
    runtime: Mutex<Option<Runtime>>,
    group: Arc<ClientGroup>,
    /// What the group was connected from (each server's `target`).
    config: GroupConfig,
}

fn connect(
    config: GroupConfig,
    name: &str,
    version: &str,
    out: super::ffi::OutHandle<Group>,
) -> Result<(), Failure> {
    let runtime = new_runtime("group")?;
    let handle = runtime.handle().clone();
    let client = Client::builder(name, version);
    let servers = config.clone();
    let group = run(&handle, None, |_| async move {
        Ok(ClientGroup::builder(client).connect(&servers).await)
    })?;
    out.give(Group {
        handle,
        runtime: Mutex::new(Some(runtime)),
        group: Arc::new(group),
        config,
    });
    Ok(())
}

/// Connects to every server of the `mcpServers` configuration
/// `config_json` (JSON text, as Claude Desktop, Cursor and VS Code write
/// it) at once, introducing itself as `name` at `version`; returns when
/// each server has connected or failed (`mcp_group_status`). `*group_out`
/// receives the group, to be freed with `mcp_group_free`. An invalid
/// configuration is `MCP_ERR_INVALID_ARGUMENT`, its message naming the
/// entry.
///
/// # Safety
/// The strings are NULL or NUL-terminated; `group_out` is NULL or points to
/// writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_connect(
    config_json: *const c_char,
    name: *const c_char,
    version: *const c_char,
    group_out: *mut *mut Group,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_handle group_out);
        let text = arg!(str config_json);
        let name = arg!(str name);
        let version = arg!(str version);
        let config = GroupConfig::parse(text).map_err(|e| Failure::invalid(e.to_string()))?;
        connect(config, name, version, out)
    })
}

/// As `mcp_group_connect`, with the configuration read from the file at
/// `path`.
///
/// # Safety
/// As for `mcp_group_connect`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_connect_file(
    path: *const c_char,
    name: *const c_char,
    version: *const c_char,
    group_out: *mut *mut Group,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_handle group_out);
        let path = arg!(str path);
        let name = arg!(str name);
        let version = arg!(str version);
        let config = GroupConfig::from_file(path).map_err(|e| Failure::invalid(e.to_string()))?;
        connect(config, name, version, out)
    })
}

/// Every server's state: `*result_json` is `{"servers":[{"name","type",
/// "target","state","error","protocolVersion","serverInfo","tools",
/// "connections"},…]}` in configuration order (the same text as Python's
/// `ClientGroup.status_json()` and `mcp servers list --json`); `state` is
/// `connecting`, `connected`, `failed`, `disconnected` or `closed`.
///
/// # Safety
/// `group` is NULL or a live group; `result_json` is NULL or points to
/// writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_status(
    group: *const Group,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let group = arg!(handle group);
        out.set(&GroupStatus::of(&group.group, &group.config).to_json()?)
    })
}

/// The merged tool list: `*result_json` is `{"tools":[…]}`, each tool
/// named `server__tool`.
///
/// # Safety
/// As for `mcp_group_status`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_list_tools(
    group: *const Group,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let group = arg!(handle group);
        out.set(&to_json(&json!({ "tools": group.group.tools() }))?)
    })
}

/// Calls merged tool `name` (`server__tool`) with `arguments_json` (a JSON
/// object, or NULL); `*result_json` is the `CallToolResult`. A tool of a
/// server that is not connected fails naming the server.
///
/// # Safety
/// `group` is NULL or a live group; the strings are NULL or NUL-terminated;
/// `result_json` is NULL or points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_call_tool(
    group: *const Group,
    name: *const c_char,
    arguments_json: *const c_char,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let group = arg!(handle group);
        let name = arg!(str name).to_string();
        let arguments: Option<Value> = arg!(opt_json arguments_json);
        let arguments = arguments
            .map(|a| expect_object(a, "arguments_json"))
            .transpose()?;
        let members = group.group.clone();
        let json = run(&group.handle, None, |_| async move {
            let result = members
                .call_tool(&name, arguments)
                .await
                .map_err(Failure::from)?;
            to_json(&result)
        })?;
        out.set(&json)
    })
}

/// Reads `uri` from the server that lists it (or has a matching template);
/// `*result_json` is the `ReadResourceResult`.
///
/// # Safety
/// As for `mcp_group_call_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_read_resource(
    group: *const Group,
    uri: *const c_char,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let group = arg!(handle group);
        let uri = arg!(str uri).to_string();
        let members = group.group.clone();
        let json = run(&group.handle, None, |_| async move {
            let result = members.read_resource(&uri).await.map_err(Failure::from)?;
            to_json(&result)
        })?;
        out.set(&json)
    })
}

/// Closes every connection (child processes are shut down), shuts the
/// group's runtime down and frees it. NULL is a no-op.
///
/// # Safety
/// `group` is NULL or a group from `mcp_group_connect` not yet freed, with
/// no call on it running.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_group_free(group: *mut Group) {
    boundary_or((), || {
        // SAFETY: NULL or a live group, given up by the caller.
        let Some(group) = (unsafe { take_handle(group) }) else {
            return;
        };
        let members = group.group.clone();
        let _ = run(&group.handle, None, |_| async move {
            members.close().await;
            Ok(())
        });
        let runtime = group
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        // The last reference: dropped before the runtime goes.
        drop(group);
        if let Some(runtime) = runtime {
            shut_down(runtime, false);
        }
    })
}
