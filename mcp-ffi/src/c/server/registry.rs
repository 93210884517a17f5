//! Registering and removing tools, resources, resource templates and
//! prompts, before serving or while serving (clients are told), and
//! resource-updated notifications.

use super::*;

/// Registers a tool, or replaces the one with the same name, before or while
/// serving. While serving, connected clients get
/// `notifications/tools/list_changed` (sent in the background: this does not
/// wait for them); the `tools` capability must have been declared when the
/// server was first served (a tool was registered then, or
/// `mcp_server_declare`), otherwise `MCP_ERR_CAPABILITY`.
///
/// `name` must follow SEP-986 (1–128 of `A-Z a-z 0-9 _ - .`);
/// `description` may be NULL; `input_schema_json` is the JSON Schema of the
/// arguments, an object schema (`{"type":"object","properties":{…}}`) served
/// exactly as given and checked against every call before `callback` runs.
/// `userdata` is passed to `callback` and must stay valid until the server is
/// freed (or the tool removed and no call of it running).
///
/// # Safety
/// `server` is NULL or a live server; the strings are NULL or NUL-terminated;
/// `callback` is NULL or a function of the `mcp_tool_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_tool(
    server: *const Server,
    name: *const c_char,
    description: *const c_char,
    input_schema_json: *const c_char,
    callback: ToolCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let name = arg!(str name);
        let description = arg!(opt_str description);
        let schema: Value = arg!(json input_schema_json);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let def = tool_def(
            &server.handlers(),
            name,
            description,
            schema,
            callback,
            Userdata(userdata),
        )?;
        offered(server.core.register_tool(def))
    })
}

/// A registration refused: once served, a kind the server did not offer
/// then cannot be added (its clients were told there is none).
fn offered(registered: mcp_core::Result<()>) -> Result<(), Failure> {
    registered.map_err(|e| Failure::new(MCP_ERR_CAPABILITY, e.to_string()))
}

/// Registers a tool described by `tool_json`, a `Tool` object as
/// `tools/list` shows it: `name` and `inputSchema` are required; `title`,
/// `description`, `outputSchema`, `annotations`, `icons`, `execution`
/// (`{"taskSupport":…}`) and `_meta` are served as given. Otherwise as
/// `mcp_server_add_tool`. With an `outputSchema`, a result's
/// `structuredContent` should match it (clients check it). With
/// `"execution":{"taskSupport":"optional"}` (or `"required"`) the tool runs
/// as a task when a client asks for one (2025-11-25) or allows one
/// (2026-07-28's tasks extension), and the server declares tasks; the
/// callback is the same.
///
/// # Safety
/// As for `mcp_server_add_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_tool_json(
    server: *const Server,
    tool_json: *const c_char,
    callback: ToolCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let tool: Tool = arg!(json tool_json);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        if let Some(key) = tool.extra.keys().next() {
            return Err(Failure::invalid(format!(
                "`tool_json` has `{key}`, which is not a field of Tool"
            )));
        }
        let input_schema = serde_json::to_value(&tool.input_schema)
            .map_err(|e| Failure::internal(format!("could not encode JSON: {e}")))?;
        let mut def = tool_def(
            &server.handlers(),
            &tool.name,
            tool.description.as_deref(),
            input_schema,
            callback,
            Userdata(userdata),
        )?;
        if let Some(title) = tool.title {
            def = def.title(title);
        }
        if let Some(annotations) = tool.annotations {
            def = def.annotations(annotations);
        }
        if let Some(icons) = tool.icons {
            def = def.icons(icons);
        }
        if let Some(support) = tool.execution.and_then(|e| e.task_support) {
            def = def.task_support(support);
        }
        if let Some(meta) = tool.meta {
            def = def.meta(meta);
        }
        if let Some(schema) = tool.output_schema {
            let schema = serde_json::to_value(&schema)
                .map_err(|e| Failure::internal(format!("could not encode JSON: {e}")))?;
            def = def.output_schema(schema)?;
        }
        offered(server.core.register_tool(def))
    })
}

/// Removes a tool; while serving, clients get
/// `notifications/tools/list_changed`. `*removed` (if not NULL) tells
/// whether there was such a tool. Calls of it that are running finish.
///
/// # Safety
/// `server` is NULL or a live server; `name` is NULL or NUL-terminated;
/// `removed` is NULL or points to a writable `bool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_remove_tool(
    server: *const Server,
    name: *const c_char,
    removed: *mut bool,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value removed);
        let server = arg!(handle server);
        out.set(server.core.unregister_tool(arg!(str name)));
        Ok(())
    })
}

/// Registers a resource at a fixed `uri` (or replaces the one there), read by
/// `callback`. `name` is required; `description` and `mime_type` may be NULL.
/// While serving, clients get `notifications/resources/list_changed` (the
/// `resources` capability must have been declared, as for tools).
///
/// # Safety
/// `server` is NULL or a live server; the strings are NULL or NUL-terminated;
/// `callback` is NULL or a function of the `mcp_resource_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_resource(
    server: *const Server,
    uri: *const c_char,
    name: *const c_char,
    description: *const c_char,
    mime_type: *const c_char,
    callback: ResourceCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let uri = arg!(str uri);
        let name = arg!(str name);
        let description = arg!(opt_str description);
        let mime_type = arg!(opt_str mime_type);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let userdata = Userdata(userdata);
        let handlers = server.handlers();
        let mut def = ResourceDef::new(uri, name, move |uri, cx| {
            answer::<ReadResourceResult>(
                handlers.clone(),
                callback,
                userdata,
                cx,
                json!({ "uri": uri }),
                "resource",
            )
        });
        if let Some(d) = description {
            def = def.description(d);
        }
        if let Some(m) = mime_type {
            def = def.mime_type(m);
        }
        offered(server.core.register_resource(def))
    })
}

/// Removes the resource at `uri`; while serving, clients get
/// `notifications/resources/list_changed`. `*removed` (if not NULL) tells
/// whether there was one.
///
/// # Safety
/// As for `mcp_server_remove_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_remove_resource(
    server: *const Server,
    uri: *const c_char,
    removed: *mut bool,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value removed);
        let server = arg!(handle server);
        out.set(server.core.unregister_resource(arg!(str uri)));
        Ok(())
    })
}

/// Registers a resource template (RFC 6570, e.g. `file:///logs/{date}`): a
/// `resources/read` of a URI that no fixed resource has and that matches the
/// template calls `callback` with the URI and the variables' values.
/// `name` is required; `description` and `mime_type` may be NULL. While
/// serving, clients get `notifications/resources/list_changed` (as for
/// resources).
///
/// # Safety
/// As for `mcp_server_add_resource`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_resource_template(
    server: *const Server,
    uri_template: *const c_char,
    name: *const c_char,
    description: *const c_char,
    mime_type: *const c_char,
    callback: ResourceCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let uri_template = arg!(str uri_template);
        let name = arg!(str name);
        let description = arg!(opt_str description);
        let mime_type = arg!(opt_str mime_type);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let userdata = Userdata(userdata);
        let handlers = server.handlers();
        let mut def = ResourceTemplateDef::new(uri_template, name, move |uri, variables, cx| {
            answer::<ReadResourceResult>(
                handlers.clone(),
                callback,
                userdata,
                cx,
                json!({ "uri": uri, "variables": variables }),
                "resource template",
            )
        })?;
        if let Some(d) = description {
            def = def.description(d);
        }
        if let Some(m) = mime_type {
            def = def.mime_type(m);
        }
        offered(server.core.register_resource_template(def))
    })
}

/// Removes the resource template with `uri_template` (as registered); while
/// serving, clients get `notifications/resources/list_changed`. `*removed`
/// (if not NULL) tells whether there was one.
///
/// # Safety
/// As for `mcp_server_remove_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_remove_resource_template(
    server: *const Server,
    uri_template: *const c_char,
    removed: *mut bool,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value removed);
        let server = arg!(handle server);
        out.set(
            server
                .core
                .unregister_resource_template(arg!(str uri_template)),
        );
        Ok(())
    })
}

/// One declared prompt argument, as given in `arguments_json`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PromptArgumentSpec {
    name: String,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    required: Option<bool>,
}

/// Registers a prompt (or replaces the one with the same name), rendered by
/// `callback`. `description` may be NULL; `arguments_json` declares its
/// arguments, `[{"name":"topic","description":"…","required":true}]`, or is
/// NULL for none. While serving, clients get
/// `notifications/prompts/list_changed` (the `prompts` capability must have
/// been declared, as for tools).
///
/// # Safety
/// `server` is NULL or a live server; the strings are NULL or NUL-terminated;
/// `callback` is NULL or a function of the `mcp_prompt_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_add_prompt(
    server: *const Server,
    name: *const c_char,
    description: *const c_char,
    arguments_json: *const c_char,
    callback: PromptCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let name = arg!(str name);
        let description = arg!(opt_str description);
        // SAFETY: as the caller guarantees.
        let arguments: Option<Vec<PromptArgumentSpec>> =
            unsafe { arg_opt_json(arguments_json, "arguments_json") }?;
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let userdata = Userdata(userdata);
        let handlers = server.handlers();
        let mut def = PromptDef::new(name, move |arguments, cx| {
            let params = serde_json::to_value(arguments).unwrap_or_default();
            answer::<GetPromptResult>(handlers.clone(), callback, userdata, cx, params, "prompt")
        });
        if let Some(d) = description {
            def = def.description(d);
        }
        for argument in arguments.into_iter().flatten() {
            def = def.argument(
                argument.name,
                argument.description.unwrap_or_default(),
                argument.required.unwrap_or(false),
            );
        }
        offered(server.core.register_prompt(def))
    })
}

/// Removes a prompt; while serving, clients get
/// `notifications/prompts/list_changed`. `*removed` (if not NULL) tells
/// whether there was one.
///
/// # Safety
/// As for `mcp_server_remove_tool`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_remove_prompt(
    server: *const Server,
    name: *const c_char,
    removed: *mut bool,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value removed);
        let server = arg!(handle server);
        out.set(server.core.unregister_prompt(arg!(str name)));
        Ok(())
    })
}

/// Sends `notifications/resources/updated` for `uri` to every client that
/// subscribed to it; `*notified` (if not NULL) receives how many were told.
/// Callable from any thread, including from callbacks.
///
/// # Safety
/// `server` is NULL or a live server; `uri` is NULL or NUL-terminated;
/// `notified` is NULL or points to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_notify_resource_updated(
    server: *const Server,
    uri: *const c_char,
    notified: *mut usize,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_value notified);
        let server = arg!(handle server);
        let uri = arg!(str uri).to_string();
        let core = server.core.clone();
        let count = run(&server.handle, None, |_| async move {
            Ok(core.notify_resource_updated(&uri).await)
        })?;
        out.set(count);
        Ok(())
    })
}
