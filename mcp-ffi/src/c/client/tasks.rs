//! Calling a tool as a task: start it, read its status, wait for its result,
//! cancel it, list tasks. One set of calls over both revisions, as
//! `mcp_core`'s task API: in a 2025-11-25 session the core `tools/call` with
//! `task` and `tasks/*`; under 2026-07-28 the tasks extension
//! (`io.modelcontextprotocol/tasks`), declared by these calls' own requests.

use std::time::Duration;

use mcp_core::client::ToolTaskStart;

use super::*;

/// Starts calling tool `name` as a task, with `arguments_json` (a JSON
/// object, NULL for none) and, when `ttl_ms` is positive, the lifetime the
/// task asks for. `*result_json` is `{"task":{"taskId":…,"status":"working",
/// "pollIntervalMs":…,…}}` when the server made a task — read it with
/// `mcp_client_get_task`, wait with `mcp_client_tool_task_result` — or
/// `{"result":{…}}` (the `CallToolResult`) when the server ran the call at
/// once (under 2026-07-28 the server decides: a tool that does not run as a
/// task answers directly).
///
/// `MCP_ERR_CAPABILITY` when the server offers no tool tasks (2025-11-25:
/// no `tasks.requests.tools.call`; 2026-07-28: the extension is not in its
/// `server/discover` answer); `MCP_ERR_RPC` when it refuses the call.
///
/// # Safety
/// `client` is NULL or a live client; the strings are NULL or
/// NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
/// points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_start_tool_task(
    client: *const Client,
    name: *const c_char,
    arguments_json: *const c_char,
    ttl_ms: i64,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let name = arg!(str name).to_string();
        let arguments: Option<Value> = arg!(opt_json arguments_json);
        let arguments = arguments
            .map(|a| expect_object(a, "arguments_json"))
            .transpose()?;
        let ttl = u64::try_from(ttl_ms)
            .ok()
            .filter(|ms| *ms > 0)
            .map(Duration::from_millis);
        let options = arg!(call_options options);
        out.set(
            &client.call_json(&options, methods::TOOLS_CALL, |core| async move {
                let (key, value) = match core.start_tool_task(&name, arguments, ttl).await? {
                    ToolTaskStart::Task(task) => ("task", serde_json::to_value(task)?),
                    ToolTaskStart::Done(result) => ("result", serde_json::to_value(result)?),
                    _ => {
                        return Err(mcp_core::Error::Protocol(
                            "the call started in a way this library does not know".into(),
                        ));
                    }
                };
                Ok(Map::from_iter([(key.to_string(), value)]))
            })?,
        )
    })
}

/// Reads a task's status (`tasks/get`): `*result_json` is the task
/// (`{"taskId":…,"status":"working"|"input_required"|"completed"|"failed"|
/// "cancelled","statusMessage":…,"pollIntervalMs":…,…}`).
///
/// # Safety
/// `client` is NULL or a live client; `task_id` is NULL or NUL-terminated;
/// `options` is NULL or valid; `result_json` is NULL or points to writable
/// memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_get_task(
    client: *const Client,
    task_id: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: as this function's caller guarantees.
    unsafe {
        super::shapes::text_result(
            client,
            (task_id, "task_id"),
            options,
            result_json,
            methods::TASKS_GET,
            |core, id| async move { core.get_task(&id).await },
        )
    }
}

/// Waits for a tool task to end and writes its `CallToolResult` to
/// `*result_json`. A task that failed is `MCP_ERR_RPC` with the task's
/// error; one that was cancelled is `MCP_ERR_CANCELLED`. Input the task asks
/// for (elicitation, sampling) is answered by the client's callbacks. The
/// wait is bounded by `options->timeout_ms` when set (the task goes on).
///
/// # Safety
/// As for `mcp_client_get_task`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_tool_task_result(
    client: *const Client,
    task_id: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: as this function's caller guarantees.
    unsafe {
        super::shapes::text_result(
            client,
            (task_id, "task_id"),
            options,
            result_json,
            methods::TASKS_RESULT,
            |core, id| async move { core.tool_task_result(&id).await },
        )
    }
}

/// Cancels a task (`tasks/cancel`): `*result_json` receives the task as it
/// is after the cancellation. Cancelling a task that has
/// ended is `MCP_ERR_RPC` (-32602).
///
/// # Safety
/// `client` is NULL or a live client; `task_id` is NULL or NUL-terminated;
/// `options` is NULL or valid; `result_json` is NULL or points to writable
/// memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_cancel_task(
    client: *const Client,
    task_id: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    // SAFETY: as this function's caller guarantees.
    unsafe {
        super::shapes::text_result(
            client,
            (task_id, "task_id"),
            options,
            result_json,
            methods::TASKS_CANCEL,
            |core, id| async move { core.cancel_task(&id).await },
        )
    }
}

/// Lists the tasks this client may see (`tasks/list`, one page from
/// `cursor`, NULL for the first): `*result_json` is
/// `{"tasks":[…],"nextCursor":…}`. Only in a 2025-11-25 session (the
/// 2026-07-28 tasks extension has no list): `MCP_ERR_PROTOCOL` otherwise.
///
/// # Safety
/// `client` is NULL or a live client; `cursor` is NULL or NUL-terminated;
/// `options` is NULL or valid; `result_json` is NULL or points to writable
/// memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_list_tasks(
    client: *const Client,
    cursor: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let cursor = arg!(opt_str cursor).map(str::to_string);
        let options = arg!(call_options options);
        out.set(
            &client.call_json(&options, methods::TASKS_LIST, |core| async move {
                core.list_tasks(cursor).await
            })?,
        )
    })
}
