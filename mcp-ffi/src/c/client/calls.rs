//! The requests of a connected client that each face writes in its own
//! way (tools, prompts, completion, logging, and any method by name); the
//! method table generates the others (`operations.rs`).

use mcp_core::schema::CompleteRequestParams;

use super::*;

/// Calls a tool (`tools/call`) with `arguments_json`, a JSON object (NULL for
/// none), and writes the `CallToolResult` to `*result_json`
/// (`{"content":[…],"isError":false}`).
///
/// A tool that fails still returns `MCP_OK`, with `"isError": true` in the
/// result; `MCP_ERR_RPC` means the server refused the call itself (e.g. an
/// unknown tool, -32602). Structured content is checked against the tool's
/// output schema if `mcp_client_list_tools` saw one (`MCP_ERR_PROTOCOL` if
/// it does not match). Progress goes to `options->on_progress`.
///
/// # Safety
/// `client` is NULL or a live client; the strings are NULL or
/// NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
/// points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_call_tool(
    client: *const Client,
    name: *const c_char,
    arguments_json: *const c_char,
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
        let options = arg!(call_options options);
        let timeout = options.timeout;
        let json = client.call(&options, |core, sink| async move {
            let params = CallToolRequestParams {
                arguments,
                ..CallToolRequestParams::new(name)
            };
            let result = core
                .call_tool_with(params, request_options(timeout, sink))
                .await?;
            to_json(&result)
        })?;
        out.set(&json)
    })
}

/// Gets a prompt (`prompts/get`) with `arguments_json`, a JSON object of
/// string values (`{"topic":"cats"}`, NULL for none): `*result_json` is the
/// `GetPromptResult` (`{"messages":[{"role":"user","content":{…}}]}`).
///
/// # Safety
/// `client` is NULL or a live client; the strings are NULL or
/// NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
/// points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_get_prompt(
    client: *const Client,
    name: *const c_char,
    arguments_json: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let name = arg!(str name).to_string();
        let arguments: Option<IndexMap<String, String>> = arg!(opt_json arguments_json);
        let options = arg!(call_options options);
        out.set(
            &client.call_json(&options, methods::PROMPTS_GET, |core| async move {
                core.get_prompt(&name, arguments).await
            })?,
        )
    })
}

/// Asks for completions of a prompt argument or a resource template variable
/// (`completion/complete`). `params_json` is the request's params:
/// `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"Al"}}`
/// (or `{"type":"ref/resource","uri":"file:///{path}"}` as `ref`);
/// `*result_json` is the `CompleteResult`
/// (`{"completion":{"values":["Alice","Alan"],"hasMore":false}}`).
/// `MCP_ERR_CAPABILITY` if the server did not declare `completions`.
///
/// # Safety
/// `client` is NULL or a live client; `params_json` is NULL or
/// NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
/// points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_complete(
    client: *const Client,
    params_json: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let params: CompleteRequestParams = arg!(json params_json);
        let options = arg!(call_options options);
        out.set(
            &client.call_json(&options, methods::COMPLETION_COMPLETE, |core| async move {
                core.complete(params).await
            })?,
        )
    })
}

/// Asks the server to send log messages at `level` and above
/// (`logging/setLevel`; `"debug"`, `"info"`, `"notice"`, `"warning"`,
/// `"error"`, `"critical"`, `"alert"`, `"emergency"`). They arrive as
/// `notifications/message` at the notification callback.
///
/// # Safety
/// `client` is NULL or a live client; `level` is NULL or NUL-terminated;
/// `options` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_set_logging_level(
    client: *const Client,
    level: *const c_char,
    options: *const CallOptions,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let level = parse_level(arg!(str level))?;
        let options = arg!(call_options options);
        client.call_unit(&options, methods::LOGGING_SET_LEVEL, |core| async move {
            core.set_logging_level(level).await
        })
    })
}

/// Sends any request, `method` (an `MCP_METHOD_*` name or an extension's)
/// with `params_json` (a JSON object, or NULL for none), and writes the raw
/// result to `*result_json`: for what has no function of its own (one page
/// of a list request with a cursor, extensions). No capability checks are
/// made. Progress goes to
/// `options->on_progress`.
///
/// # Safety
/// `client` is NULL or a live client; the strings are NULL or
/// NUL-terminated; `options` is NULL or valid; `result_json` is NULL or
/// points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_request(
    client: *const Client,
    method: *const c_char,
    params_json: *const c_char,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let method = arg!(str method).to_string();
        let params: Option<Value> = arg!(opt_json params_json);
        let params = params
            .map(|p| expect_object(p, "params_json"))
            .transpose()?;
        let options = arg!(call_options options);
        let timeout = options.timeout;
        let json = client.call(&options, |core, sink| async move {
            let raw = core
                .request_raw(&method, &params, request_options(timeout, sink))
                .await?;
            Ok(raw.get().to_string())
        })?;
        out.set(&json)
    })
}

/// Sends any notification, `method` (an `MCP_METHOD_*` name or an
/// extension's) with `params_json` (a JSON object, or NULL for none).
///
/// # Safety
/// `client` is NULL or a live client; the strings are NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_notify(
    client: *const Client,
    method: *const c_char,
    params_json: *const c_char,
) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let method = arg!(str method).to_string();
        let params: Option<Value> = arg!(opt_json params_json);
        let params = params
            .map(|p| expect_object(p, "params_json"))
            .transpose()?;
        let options = Options::default();
        client.call(&options, |core, _| async move {
            core.peer()
                .notify_raw(&method, &params)
                .await
                .map_err(Failure::from)
        })
    })
}
