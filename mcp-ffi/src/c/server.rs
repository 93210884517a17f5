//! `mcp_server`: tools, resources, resource templates and prompts answered by
//! C callbacks, served over stdio or Streamable HTTP.

use std::ffi::{c_char, c_void};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use indexmap::IndexMap;
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{CallToolResult, GetPromptResult, ReadResourceResult, Tool};
use mcp_core::server::{
    PromptDef, ResourceDef, ResourceTemplateDef, Server as CoreServer, ToolDef,
};
use mcp_core::transport::Stdio;
use mcp_core::transport::http::{HttpServerConfig, StreamableHttpServer};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::runtime::{Handle, Runtime};
use tokio_util::sync::CancellationToken;

use super::callback::{Counter, Gate, Reply, Userdata};
use super::cleanup::{self, Cleanups, FreeCallback};
use super::context::Context;
use super::cstring::c_string_lossy;
use super::error::{
    CallbackResult, Failure, MCP_ERR_CAPABILITY, MCP_ERR_RPC, MCP_ERR_TIMEOUT, MCP_ERR_TRANSPORT,
    MCP_OK, McpResult,
};
use super::ffi::{
    OutValue, arg_handle, arg_json, arg_opt_json, arg_opt_str, arg_str, boundary, boundary_or,
};
use super::http_options::{HttpOptions, parse_address};
use super::runtime::{new_runtime, run, shut_down};

/// Answers `tools/call` for one tool.
///
/// Called on a thread of the server's blocking pool (never an engine
/// thread), possibly on several threads at once when calls overlap.
/// `arguments_json` is the call's `arguments` object, already validated
/// against the tool's input schema (`{}` when the client sent none).
///
/// On success, return `MCP_OK` and set `*result_json` to a `CallToolResult`
/// (`{"content":[{"type":"text","text":"…"}]}`) made with `mcp_string_new`;
/// the library takes and frees it. On failure return any other code (e.g.
/// `MCP_ERR_CALLBACK`), optionally setting `*result_json` to a message made
/// with `mcp_string_new`: the client gets a result with `"isError": true` and
/// that message as text (the model sees it and may retry). To refuse the
/// call itself with a JSON-RPC error instead, return `MCP_ERR_RPC` with
/// `*result_json` set to the error object
/// (`{"code":-32602,"message":"…","data":{…}}`), sent as given. `context` is
/// valid until the callback returns.
///
/// Arguments that do not match the tool's input schema never reach the
/// callback: the client gets a result with `"isError": true` whose text
/// begins `Invalid arguments` and names what failed (so that a model can
/// correct its call), not a JSON-RPC error.
pub type ToolCallback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        context: *mut Context,
        arguments_json: *const c_char,
        result_json: *mut *mut c_char,
    ) -> CallbackResult,
>;

/// Answers `resources/read` for one resource or resource template.
///
/// Called on a thread of the server's blocking pool. `params_json` is
/// `{"uri":"…"}` for a resource and `{"uri":"…","variables":{"name":"value"}}`
/// for a template (the values the URI gave the template's variables).
///
/// On success, return `MCP_OK` and set `*result_json` to a
/// `ReadResourceResult` (`{"contents":[{"uri":"…","text":"…"}]}`) made with
/// `mcp_string_new`. On failure return another code; the client gets a
/// JSON-RPC error: with `MCP_ERR_RPC`, `*result_json` may be a JSON-RPC error
/// object (`{"code":-32002,"message":"…","data":{…}}`) sent as given;
/// otherwise `*result_json` may be a plain message, sent with code -32603.
pub type ResourceCallback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        context: *mut Context,
        params_json: *const c_char,
        result_json: *mut *mut c_char,
    ) -> CallbackResult,
>;

/// Answers `prompts/get` for one prompt.
///
/// Called on a thread of the server's blocking pool. `arguments_json` is the
/// object of string arguments (`{"topic":"…"}`, `{}` when none); required
/// arguments have been checked. On success, return `MCP_OK` and set
/// `*result_json` to a `GetPromptResult` (`{"messages":[…]}`); failures are
/// reported as for `mcp_resource_callback`.
pub type PromptCallback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        context: *mut Context,
        arguments_json: *const c_char,
        result_json: *mut *mut c_char,
    ) -> CallbackResult,
>;

/// How long the shutdown of a server freed from its own callback waits for
/// answers to be handed over and for serving calls to return.
const TEARDOWN_WAIT: Duration = Duration::from_secs(5);
/// The moment the engine needs to queue an answer whose handler has ended.
const ANSWER_GRACE: Duration = Duration::from_millis(50);

/// `mcp_server_declare`: declare the `tools` capability.
pub const MCP_CAPABILITY_TOOLS: u32 = 1;
/// `mcp_server_declare`: declare the `resources` capability.
pub const MCP_CAPABILITY_RESOURCES: u32 = 2;
/// `mcp_server_declare`: declare the `prompts` capability.
pub const MCP_CAPABILITY_PROMPTS: u32 = 4;

/// An MCP server: registered tools, resources, resource templates and
/// prompts, answered by C callbacks. It owns a multi-thread runtime (two
/// engine threads plus a pool of threads for callbacks), made by
/// `mcp_server_new` and shut down by `mcp_server_free`.
pub struct Server(Arc<ServerInner>);

impl fmt::Debug for Server {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Server")
            .field("stopped", &self.stop.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl std::ops::Deref for Server {
    type Target = ServerInner;

    fn deref(&self) -> &ServerInner {
        &self.0
    }
}

/// What a server handle owns; shared with what outlives the handle for a
/// moment (a free from inside a callback, a serving loop on another thread).
pub struct ServerInner {
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    gate: Arc<Gate>,
    /// Requests whose handler (callback and answer) is still at work.
    handlers: Arc<Counter>,
    /// `mcp_server_serve_stdio` calls in progress.
    serving: Arc<Counter>,
    /// Run once the server is gone (`mcp_server_on_free`).
    cleanups: Cleanups,
    stop: CancellationToken,
    state: Mutex<ServerState>,
}

impl fmt::Debug for ServerInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerInner").finish_non_exhaustive()
    }
}

/// Definitions wait here until the server is first served (or changed at run
/// time); from then on the `mcp_core` server holds them.
struct ServerState {
    name: String,
    version: String,
    instructions: Option<String>,
    declared: u32,
    built: Option<Built>,
    tools: IndexMap<String, ToolDef>,
    resources: IndexMap<String, ResourceDef>,
    templates: Vec<ResourceTemplateDef>,
    prompts: IndexMap<String, PromptDef>,
}

#[derive(Clone)]
struct Built {
    server: CoreServer,
    /// The capabilities declared when it was built (`MCP_CAPABILITY_*`).
    offers: u32,
}

impl ServerInner {
    fn lock(&self) -> MutexGuard<'_, ServerState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The `mcp_core` server, built from the definitions on first use.
    fn built(&self) -> Built {
        let mut state = self.lock();
        if let Some(built) = &state.built {
            return built.clone();
        }
        let mut builder = CoreServer::builder(&state.name, &state.version);
        if let Some(instructions) = state.instructions.take() {
            builder = builder.instructions(instructions);
        }
        let mut offers = state.declared;
        if !state.tools.is_empty() {
            offers |= MCP_CAPABILITY_TOOLS;
        }
        if !state.resources.is_empty() || !state.templates.is_empty() {
            offers |= MCP_CAPABILITY_RESOURCES;
        }
        if !state.prompts.is_empty() {
            offers |= MCP_CAPABILITY_PROMPTS;
        }
        if offers & MCP_CAPABILITY_TOOLS != 0 {
            builder = builder.offer_tools();
        }
        if offers & MCP_CAPABILITY_RESOURCES != 0 {
            builder = builder.offer_resources();
        }
        if offers & MCP_CAPABILITY_PROMPTS != 0 {
            builder = builder.offer_prompts();
        }
        for (_, tool) in state.tools.drain(..) {
            builder = builder.tool(tool);
        }
        for (_, resource) in state.resources.drain(..) {
            builder = builder.resource(resource);
        }
        for template in state.templates.drain(..) {
            builder = builder.resource_template(template);
        }
        for (_, prompt) in state.prompts.drain(..) {
            builder = builder.prompt(prompt);
        }
        let built = Built {
            server: builder.build(),
            offers,
        };
        state.built = Some(built.clone());
        built
    }

    fn handlers(&self) -> Handlers {
        Handlers {
            gate: self.gate.clone(),
            busy: self.handlers.clone(),
        }
    }

    /// Shuts the runtime down (waiting for its threads unless called from
    /// one of them).
    fn shut_down_runtime(&self, from_own_callback: bool) {
        let runtime = self
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(runtime) = runtime {
            shut_down(runtime, from_own_callback);
        }
    }

    /// The rest of a free made from inside one of this server's callbacks,
    /// on a thread of its own: once every callback (the freeing one too) has
    /// returned and every answer has been handed to the engine, the sessions
    /// end (their queued answers are still written), serving calls return,
    /// and the runtime shuts down.
    fn tear_down_after_callbacks(&self) {
        self.gate.close_and_wait();
        self.handlers.wait_idle(TEARDOWN_WAIT);
        // The engine queues an answer in the same step as its handler ends.
        std::thread::sleep(ANSWER_GRACE);
        self.stop.cancel();
        self.serving.wait_idle(TEARDOWN_WAIT);
        std::thread::sleep(ANSWER_GRACE);
        self.shut_down_runtime(false);
        cleanup::run(self.cleanups.take());
    }

    fn not_stopped(&self) -> Result<(), Failure> {
        if self.stop.is_cancelled() {
            Err(Failure::state(
                "the server was stopped (mcp_server_stop); make a new one to serve again",
            ))
        } else {
            Ok(())
        }
    }

    fn before_serving(&self, what: &str) -> Result<MutexGuard<'_, ServerState>, Failure> {
        let state = self.lock();
        if state.built.is_some() {
            return Err(Failure::state(format!(
                "{what} must be set before the server is first served or changed at run time"
            )));
        }
        Ok(state)
    }

    /// Adds a definition: to the pending ones before the server is built,
    /// otherwise to the running server (which tells its clients).
    fn add<D: Send + 'static>(
        &self,
        capability: u32,
        kind: &str,
        def: D,
        pending: impl FnOnce(&mut ServerState, D),
        running: impl FnOnce(CoreServer, D) -> BoxFuture<'static, Result<(), Failure>>,
    ) -> Result<(), Failure> {
        let built = {
            let mut state = self.lock();
            match &state.built {
                None => {
                    pending(&mut state, def);
                    return Ok(());
                }
                Some(built) => built.clone(),
            }
        };
        if built.offers & capability == 0 {
            return Err(Failure::new(
                MCP_ERR_CAPABILITY,
                format!(
                    "the server did not declare `{kind}` when it was first served; call mcp_server_declare before serving to add {kind} at run time"
                ),
            ));
        }
        run(&self.handle, None, |_| running(built.server, def))
    }

    fn remove(
        &self,
        take_pending: impl FnOnce(&mut ServerState) -> bool,
        running: impl FnOnce(CoreServer) -> BoxFuture<'static, bool>,
    ) -> Result<bool, Failure> {
        let built = {
            let mut state = self.lock();
            match &state.built {
                None => return Ok(take_pending(&mut state)),
                Some(built) => built.clone(),
            }
        };
        let removal = running(built.server);
        run(&self.handle, None, |_| async move { Ok(removal.await) })
    }
}

/// The function the three server callback types hold.
type HandlerCallback = unsafe extern "C" fn(
    *mut c_void,
    *mut Context,
    *const c_char,
    *mut *mut c_char,
) -> CallbackResult;

/// What the handlers of requests share: the gate of their callbacks and the
/// count of those at work.
#[derive(Clone, Debug)]
struct Handlers {
    gate: Arc<Gate>,
    busy: Arc<Counter>,
}

/// Runs a server callback on the blocking pool and collects its reply.
async fn invoke(
    handlers: Handlers,
    callback: HandlerCallback,
    userdata: Userdata,
    cx: mcp_core::server::Context,
    params: String,
) -> Result<Reply, String> {
    let Handlers { gate, busy } = handlers;
    let _busy = busy.enter();
    let handle = Handle::current();
    let task = tokio::task::spawn_blocking(move || {
        let Some(_running) = gate.enter() else {
            return Reply::refused("the server is shutting down");
        };
        let mut context = Context { cx, handle };
        let params = c_string_lossy(&params);
        Reply::collect(|out| {
            // SAFETY: `callback` is the caller's function of the documented
            // type; `userdata` is theirs; `context` and `params` live until
            // the call returns; `out` is a valid `char **`.
            unsafe { callback(userdata.ptr(), &mut context, params.as_ptr(), out) }
        })
    });
    task.await
        .map_err(|e| format!("the callback's task failed: {e}"))
}

fn tool_def(
    handlers: &Handlers,
    name: &str,
    description: Option<&str>,
    input_schema: Value,
    callback: HandlerCallback,
    userdata: Userdata,
) -> Result<ToolDef, Failure> {
    let handlers = handlers.clone();
    let def = ToolDef::fallible(name, input_schema, move |arguments, cx| {
        let handlers = handlers.clone();
        async move {
            let params = Value::Object(arguments).to_string();
            match invoke(handlers, callback, userdata, cx, params).await {
                Ok(reply) => tool_result(reply),
                Err(e) => Ok(CallToolResult::error(e)),
            }
        }
    })?;
    Ok(match description {
        Some(d) => def.description(d),
        None => def,
    })
}

/// A tool callback's reply: its result, a tool error (`isError`) for a
/// failure, or the JSON-RPC error it gave with `MCP_ERR_RPC`.
fn tool_result(reply: Reply) -> Result<CallToolResult, RpcError> {
    if reply.is(MCP_ERR_RPC) {
        if let Some(error) = reply.rpc_error_object() {
            return Err(error);
        }
    }
    if !reply.is(MCP_OK) {
        return Ok(CallToolResult::error(reply.error_message("tool")));
    }
    let Some(text) = reply.text else {
        return Ok(CallToolResult::error(
            "the tool callback returned MCP_OK without setting its result",
        ));
    };
    Ok(serde_json::from_str(&text).unwrap_or_else(|e| {
        CallToolResult::error(format!(
            "the tool callback's result does not decode as a CallToolResult: {e}"
        ))
    }))
}

async fn answer<T: serde::de::DeserializeOwned>(
    handlers: Handlers,
    callback: HandlerCallback,
    userdata: Userdata,
    cx: mcp_core::server::Context,
    params: Value,
    what: &'static str,
) -> Result<T, RpcError> {
    invoke(handlers, callback, userdata, cx, params.to_string())
        .await
        .map_err(RpcError::internal)?
        .into_result(what)
}

/// Makes a server named `name` at `version` (sent to clients when they
/// initialize) and its runtime; `*server_out` receives it, to be freed with
/// `mcp_server_free`.
///
/// # Safety
/// `name` and `version` are NULL or NUL-terminated; `server_out` is NULL or
/// points to writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_new(
    name: *const c_char,
    version: *const c_char,
    server_out: *mut *mut Server,
) -> McpResult {
    boundary(|| {
        if server_out.is_null() {
            return Err(Failure::null("server_out"));
        }
        // SAFETY: not NULL and writable, as the caller guarantees.
        unsafe { server_out.write(std::ptr::null_mut()) };
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?;
        // SAFETY: as the caller guarantees.
        let version = unsafe { arg_str(version, "version") }?;
        let runtime = new_runtime("server")?;
        let server = Box::new(Server(Arc::new(ServerInner {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            gate: Arc::new(Gate::default()),
            handlers: Arc::default(),
            serving: Arc::default(),
            cleanups: Cleanups::default(),
            stop: CancellationToken::new(),
            state: Mutex::new(ServerState {
                name: name.to_string(),
                version: version.to_string(),
                instructions: None,
                declared: 0,
                built: None,
                tools: IndexMap::new(),
                resources: IndexMap::new(),
                templates: Vec::new(),
                prompts: IndexMap::new(),
            }),
        })));
        // SAFETY: checked above.
        unsafe { server_out.write(Box::into_raw(server)) };
        Ok(())
    })
}

/// Stops the server (as `mcp_server_stop`), waits for callbacks that are
/// running to return, shuts its runtime down and frees it. After it returns
/// no callback of this server runs (except the one calling it, below). NULL
/// is a no-op.
///
/// No other call on this server may be running or start, with one
/// exception: it may be called from inside one of this server's own
/// callbacks while `mcp_server_serve_stdio` runs on another thread. That
/// callback finishes normally and its answer still reaches the client; once
/// it has returned, the sessions end, `mcp_server_serve_stdio` returns
/// `MCP_OK` (the server is gone: do not free it again), and the runtime
/// shuts down in the background.
///
/// # Safety
/// `server` is NULL or a server from `mcp_server_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_free(server: *mut Server) {
    boundary_or((), || {
        if server.is_null() {
            return;
        }
        // SAFETY: a live server from `mcp_server_new`, given up by the caller.
        let server: Arc<ServerInner> = unsafe { Box::from_raw(server) }.0;
        if server.gate.current_thread_inside() {
            // From one of its own callbacks: no new callbacks start, the
            // others are waited for, and the rest waits until this one has
            // returned, so that its answer still reaches the client.
            server.gate.close_and_wait();
            let background = server.clone();
            let spawned = std::thread::Builder::new()
                .name("mcp-server-free".into())
                .spawn(move || background.tear_down_after_callbacks());
            if spawned.is_err() {
                server.stop.cancel();
                server.shut_down_runtime(true);
            }
            return;
        }
        server.stop.cancel();
        server.gate.close_and_wait();
        server.shut_down_runtime(false);
        cleanup::run(server.cleanups.take());
    });
}

/// Registers `callback` to be called with `userdata` once the server is
/// freed and none of its callbacks can run any more: the place to release
/// what the callbacks' `userdata` point to. Cleanups run last registered
/// first (see `mcp_free_callback` for the thread). Callable any time before
/// `mcp_server_free`.
///
/// # Safety
/// `server` is NULL or a live server; `callback` is NULL or a function of
/// the `mcp_free_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_on_free(
    server: *const Server,
    callback: FreeCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        server.cleanups.push(callback, Userdata(userdata));
        Ok(())
    })
}

/// Sets the instructions sent to clients when they initialize (hints for the
/// model on how to use the server). Only before the server is first served.
///
/// # Safety
/// `server` is NULL or a live server; `instructions` is NULL or
/// NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_instructions(
    server: *const Server,
    instructions: *const c_char,
) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let instructions = unsafe { arg_str(instructions, "instructions") }?;
        server.before_serving("instructions")?.instructions = Some(instructions.to_string());
        Ok(())
    })
}

/// Declares capabilities (`MCP_CAPABILITY_TOOLS | MCP_CAPABILITY_RESOURCES |
/// MCP_CAPABILITY_PROMPTS`) even if nothing of that kind is registered yet,
/// so that such items can be added while serving. A kind with anything
/// registered before the server is first served is declared anyway. Only
/// before the server is first served.
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_declare(server: *const Server, capabilities: u32) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        let known = MCP_CAPABILITY_TOOLS | MCP_CAPABILITY_RESOURCES | MCP_CAPABILITY_PROMPTS;
        if capabilities & !known != 0 {
            return Err(Failure::invalid(format!(
                "unknown capability bits {:#x}",
                capabilities & !known
            )));
        }
        server.before_serving("capabilities")?.declared |= capabilities;
        Ok(())
    })
}

/// Registers a tool, or replaces the one with the same name. While serving,
/// connected clients get `notifications/tools/list_changed` (the `tools`
/// capability must have been declared: a tool was registered before serving,
/// or `mcp_server_declare`; otherwise `MCP_ERR_CAPABILITY`).
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
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?;
        // SAFETY: as the caller guarantees.
        let description = unsafe { arg_opt_str(description, "description") }?;
        // SAFETY: as the caller guarantees.
        let schema: Value = unsafe { arg_json(input_schema_json, "input_schema_json") }?;
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let def = tool_def(
            &server.handlers(),
            name,
            description,
            schema,
            callback,
            Userdata(userdata),
        )?;
        add_tool(server, def)
    })
}

/// Adds a tool to the pending definitions or to the running server.
fn add_tool(server: &ServerInner, def: ToolDef) -> Result<(), Failure> {
    server.add(
        MCP_CAPABILITY_TOOLS,
        "tools",
        def,
        |state, def| {
            state.tools.insert(def.tool().name.clone(), def);
        },
        |core: CoreServer, def| -> BoxFuture<'static, _> {
            Box::pin(async move { core.add_tool(def).await.map_err(Failure::from) })
        },
    )
}

/// Registers a tool described by `tool_json`, a `Tool` object as
/// `tools/list` shows it: `name` and `inputSchema` are required; `title`,
/// `description`, `outputSchema`, `annotations`, `icons`, `execution`
/// (`{"taskSupport":…}`) and `_meta` are served as given. Otherwise as
/// `mcp_server_add_tool`. With an `outputSchema`, a result's
/// `structuredContent` should match it (clients check it).
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
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let tool: Tool = unsafe { arg_json(tool_json, "tool_json") }?;
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
        add_tool(server, def)
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
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(removed) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?.to_string();
        let key = name.clone();
        let was = server.remove(
            move |state| state.tools.shift_remove(&key).is_some(),
            move |core: CoreServer| -> BoxFuture<'static, bool> {
                Box::pin(async move { core.remove_tool(&name).await })
            },
        )?;
        out.set(was);
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
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let uri = unsafe { arg_str(uri, "uri") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?;
        // SAFETY: as the caller guarantees.
        let description = unsafe { arg_opt_str(description, "description") }?;
        // SAFETY: as the caller guarantees.
        let mime_type = unsafe { arg_opt_str(mime_type, "mime_type") }?;
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
        server.add(
            MCP_CAPABILITY_RESOURCES,
            "resources",
            def,
            |state, def| {
                state.resources.insert(def.resource().uri.clone(), def);
            },
            |core: CoreServer, def| -> BoxFuture<'static, _> {
                Box::pin(async move { core.add_resource(def).await.map_err(Failure::from) })
            },
        )
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
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(removed) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let uri = unsafe { arg_str(uri, "uri") }?.to_string();
        let key = uri.clone();
        let was = server.remove(
            move |state| state.resources.shift_remove(&key).is_some(),
            move |core: CoreServer| -> BoxFuture<'static, bool> {
                Box::pin(async move { core.remove_resource(&uri).await })
            },
        )?;
        out.set(was);
        Ok(())
    })
}

/// Registers a resource template (RFC 6570, e.g. `file:///logs/{date}`): a
/// `resources/read` of a URI that no fixed resource has and that matches the
/// template calls `callback` with the URI and the variables' values.
/// `name` is required; `description` and `mime_type` may be NULL. Templates
/// can only be added before the server is first served.
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
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let uri_template = unsafe { arg_str(uri_template, "uri_template") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?;
        // SAFETY: as the caller guarantees.
        let description = unsafe { arg_opt_str(description, "description") }?;
        // SAFETY: as the caller guarantees.
        let mime_type = unsafe { arg_opt_str(mime_type, "mime_type") }?;
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
        server
            .before_serving("resource templates")?
            .templates
            .push(def);
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
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?;
        // SAFETY: as the caller guarantees.
        let description = unsafe { arg_opt_str(description, "description") }?;
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
        server.add(
            MCP_CAPABILITY_PROMPTS,
            "prompts",
            def,
            |state, def| {
                state.prompts.insert(def.prompt().name.clone(), def);
            },
            |core: CoreServer, def| -> BoxFuture<'static, _> {
                Box::pin(async move { core.add_prompt(def).await.map_err(Failure::from) })
            },
        )
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
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(removed) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let name = unsafe { arg_str(name, "name") }?.to_string();
        let key = name.clone();
        let was = server.remove(
            move |state| state.prompts.shift_remove(&key).is_some(),
            move |core: CoreServer| -> BoxFuture<'static, bool> {
                Box::pin(async move { core.remove_prompt(&name).await })
            },
        )?;
        out.set(was);
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
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(notified) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let uri = unsafe { arg_str(uri, "uri") }?.to_string();
        let built = server.lock().built.clone();
        let count = match built {
            None => 0,
            Some(built) => run(&server.handle, None, |_| async move {
                Ok(built.server.notify_resource_updated(&uri).await)
            })?,
        };
        out.set(count);
        Ok(())
    })
}

/// Serves one client over this process's stdin and stdout, blocking the
/// calling thread until the client closes the connection (`MCP_OK`) or
/// `mcp_server_stop` is called from another thread or a callback (`MCP_OK`).
/// Nothing else may write to stdout meanwhile (log to stderr).
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_serve_stdio(server: *const Server) -> McpResult {
    boundary(|| {
        // The server may be freed from one of its callbacks while this
        // runs: keep what it owns alive until this returns.
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?.0.clone();
        server.not_stopped()?;
        let _serving = server.serving.enter();
        let core = server.built().server;
        let stop = server.stop.clone();
        run(&server.handle, None, |_| async move {
            let session = core.serve(Stdio::new())?;
            tokio::select! {
                _ = session.closed() => {}
                () = stop.cancelled() => session.close().await,
            }
            Ok(())
        })
    })
}

/// Starts serving over Streamable HTTP at `address` (`"127.0.0.1:8080"`, or
/// port 0 for any free port) with the endpoint at `/mcp` and the default
/// options, and returns at once; `*port_out` (if not NULL) receives the bound
/// port. Only `Host`/`Origin` headers naming a loopback address are accepted
/// (DNS-rebinding protection), so bind to a loopback address; for other
/// options use `mcp_server_start_http`.
///
/// # Safety
/// `server` is NULL or a live server; `address` is NULL or NUL-terminated;
/// `port_out` is NULL or points to a writable `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_serve_http(
    server: *const Server,
    address: *const c_char,
    port_out: *mut u16,
) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(port_out) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let address = parse_address(unsafe { arg_str(address, "address") }?)?;
        out.set(start_http(server, address, HttpServerConfig::default())?);
        Ok(())
    })
}

/// Starts serving over Streamable HTTP with the endpoint at `/mcp`, as
/// `options` say (NULL: the defaults, see `mcp_http_options`), and returns
/// at once; `*port_out` (if not NULL) receives the bound port. Requests are
/// served on the server's runtime until `mcp_server_stop` (then sessions
/// end, requests in progress are answered, and `mcp_server_wait` returns)
/// or `mcp_server_free`. May be called several times (several listeners).
///
/// # Safety
/// `server` is NULL or a live server; `options` is NULL or live options;
/// `port_out` is NULL or points to a writable `uint16_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_start_http(
    server: *const Server,
    options: *const HttpOptions,
    port_out: *mut u16,
) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let out = unsafe { OutValue::new(port_out) };
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        // SAFETY: as the caller guarantees.
        let (address, config) = match unsafe { options.as_ref() } {
            Some(options) => (options.address, options.config.clone()),
            None => (
                SocketAddr::from(([127, 0, 0, 1], 0)),
                HttpServerConfig::default(),
            ),
        };
        out.set(start_http(server, address, config)?);
        Ok(())
    })
}

/// Binds `address` and serves HTTP in the background until the server
/// stops; returns the bound port.
fn start_http(
    server: &ServerInner,
    address: SocketAddr,
    config: HttpServerConfig,
) -> Result<u16, Failure> {
    server.not_stopped()?;
    let core = server.built().server;
    let stop = server.stop.clone();
    let serving = server.serving.enter();
    run(&server.handle, None, |_| async move {
        let listener = tokio::net::TcpListener::bind(address)
            .await
            .map_err(|e| Failure::new(MCP_ERR_TRANSPORT, format!("cannot bind {address}: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Failure::new(MCP_ERR_TRANSPORT, e.to_string()))?
            .port();
        let http = StreamableHttpServer::new(core, config);
        tokio::spawn(async move {
            // On stop, sessions end and requests in progress are answered
            // before this returns. A listener that fails has nobody to tell.
            let _ = http.serve_until(listener, stop).await;
            drop(serving);
        });
        Ok(port)
    })
}

/// Waits until the server has stopped: `mcp_server_stop` was called (from
/// any thread or callback) and everything it was serving has finished —
/// `mcp_server_serve_stdio` returned, HTTP sessions ended and their requests
/// in progress were answered. `timeout_ms` bounds the wait (negative: no
/// bound); `MCP_ERR_TIMEOUT` if the server is still serving then. The server
/// must be freed afterwards as usual (not from another thread meanwhile).
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_wait(server: *const Server, timeout_ms: i64) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        let limit = u64::try_from(timeout_ms).ok().map(Duration::from_millis);
        let started = std::time::Instant::now();
        let stop = server.stop.clone();
        let stopped = run(&server.handle, None, |_| async move {
            match limit {
                Some(limit) => Ok(tokio::time::timeout(limit, stop.cancelled()).await.is_ok()),
                None => {
                    stop.cancelled().await;
                    Ok(true)
                }
            }
        })?;
        let idle = stopped
            && match limit {
                Some(limit) => server
                    .serving
                    .wait_idle(limit.saturating_sub(started.elapsed())),
                None => loop {
                    if server.serving.wait_idle(Duration::from_secs(3600)) {
                        break true;
                    }
                },
            };
        if idle {
            return Ok(());
        }
        Err(Failure::new(
            MCP_ERR_TIMEOUT,
            format!("the server was still serving after {timeout_ms} ms"),
        ))
    })
}

/// Stops serving: `mcp_server_serve_stdio` ends its session and returns, HTTP
/// listeners close. Sessions already open over HTTP end when the server is
/// freed. Callable from any thread, including from this server's callbacks;
/// a stopped server cannot serve again. Stopping twice is fine.
///
/// # Safety
/// `server` is NULL or a live server.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_stop(server: *const Server) -> McpResult {
    boundary(|| {
        // SAFETY: as the caller guarantees.
        let server = unsafe { arg_handle(server, "server") }?;
        server.stop.cancel();
        Ok(())
    })
}
