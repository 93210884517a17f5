//! `mcp_client`: connects to a server over stdio (a child process) or
//! Streamable HTTP, and makes requests; C callbacks answer the server's
//! requests (sampling, elicitation) and receive its notifications.

pub mod calls;
pub mod setup;
pub mod tasks;

use std::ffi::{c_char, c_void};
use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use indexmap::IndexMap;
use mcp_core::ProtocolVersion;
use mcp_core::client::{Client as CoreClient, ClientBuilder, Negotiation};
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolRequestParams, CreateMessageResult, ElicitResult, ProgressNotificationParams, Root,
    ServerNotification, methods,
};
use mcp_core::session::RequestOptions;
use mcp_core::transport::ChildProcess;
use mcp_core::transport::http::StreamableHttpClient;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::runtime::{Handle, Runtime};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tokio_util::sync::CancellationToken;

use super::callback::{Gate, Reply, Userdata};
use super::cancel::CancelToken;
use super::cleanup::{self, Cleanups, FreeCallback};
use super::context::parse_level;
use super::cstring::c_string_lossy;
use super::error::{CallbackResult, Failure, MCP_ERR_CANCELLED, MCP_ERR_TIMEOUT, McpResult};
use super::ffi::{arg, boundary, boundary_or, expect_object, take_handle, to_json};
use super::runtime::{ProgressFn, ProgressSink, new_runtime, run, shut_down};

/// Answers a request from the server: `sampling/createMessage` (given to
/// `mcp_client_on_sampling`) or `elicitation/create` (given to
/// `mcp_client_on_elicitation`).
///
/// Called on a thread of the client's blocking pool, never an engine thread,
/// so it may block (ask a user, call a model) and may call `mcp_client_*`
/// functions, including on this client. `params_json` is the request's
/// params (`CreateMessageRequestParams`, `ElicitRequestParams`).
///
/// On success, return `MCP_OK` and set `*result_json` to the result
/// (`CreateMessageResult`, `ElicitResult`) made with `mcp_string_new`; the
/// library takes and frees it. On failure return another code; the server
/// gets a JSON-RPC error: with `MCP_ERR_RPC`, `*result_json` may be a JSON-RPC
/// error object (`{"code":-1,"message":"User rejected sampling request"}`)
/// sent as given; otherwise `*result_json` may be a plain message, sent with
/// code -32603.
pub type RequestCallback = Option<
    unsafe extern "C" fn(
        userdata: *mut c_void,
        params_json: *const c_char,
        result_json: *mut *mut c_char,
    ) -> CallbackResult,
>;

/// Receives a notification from the server: `method` such as
/// `"notifications/tools/list_changed"` or `"notifications/message"` (a log
/// message; compare with the `MCP_METHOD_*` names), and its params as JSON
/// text (`"{}"` when it has none). Both strings are valid during the call
/// only.
///
/// Notifications are delivered one at a time, in the order they arrived, on
/// a thread of the client's blocking pool; the callback may block and may
/// call `mcp_client_*` functions, including on this client (the engine keeps
/// running meanwhile; later notifications wait).
pub type NotificationCallback = Option<
    unsafe extern "C" fn(userdata: *mut c_void, method: *const c_char, params_json: *const c_char),
>;

/// Receives a progress notification for the call it was given to (in
/// `mcp_call_options`): the progress so far, the total if known (NAN
/// otherwise) and an optional message (NULL if none; valid during the call
/// only). It runs on the thread that made the call, before the call returns.
pub type ProgressCallback = Option<
    unsafe extern "C" fn(userdata: *mut c_void, progress: f64, total: f64, message: *const c_char),
>;

/// Receives one line that the server process wrote to its stderr (without
/// the line end; valid during the call only). Delivered like notifications:
/// in order, on the client's blocking pool, interleaved with them.
pub type StderrCallback = Option<unsafe extern "C" fn(userdata: *mut c_void, line: *const c_char)>;

/// The functions the callback types hold.
type RequestFn =
    unsafe extern "C" fn(*mut c_void, *const c_char, *mut *mut c_char) -> CallbackResult;
type NotificationFn = unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char);
type StderrFn = unsafe extern "C" fn(*mut c_void, *const c_char);

/// Per-call options; pass NULL for the defaults, or start from
/// `MCP_CALL_OPTIONS_INIT` and set what you need
/// (`mcp_call_options options = MCP_CALL_OPTIONS_INIT; options.timeout_ms = 500;`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CallOptions {
    /// `sizeof(mcp_call_options)` as the caller's header declares it
    /// (`MCP_CALL_OPTIONS_INIT` sets it), so that fields can be added in later
    /// versions without breaking programs built against this one. A size
    /// smaller than this first version's is `MCP_ERR_INVALID_ARGUMENT`; a
    /// larger one (a program built against a newer header) is accepted, and
    /// the fields this library does not know are ignored.
    pub struct_size: usize,
    /// Longest wait for the answer, in milliseconds; 0 uses the client's
    /// default (`mcp_client_set_timeout`, otherwise 60 s). When it expires the
    /// call fails with `MCP_ERR_TIMEOUT` and the request is cancelled. For
    /// `mcp_client_call_tool` and `mcp_client_request` each progress
    /// notification restarts the wait (up to 10 minutes in all).
    pub timeout_ms: u64,
    /// Called with each progress notification of this call
    /// (`mcp_client_call_tool` and `mcp_client_request` only; it asks the
    /// server for progress). May be NULL.
    pub on_progress: ProgressCallback,
    /// Passed to `on_progress`.
    pub userdata: *mut c_void,
    /// Cancels the call from another thread (`mcp_cancel_token_cancel`): it
    /// then fails with `MCP_ERR_CANCELLED` and the server is told. May be
    /// NULL; must stay valid until the call returns.
    pub cancel: *const CancelToken,
}

/// What a call's options mean once read.
pub(crate) struct Options {
    timeout: Option<Duration>,
    progress: Option<ProgressFn>,
    cancel: Option<CancellationToken>,
}

/// Reads `mcp_call_options` (NULL: defaults).
///
/// # Safety
/// `options` is NULL or points to a valid `CallOptions` whose `struct_size`
/// is its real size.
pub(crate) unsafe fn read_options(options: *const CallOptions) -> Result<Options, Failure> {
    if options.is_null() {
        return Ok(Options {
            timeout: None,
            progress: None,
            cancel: None,
        });
    }
    // SAFETY: not NULL; every version of the struct starts with its size.
    let size = unsafe { options.cast::<usize>().read() };
    // One layout so far; a larger struct (a newer header) starts with it,
    // and the fields after it are ignored.
    if size < std::mem::size_of::<CallOptions>() {
        return Err(Failure::invalid(format!(
            "`options->struct_size` is {size}, smaller than sizeof(mcp_call_options) ({}); start from MCP_CALL_OPTIONS_INIT",
            std::mem::size_of::<CallOptions>()
        )));
    }
    // SAFETY: valid and at least this large, as the caller guarantees.
    let options = unsafe { options.read() };
    let timeout = (options.timeout_ms > 0).then(|| Duration::from_millis(options.timeout_ms));
    let progress = options.on_progress.map(|callback| {
        let userdata = Userdata(options.userdata);
        let progress: ProgressFn = Box::new(move |p: &ProgressNotificationParams| {
            let value = p.progress.as_f64().unwrap_or(f64::NAN);
            let total = p
                .total
                .as_ref()
                .and_then(serde_json::Number::as_f64)
                .unwrap_or(f64::NAN);
            let message = p.message.as_deref().map(c_string_lossy);
            let message_ptr = message.as_ref().map_or(std::ptr::null(), |m| m.as_ptr());
            // SAFETY: the caller's callback of the documented type, with its
            // userdata; `message` lives until the call returns.
            unsafe { callback(userdata.ptr(), value, total, message_ptr) }
        });
        progress
    });
    // SAFETY: NULL or a live token, as the caller guarantees.
    let cancel = unsafe { options.cancel.as_ref() }.map(|t| t.0.clone());
    Ok(Options {
        timeout,
        progress,
        cancel,
    })
}

/// `RequestOptions` for a call that supports progress.
fn request_options(timeout: Option<Duration>, sink: Option<ProgressSink>) -> RequestOptions {
    let mut options = RequestOptions::default();
    if let Some(timeout) = timeout {
        options = options.timeout(timeout);
    }
    if let Some(sink) = sink {
        options = options.on_progress(move |p| sink(p));
    }
    options
}

/// Runs `future` with the call's timeout (for calls whose `mcp_core` method
/// takes none).
async fn limit<T>(
    timeout: Option<Duration>,
    method: &str,
    future: impl Future<Output = mcp_core::Result<T>>,
) -> Result<T, Failure> {
    match timeout {
        None => future.await.map_err(Failure::from),
        Some(limit) => match tokio::time::timeout(limit, future).await {
            Ok(result) => result.map_err(Failure::from),
            Err(_) => Err(Failure::new(
                MCP_ERR_TIMEOUT,
                format!("request `{method}` timed out after {limit:?}"),
            )),
        },
    }
}

/// A connection to one MCP server. It owns a multi-thread runtime (two engine
/// threads plus a pool of threads for callbacks), made by `mcp_client_new`
/// and shut down by `mcp_client_free`. Once connected, any number of threads
/// may make calls on it at once.
pub struct Client {
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
    gate: Arc<Gate>,
    state: Mutex<ClientState>,
    /// Run once the client is gone (`mcp_client_on_free`).
    cleanups: Cleanups,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

enum ClientState {
    Configuring(ClientConfig),
    Connecting,
    Connected(Arc<CoreClient>),
    Closed,
}

#[derive(Clone)]
struct ClientConfig {
    name: String,
    version: String,
    timeout: Option<Duration>,
    negotiation: Negotiation,
    sampling: Option<(RequestFn, Userdata)>,
    elicitation: Option<(RequestFn, Userdata)>,
    roots: Option<Vec<Root>>,
    notification: Option<(NotificationFn, Userdata)>,
    stderr: Option<(StderrFn, Userdata)>,
}

/// What the dispatcher delivers to C, in order.
enum Event {
    Notification { method: String, params: String },
    Stderr(String),
}

impl Client {
    fn lock(&self) -> MutexGuard<'_, ClientState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn configure(&self, change: impl FnOnce(&mut ClientConfig)) -> Result<(), Failure> {
        match &mut *self.lock() {
            ClientState::Configuring(config) => {
                change(config);
                Ok(())
            }
            _ => Err(Failure::state(
                "the client is already connected; configure it before mcp_client_connect_*",
            )),
        }
    }

    fn connected(&self) -> Result<Arc<CoreClient>, Failure> {
        match &*self.lock() {
            ClientState::Connected(client) => Ok(client.clone()),
            ClientState::Configuring(_) => Err(Failure::state(
                "the client is not connected; call mcp_client_connect_stdio or mcp_client_connect_http first",
            )),
            ClientState::Connecting => Err(Failure::state("the client is still connecting")),
            ClientState::Closed => Err(Failure::closed("the client was closed")),
        }
    }

    /// Connects with the transport `make` builds (given the event sender for
    /// a child's stderr) and initializes the session.
    fn connect<T: mcp_core::transport::Transport>(
        &self,
        make: impl FnOnce(&ClientConfig, &UnboundedSender<Event>) -> Result<T, Failure>,
    ) -> Result<(), Failure> {
        let config = {
            let mut state = self.lock();
            match std::mem::replace(&mut *state, ClientState::Connecting) {
                ClientState::Configuring(config) => config,
                other => {
                    let message = match &other {
                        ClientState::Closed => "the client was closed; make a new one",
                        _ => "the client is already connected",
                    };
                    *state = other;
                    return Err(Failure::state(message));
                }
            }
        };
        let events = self.spawn_dispatcher(&config);
        let outcome = make(&config, &events).and_then(|transport| {
            let builder = self.builder(&config, events);
            run(&self.handle, None, |_| async move {
                builder.connect(transport).await.map_err(Failure::from)
            })
        });
        let mut state = self.lock();
        match outcome {
            Ok(client) => {
                *state = ClientState::Connected(Arc::new(client));
                Ok(())
            }
            Err(failure) => {
                *state = ClientState::Configuring(config);
                Err(failure)
            }
        }
    }

    fn builder(&self, config: &ClientConfig, events: UnboundedSender<Event>) -> ClientBuilder {
        let mut builder =
            CoreClient::builder(&config.name, &config.version).negotiation(config.negotiation);
        if let Some(timeout) = config.timeout {
            builder = mcp_host::with_request_timeout(builder, timeout);
        }
        if let Some((callback, userdata)) = config.sampling {
            let gate = self.gate.clone();
            builder = builder.on_sampling(false, move |params, _cx| {
                let gate = gate.clone();
                async move {
                    let params = serde_json::to_string(&params).map_err(RpcError::internal)?;
                    answer::<CreateMessageResult>(gate, callback, userdata, params, "sampling")
                        .await
                }
            });
        }
        if let Some((callback, userdata)) = config.elicitation {
            let gate = self.gate.clone();
            builder = builder.on_elicitation(false, move |params, _cx| {
                let gate = gate.clone();
                async move {
                    let params = serde_json::to_string(&params).map_err(RpcError::internal)?;
                    answer::<ElicitResult>(gate, callback, userdata, params, "elicitation").await
                }
            });
        }
        if let Some(roots) = &config.roots {
            builder = builder.roots(roots.clone());
        }
        if config.notification.is_some() {
            builder = builder.on_notification(move |notification| {
                let (method, params) = split_notification(&notification);
                let _ = events.send(Event::Notification { method, params });
            });
        }
        builder
    }

    /// Starts the task that hands notifications and stderr lines to C, one
    /// at a time on the blocking pool, in order.
    fn spawn_dispatcher(&self, config: &ClientConfig) -> UnboundedSender<Event> {
        let (tx, mut rx) = unbounded_channel::<Event>();
        let gate = self.gate.clone();
        let notification = config.notification;
        let stderr = config.stderr;
        self.handle.spawn(async move {
            while let Some(event) = rx.recv().await {
                let gate = gate.clone();
                let _ = tokio::task::spawn_blocking(move || {
                    let Some(_running) = gate.enter() else {
                        return;
                    };
                    match event {
                        Event::Notification { method, params } => {
                            if let Some((callback, userdata)) = notification {
                                let method = c_string_lossy(&method);
                                let params = c_string_lossy(&params);
                                // SAFETY: the caller's callback of the
                                // documented type; the strings live until it
                                // returns.
                                unsafe {
                                    callback(userdata.ptr(), method.as_ptr(), params.as_ptr())
                                }
                            }
                        }
                        Event::Stderr(line) => {
                            if let Some((callback, userdata)) = stderr {
                                let line = c_string_lossy(&line);
                                // SAFETY: as above.
                                unsafe { callback(userdata.ptr(), line.as_ptr()) }
                            }
                        }
                    }
                })
                .await;
            }
        });
        tx
    }

    /// Runs one request on the runtime, waiting on this thread (and calling
    /// the progress callback here).
    /// A call of an `mcp_core` method that takes no request options:
    /// `start` begins it on the connected client, the call's timeout bounds
    /// it (the error names `method`), its token cancels it; the result as
    /// JSON text.
    fn call_json<T, Fut>(
        &self,
        options: &Options,
        method: &'static str,
        start: impl FnOnce(Arc<CoreClient>) -> Fut,
    ) -> Result<String, Failure>
    where
        T: serde::Serialize,
        Fut: Future<Output = mcp_core::Result<T>> + Send + 'static,
    {
        let timeout = options.timeout;
        self.call(options, |core, _| {
            let call = start(core);
            async move { to_json(&limit(timeout, method, call).await?) }
        })
    }

    /// As [`call_json`](Self::call_json), for a method with an empty answer.
    fn call_unit<Fut>(
        &self,
        options: &Options,
        method: &'static str,
        start: impl FnOnce(Arc<CoreClient>) -> Fut,
    ) -> Result<(), Failure>
    where
        Fut: Future<Output = mcp_core::Result<()>> + Send + 'static,
    {
        let timeout = options.timeout;
        self.call(options, |core, _| {
            let call = start(core);
            async move { limit(timeout, method, call).await }
        })
    }

    fn call<T, F, Fut>(&self, options: &Options, make: F) -> Result<T, Failure>
    where
        T: Send + 'static,
        F: FnOnce(Arc<CoreClient>, Option<ProgressSink>) -> Fut,
        Fut: Future<Output = Result<T, Failure>> + Send + 'static,
    {
        let client = self.connected()?;
        let cancel = options.cancel.clone();
        run(&self.handle, options.progress.as_ref(), |sink| {
            let call = make(client, sink);
            async move {
                let Some(cancel) = cancel else {
                    return call.await;
                };
                // Dropping the call cancels the request at the server.
                tokio::select! {
                    outcome = call => outcome,
                    () = cancel.cancelled() => Err(Failure::new(
                        MCP_ERR_CANCELLED,
                        "the call was cancelled (mcp_cancel_token_cancel)",
                    )),
                }
            }
        })
    }
}

/// The method and params (JSON text, `{}` when absent) of a notification.
fn split_notification(notification: &ServerNotification) -> (String, String) {
    let method = notification.tag().to_string();
    let params = serde_json::to_value(notification)
        .ok()
        .and_then(|mut v| v.get_mut("params").map(Value::take))
        .filter(|p| !p.is_null())
        .map_or_else(|| "{}".to_string(), |p| p.to_string());
    (method, params)
}

/// Runs a client callback on the blocking pool and decodes its reply.
async fn answer<T: DeserializeOwned>(
    gate: Arc<Gate>,
    callback: RequestFn,
    userdata: Userdata,
    params: String,
    what: &'static str,
) -> Result<T, RpcError> {
    let task = tokio::task::spawn_blocking(move || {
        let Some(_running) = gate.enter() else {
            return Reply::refused("the client is shutting down");
        };
        let params = c_string_lossy(&params);
        Reply::collect(|out| {
            // SAFETY: the caller's callback of the documented type; `params`
            // lives until it returns; `out` is a valid `char **`.
            unsafe { callback(userdata.ptr(), params.as_ptr(), out) }
        })
    });
    task.await
        .map_err(|e| RpcError::internal(format!("the {what} callback's task failed: {e}")))?
        .into_result(what)
}

/// Makes a client that will introduce itself as `name` at `version`, and its
/// runtime; `*client_out` receives it, to be freed with `mcp_client_free`.
/// Configure it (`mcp_client_on_*`, `mcp_client_set_*`), then connect it.
///
/// # Safety
/// `name` and `version` are NULL or NUL-terminated; `client_out` is NULL or
/// points to writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_new(
    name: *const c_char,
    version: *const c_char,
    client_out: *mut *mut Client,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_handle client_out);
        let name = arg!(str name);
        let version = arg!(str version);
        let runtime = new_runtime("client")?;
        out.give(Client {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
            gate: Arc::new(Gate::default()),
            state: Mutex::new(ClientState::Configuring(ClientConfig {
                name: name.to_string(),
                version: version.to_string(),
                timeout: None,
                negotiation: Negotiation::Auto,
                sampling: None,
                elicitation: None,
                roots: None,
                notification: None,
                stderr: None,
            })),
            cleanups: Cleanups::default(),
        });
        Ok(())
    })
}

/// Closes the session if open (as `mcp_client_close`), waits for callbacks
/// that are running to return, shuts the runtime down and frees the client.
/// After it returns no callback of this client runs. NULL is a no-op.
///
/// No other call on this client may be running or start. Calling it from
/// inside one of this client's callbacks is allowed: that callback finishes
/// normally, the runtime shuts down in the background, and the cleanups
/// (`mcp_client_on_free`) run once the callback has returned.
///
/// # Safety
/// `client` is NULL or a client from `mcp_client_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_free(client: *mut Client) {
    boundary_or((), || {
        // SAFETY: NULL or a live client from `mcp_client_new`, given up by
        // the caller.
        let Some(client) = (unsafe { take_handle(client) }) else {
            return;
        };
        let inside = client.gate.current_thread_inside();
        let state = std::mem::replace(&mut *client.lock(), ClientState::Closed);
        if let ClientState::Connected(core) = state {
            if inside {
                client.handle.spawn(async move { core.close().await });
            } else {
                let _ = run(&client.handle, None, |_| async move {
                    core.close().await;
                    Ok(())
                });
            }
        }
        client.gate.close_and_wait();
        let runtime = client
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(runtime) = runtime {
            shut_down(runtime, inside);
        }
        let cleanups = client.cleanups.take();
        if cleanups.is_empty() {
            return;
        }
        if !inside {
            cleanup::run(cleanups);
            return;
        }
        // The callback that freed the client still runs: clean up once it
        // has returned.
        let gate = client.gate.clone();
        // If no thread can be started the cleanups never run: leaking the
        // userdata is safer than freeing it under a running callback.
        let _ = std::thread::Builder::new()
            .name("mcp-client-free".into())
            .spawn(move || {
                gate.close_and_wait();
                cleanup::run(cleanups);
            });
    });
}

/// Registers `callback` to be called with `userdata` once the client is
/// freed and none of its callbacks can run any more: the place to release
/// what the callbacks' `userdata` point to. Cleanups run last registered
/// first (see `mcp_free_callback` for the thread). Callable any time before
/// `mcp_client_free`.
///
/// # Safety
/// `client` is NULL or a live client; `callback` is NULL or a function of
/// the `mcp_free_callback` type.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_on_free(
    client: *const Client,
    callback: FreeCallback,
    userdata: *mut c_void,
) -> McpResult {
    boundary(|| arg!(handle client).cleanups.register(callback, userdata))
}

/// Ends the session: calls in progress on other threads fail with
/// `MCP_ERR_CLOSED`, a child process is shut down (see
/// `mcp_client_connect_stdio`), an HTTP session is deleted. Returns once the
/// transport has closed. Later calls fail with `MCP_ERR_CLOSED`; the client
/// must still be freed. Closing a client that is not connected, or twice, is
/// fine.
///
/// # Safety
/// `client` is NULL or a live client.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_client_close(client: *const Client) -> McpResult {
    boundary(|| {
        let client = arg!(handle client);
        let previous = {
            let mut state = client.lock();
            if matches!(*state, ClientState::Connecting) {
                return Err(Failure::state("the client is still connecting"));
            }
            std::mem::replace(&mut *state, ClientState::Closed)
        };
        match previous {
            ClientState::Connected(core) => run(&client.handle, None, |_| async move {
                core.close().await;
                Ok(())
            }),
            _ => Ok(()),
        }
    })
}
