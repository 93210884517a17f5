//! `mcp_server`: tools, resources, resource templates and prompts answered by
//! C callbacks, served over stdio or Streamable HTTP.

pub mod registry;
pub mod serve;
pub mod skills;

use std::ffi::{c_char, c_void};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::http::StreamableHttpServer;
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolResult, CompleteResultCompletion, GetPromptResult, ReadResourceResult, Tool,
};
use mcp_core::server::{
    PromptDef, ResourceDef, ResourceTemplateDef, Server as CoreServer, ToolDef,
};
use mcp_core::transport::Stdio;
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
use super::ffi::{arg, arg_opt_json, arg_str, boundary, boundary_or, take_handle};
use super::http_options::HttpOptions;
use super::runtime::{new_runtime, run, shut_down};
use super::trace::RequestTrace;

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

/// A setting refused because the server was served already.
fn too_late(e: mcp_core::Error) -> Failure {
    Failure::state(e.to_string())
}

/// Answers `completion/complete`: suggestions for a prompt argument or a
/// resource template variable.
///
/// Called on a thread of the server's blocking pool. `params_json` is the
/// request's params: `{"ref":{"type":"ref/prompt","name":"…"},
/// "argument":{"name":"…","value":"what the user typed"},
/// "context":{"arguments":{…}}}` (or `"ref/resource"` with a `uri`). On
/// success, return `MCP_OK` and set `*result_json` to the completion object
/// (`{"values":["…"],"total":3,"hasMore":false}`, at most 100 values);
/// failures are reported as for `mcp_resource_callback`.
pub type CompletionCallback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        context: *mut Context,
        params_json: *const c_char,
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
    /// The `mcp_core` server: registrations go straight to it, before and
    /// while it is served (it derives the capabilities and tells clients of
    /// changes).
    core: CoreServer,
}

impl fmt::Debug for ServerInner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerInner").finish_non_exhaustive()
    }
}

impl ServerInner {
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
    // Cancelled when this future ends or is dropped: the engine drops a
    // handler whose input-required round ended (2026-07-28), and the
    // callback's question to the client must then return, not wait forever.
    let abandoned = CancellationToken::new();
    let _abandon_on_drop = abandoned.clone().drop_guard();
    let trace = RequestTrace::current();
    let task = tokio::task::spawn_blocking(move || {
        let Some(_running) = gate.enter() else {
            return Reply::refused("the server is shutting down");
        };
        let mut context = Context {
            cx,
            handle,
            abandoned,
            trace,
        };
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
        let out = arg!(out_handle server_out);
        let name = arg!(str name);
        let version = arg!(str version);
        let runtime = new_runtime("server")?;
        out.give(Server(Arc::new(ServerInner {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            gate: Arc::new(Gate::default()),
            handlers: Arc::default(),
            serving: Arc::default(),
            cleanups: Cleanups::default(),
            stop: CancellationToken::new(),
            core: CoreServer::builder(name, version).build(),
        })));
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
/// callbacks, whatever the server serves (stdio, HTTP or both). That
/// callback finishes normally and its answer still reaches the client; once
/// it has returned, the sessions (stdio and HTTP) end, a
/// `mcp_server_serve_stdio` or `mcp_server_wait` blocked on another thread
/// returns `MCP_OK` (the server is gone: do not free it again), the runtime
/// shuts down in the background, and the cleanups run.
///
/// # Safety
/// `server` is NULL or a server from `mcp_server_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_free(server: *mut Server) {
    boundary_or((), || {
        // SAFETY: NULL or a live server from `mcp_server_new`, given up by
        // the caller.
        let Some(server) = (unsafe { take_handle(server) }) else {
            return;
        };
        let server: Arc<ServerInner> = server.0;
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
    boundary(|| arg!(handle server).cleanups.register(callback, userdata))
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
        let server = arg!(handle server);
        let instructions = arg!(str instructions);
        server.core.set_instructions(instructions).map_err(too_late)
    })
}

/// Sets the callback that answers `completion/complete` (see
/// `mcp_completion_callback`), and so declares the `completions`
/// capability. Only before the server is first served.
///
/// # Safety
/// `server` is NULL or a live server; `callback` is NULL or a function of
/// the `mcp_completion_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_server_set_completion(
    server: *const Server,
    callback: CompletionCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| {
        let server = arg!(handle server);
        let callback = callback.ok_or_else(|| Failure::null("callback"))?;
        let userdata = Userdata(userdata);
        let handlers = server.handlers();
        server
            .core
            .set_completion(move |params, cx| {
                let params = serde_json::to_value(params).unwrap_or_default();
                answer::<CompleteResultCompletion>(
                    handlers.clone(),
                    callback,
                    userdata,
                    cx,
                    params,
                    "completion",
                )
            })
            .map_err(too_late)
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
        let server = arg!(handle server);
        let known = MCP_CAPABILITY_TOOLS | MCP_CAPABILITY_RESOURCES | MCP_CAPABILITY_PROMPTS;
        if capabilities & !known != 0 {
            return Err(Failure::invalid(format!(
                "unknown capability bits {:#x}",
                capabilities & !known
            )));
        }
        let core = &server.core;
        for (bit, offer) in [
            (
                MCP_CAPABILITY_TOOLS,
                CoreServer::offer_tools as fn(&CoreServer) -> _,
            ),
            (MCP_CAPABILITY_RESOURCES, CoreServer::offer_resources),
            (MCP_CAPABILITY_PROMPTS, CoreServer::offer_prompts),
        ] {
            if capabilities & bit != 0 {
                offer(core).map_err(too_late)?;
            }
        }
        Ok(())
    })
}
