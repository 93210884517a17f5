//! The server side: [`ServerCore`] (a registry of tools, resources,
//! templates, prompts and a completion handler whose handlers are Python
//! callables), [`ServerContext`] (what a handler gets besides its
//! arguments), [`Responder`] (how a handler answers) and [`Serving`] (one
//! running transport).
//!
//! A Python handler is registered as an *invoker*: a callable
//! `invoker(args, context, responder)` provided by the `libmcp` package. It
//! is called on a handler thread ([`super::handlers`]). It either runs the user's function
//! there and answers through `responder` before returning (sync handlers),
//! or schedules it on an event loop and returns a callable that cancels it
//! (coroutine handlers). Schemas, argument conversion and result building
//! happen in Python; validation of arguments against the schema happens in
//! `mcp-core` before the invoker is called.

use std::collections::HashMap;
use std::future::Future;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::runtime::Handle;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolResult, CompleteResultCompletion, CreateMessageRequestParams, ElicitRequestParams,
    GetPromptResult, LoggingLevel, ReadResourceResult, ToolAnnotations, ToolExecutionTaskSupport,
};
use mcp_core::server::{Context, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use mcp_core::session::SessionConfig;
use mcp_core::transport::Stdio;
use mcp_core::transport::http::StreamableHttpServer;

use super::call::{self, Call, OwnedRuntime, json, none};
use super::convert::{from_py, map_to_py, object_from_py, to_py};
use super::errors::{Failure, rpc_error};
use super::http_config::HttpOptions;
use super::spin::{ANSWER, Predictor};

/// Worker threads of a running transport's runtime. One: the engine's
/// work per request is a few microseconds next to the Python handler's, and
/// with a second worker the request, its handler task and the answer hop
/// between workers (futex wake-ups; HTTP c=1 ~13k → ~17k req/s on one CPU
/// with one worker). Handlers run on their own threads anyway.
pub(crate) const SERVER_WORKERS: usize = 1;

/// How long `Serving.stop()` lets a stdio session close before the runtime
/// is shut down.
const STOP_GRACE: Duration = Duration::from_secs(3);

pub(crate) type Answer = Result<Value, RpcError>;

fn invalid(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn core_err(e: mcp_core::Error) -> PyErr {
    match e {
        mcp_core::Error::InvalidArgument(msg) => PyValueError::new_err(msg),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

/// What a request shares with the handler answering it: where the answer
/// goes, and how to cancel a coroutine handler.
#[derive(Debug, Default)]
struct Slot {
    /// The answer, and when it was given.
    tx: Option<oneshot::Sender<(Answer, Instant)>>,
    /// The cancel function a coroutine handler's invoker returned.
    cancel: Option<Py<PyAny>>,
    /// The request's future was dropped before the answer.
    abandoned: bool,
}

type SharedSlot = Arc<Mutex<Slot>>;

fn lock_slot(slot: &SharedSlot) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Delivers the answer (the first time); the cancel function is no longer
/// needed (it would keep the coroutine alive).
fn send(slot: &SharedSlot, answer: Answer) -> bool {
    let (tx, cancel) = {
        let mut slot = lock_slot(slot);
        (slot.tx.take(), slot.cancel.take())
    };
    drop(cancel);
    match tx {
        Some(tx) => tx.send((answer, Instant::now())).is_ok(),
        None => false,
    }
}

/// Answers a request whose job ended without an answer and without a
/// coroutine still to give one: dropped unrun (the pool could not run it, or
/// the interpreter is exiting), or a sync invoker that returned without
/// answering. Otherwise the request would wait for ever: its own future
/// keeps the slot, and so the sender, alive.
struct Unanswered(Option<SharedSlot>);

impl Unanswered {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(slot) = self.0.take() {
            send(&slot, Err(RpcError::internal(UNANSWERED)));
        }
    }
}

const UNANSWERED: &str = "the Python handler finished without answering";

/// A Python invoker (see the module docs), with what its calls showed about
/// waiting for them.
#[derive(Debug)]
pub(crate) struct Invoker {
    callable: Py<PyAny>,
    /// Whether its last call made alone answered soon enough to be waited
    /// for by spinning ([`super::spin`]).
    quick: Predictor,
}

impl Invoker {
    pub(crate) fn shared(callable: Py<PyAny>) -> Arc<Self> {
        Arc::new(Self {
            callable,
            quick: Predictor::new(),
        })
    }
}

/// How a handler answers: exactly once, with `resolve(value)` or
/// `reject(code, message, data=None)`. Later calls are ignored.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct Responder {
    slot: SharedSlot,
}

#[pymethods]
impl Responder {
    /// Answers with `value` (JSON-compatible: dict, list, str, int, float,
    /// bool, None). Raises `TypeError`/`ValueError` if it is not, without
    /// answering. Returns whether the answer was delivered (False once
    /// answered, or when the request was cancelled meanwhile).
    fn resolve(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let value = from_py(value)?;
        Ok(send(&self.slot, Ok(value)))
    }

    /// Answers with the JSON-RPC error `code`, `message` and `data`.
    #[pyo3(signature = (code, message, data = None))]
    fn reject(
        &self,
        code: i64,
        message: String,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let data = data.filter(|d| !d.is_none()).map(from_py).transpose()?;
        Ok(send(&self.slot, Err(rpc_error(code, message, data))))
    }

    /// Whether an answer was given already.
    fn done(&self) -> bool {
        lock_slot(&self.slot).tx.is_none()
    }
}

/// Calls `cancel` (a coroutine handler's cancel function) on a handler
/// thread.
fn call_cancel(cancel: Py<PyAny>) {
    super::handlers::submit(Box::new(move |py| {
        if let Err(e) = cancel.call0(py) {
            e.write_unraisable(py, None);
        }
    }));
}

/// Cancels a running coroutine handler when the request's future is
/// dropped before the handler answered (the client cancelled, or the
/// session ended): at once if its invoker returned already, else as soon
/// as it does.
struct CancelOnDrop(Option<SharedSlot>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(slot) = self.0.take() else { return };
        let cancel = {
            let mut slot = lock_slot(&slot);
            slot.abandoned = true;
            slot.cancel.take()
        };
        if let Some(cancel) = cancel {
            call_cancel(cancel);
        }
    }
}

/// Runs a Python handler through its invoker (on a handler thread, see
/// [`super::handlers`]) and waits for its answer.
pub(crate) async fn invoke<A>(
    invoker: Arc<Invoker>,
    args: A,
    context: Option<ServerContext>,
) -> Answer
where
    A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send + 'static,
{
    let (tx, mut rx) = oneshot::channel();
    let slot: SharedSlot = Arc::new(Mutex::new(Slot {
        tx: Some(tx),
        ..Slot::default()
    }));
    let mut guard = CancelOnDrop(Some(slot.clone()));
    let mut unanswered = Unanswered(Some(slot.clone()));
    let handler = invoker.clone();
    let alone = super::handlers::submit(Box::new(move |py| {
        let responder = Responder { slot: slot.clone() };
        let started = (|| -> PyResult<Option<Py<PyAny>>> {
            let args = args(py)?;
            let context = match context {
                Some(context) => Py::new(py, context)?.into_any(),
                None => py.None(),
            };
            let responder = Py::new(py, responder)?;
            let cancel = handler
                .callable
                .bind(py)
                .call1((args, context, responder))?;
            Ok((!cancel.is_none()).then(|| cancel.unbind()))
        })();
        match started {
            Ok(None) => {}
            Ok(Some(cancel)) => {
                // The coroutine answers (or its cancellation ends the wait).
                unanswered.disarm();
                let mut locked = lock_slot(&slot);
                if locked.abandoned {
                    drop(locked);
                    call_cancel(cancel);
                } else if locked.tx.is_some() {
                    locked.cancel = Some(cancel);
                }
            }
            Err(e) => {
                send(&slot, Err(RpcError::internal(e)));
            }
        }
    }));
    // Nothing else is running on the pool: wait a moment for a short
    // handler's answer here rather than sleep and be woken for it.
    let submitted = Instant::now();
    let quick = alone.then(|| {
        invoker.quick.spin(ANSWER, || match rx.try_recv() {
            Ok((answer, _)) => Some(Ok(answer)),
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(())),
            Err(oneshot::error::TryRecvError::Empty) => None,
        })
    });
    let answer = match quick.flatten() {
        Some(answer) => answer,
        None => rx.await.map_err(|_| ()).map(|(answer, at)| {
            if alone {
                // When it was answered, not when this task woke to it.
                invoker
                    .quick
                    .record(at.saturating_duration_since(submitted), ANSWER);
            }
            answer
        }),
    };
    guard.0 = None;
    answer.unwrap_or_else(|()| Err(RpcError::internal(UNANSWERED)))
}

/// Decodes what a handler answered as `T`.
pub(crate) fn decode<T: DeserializeOwned>(answer: Answer) -> Result<T, RpcError> {
    serde_json::from_value(answer?).map_err(|e| {
        RpcError::internal(format!(
            "the Python handler returned an invalid result: {e}"
        ))
    })
}

fn context(cx: Context) -> ServerContext {
    ServerContext {
        cx,
        handle: Handle::current(),
    }
}

fn tool_def(name: String, input_schema: Value, invoker: Py<PyAny>) -> mcp_core::Result<ToolDef> {
    let invoker = Invoker::shared(invoker);
    ToolDef::fallible(
        name,
        input_schema,
        move |args: Map<String, Value>, cx: Context| {
            let invoker = invoker.clone();
            async move {
                let answer = invoke(
                    invoker,
                    move |py| Ok(map_to_py(py, &args)?.into_any()),
                    Some(context(cx)),
                )
                .await?;
                Ok(
                    serde_json::from_value::<CallToolResult>(answer).unwrap_or_else(|e| {
                        CallToolResult::error(format!("the tool returned an invalid result: {e}"))
                    }),
                )
            }
        },
    )
}

/// The native server: a registry whose handlers are Python invokers. Use
/// `libmcp.Server`. Registrations go straight to the `mcp_core` server,
/// before and while it is served (it derives the capabilities and tells
/// clients of changes, from its own runtime: none is needed here).
#[pyclass(frozen, module = "libmcp._libmcp")]
pub(crate) struct ServerCore {
    server: Server,
}

impl std::fmt::Debug for ServerCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerCore").finish_non_exhaustive()
    }
}

impl ServerCore {
    /// The `mcp_core` server.
    pub(crate) fn server(&self) -> PyResult<Server> {
        Ok(self.server.clone())
    }
}

#[pymethods]
impl ServerCore {
    #[new]
    #[pyo3(signature = (name, version, *, title = None, instructions = None, page_size = None, request_timeout = None, max_concurrent_requests = None))]
    fn new(
        name: String,
        version: String,
        title: Option<String>,
        instructions: Option<String>,
        page_size: Option<usize>,
        request_timeout: Option<f64>,
        max_concurrent_requests: Option<usize>,
    ) -> PyResult<Self> {
        let mut builder = Server::builder(name, version);
        if let Some(title) = title {
            builder = builder.title(title);
        }
        if let Some(instructions) = instructions {
            builder = builder.instructions(instructions);
        }
        if let Some(size) = page_size {
            builder = builder.page_size(size);
        }
        let mut config = SessionConfig::default();
        if let Some(timeout) = request_timeout {
            config = config.request_timeout(seconds(timeout)?);
        }
        if let Some(limit) = max_concurrent_requests {
            config = config.max_concurrent_requests(limit);
        }
        builder = builder.session_config(config);
        Ok(Self {
            server: builder.build(),
        })
    }

    /// Registers (and, once serving, announces) a tool whose
    /// arguments are validated against `input_schema` before `invoker`
    /// runs; `invoker` answers with a `CallToolResult` dict. `task_support`
    /// ("optional" or "required") lets it run as a task.
    #[pyo3(signature = (name, input_schema, invoker, *, description = None, title = None, annotations = None, output_schema = None, task_support = None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors the Python keyword arguments"
    )]
    fn add_tool(
        &self,
        name: String,
        input_schema: &Bound<'_, PyAny>,
        invoker: Py<PyAny>,
        description: Option<String>,
        title: Option<String>,
        annotations: Option<&Bound<'_, PyAny>>,
        output_schema: Option<&Bound<'_, PyAny>>,
        task_support: Option<String>,
    ) -> PyResult<()> {
        let mut def = tool_def(name, from_py(input_schema)?, invoker).map_err(core_err)?;
        if let Some(support) = task_support {
            let support: ToolExecutionTaskSupport = serde_json::from_value(Value::String(
                support.clone(),
            ))
            .map_err(|_| {
                PyValueError::new_err(format!(
                    "task support is \"forbidden\", \"optional\" or \"required\", not {support:?}"
                ))
            })?;
            def = def.task_support(support);
        }
        if let Some(description) = description {
            def = def.description(description);
        }
        if let Some(title) = title {
            def = def.title(title);
        }
        if let Some(annotations) = annotations.filter(|a| !a.is_none()) {
            let annotations: ToolAnnotations =
                serde_json::from_value(from_py(annotations)?).map_err(invalid)?;
            def = def.annotations(annotations);
        }
        if let Some(schema) = output_schema.filter(|s| !s.is_none()) {
            def = def.output_schema(from_py(schema)?).map_err(core_err)?;
        }
        self.server.register_tool(def).map_err(core_err)
    }

    /// Removes a tool (announcing it when serving); returns whether it
    /// existed.
    fn remove_tool(&self, name: String) -> bool {
        self.server.unregister_tool(&name)
    }

    /// Registers a resource at the fixed `uri`; `invoker` gets the URI and
    /// answers with a `ReadResourceResult` dict.
    #[pyo3(signature = (uri, name, invoker, *, description = None, title = None, mime_type = None))]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors the Python keyword arguments"
    )]
    fn add_resource(
        &self,
        uri: String,
        name: String,
        invoker: Py<PyAny>,
        description: Option<String>,
        title: Option<String>,
        mime_type: Option<String>,
    ) -> PyResult<()> {
        let invoker = Invoker::shared(invoker);
        let mut def = ResourceDef::new(uri, name, move |uri: String, cx: Context| {
            let invoker = invoker.clone();
            async move {
                decode::<ReadResourceResult>(
                    invoke(
                        invoker,
                        move |py| Ok(pyo3::types::PyString::new(py, &uri).into_any()),
                        Some(context(cx)),
                    )
                    .await,
                )
            }
        });
        if let Some(description) = description {
            def = def.description(description);
        }
        if let Some(title) = title {
            def = def.title(title);
        }
        if let Some(mime_type) = mime_type {
            def = def.mime_type(mime_type);
        }
        self.server.register_resource(def).map_err(core_err)
    }

    /// Removes a resource (announcing it when serving); returns whether it
    /// existed.
    fn remove_resource(&self, uri: String) -> bool {
        self.server.unregister_resource(&uri)
    }

    /// Registers a resource template (RFC 6570); `invoker` gets
    /// `(uri, variables)` and answers with a `ReadResourceResult` dict.
    #[pyo3(signature = (uri_template, name, invoker, *, description = None, mime_type = None))]
    fn add_resource_template(
        &self,
        uri_template: String,
        name: String,
        invoker: Py<PyAny>,
        description: Option<String>,
        mime_type: Option<String>,
    ) -> PyResult<()> {
        let invoker = Invoker::shared(invoker);
        let read = move |uri: String, vars: HashMap<String, String>, cx: Context| {
            let invoker = invoker.clone();
            async move {
                decode::<ReadResourceResult>(
                    invoke(
                        invoker,
                        move |py| {
                            let vars: Map<String, Value> = vars
                                .into_iter()
                                .map(|(k, v)| (k, Value::String(v)))
                                .collect();
                            Ok(PyTuple::new(
                                py,
                                [
                                    pyo3::types::PyString::new(py, &uri).into_any(),
                                    map_to_py(py, &vars)?.into_any(),
                                ],
                            )?
                            .into_any())
                        },
                        Some(context(cx)),
                    )
                    .await,
                )
            }
        };
        let mut def = ResourceTemplateDef::new(uri_template, name, read).map_err(core_err)?;
        if let Some(description) = description {
            def = def.description(description);
        }
        if let Some(mime_type) = mime_type {
            def = def.mime_type(mime_type);
        }
        self.server
            .register_resource_template(def)
            .map_err(core_err)
    }

    /// Removes a resource template (announcing it when serving); returns
    /// whether it existed.
    fn remove_resource_template(&self, uri_template: String) -> bool {
        self.server.unregister_resource_template(&uri_template)
    }

    /// Registers a prompt with `arguments` as `(name, description,
    /// required)`; `invoker` gets the arguments as a dict of strings and
    /// answers with a `GetPromptResult` dict.
    #[pyo3(signature = (name, invoker, *, description = None, title = None, arguments = Vec::new()))]
    fn add_prompt(
        &self,
        name: String,
        invoker: Py<PyAny>,
        description: Option<String>,
        title: Option<String>,
        arguments: Vec<(String, Option<String>, bool)>,
    ) -> PyResult<()> {
        let invoker = Invoker::shared(invoker);
        let get = move |args: IndexMap<String, String>, cx: Context| {
            let invoker = invoker.clone();
            async move {
                decode::<GetPromptResult>(
                    invoke(
                        invoker,
                        move |py| {
                            let args: Map<String, Value> = args
                                .into_iter()
                                .map(|(k, v)| (k, Value::String(v)))
                                .collect();
                            Ok(map_to_py(py, &args)?.into_any())
                        },
                        Some(context(cx)),
                    )
                    .await,
                )
            }
        };
        let mut def = PromptDef::new(name, get);
        if let Some(description) = description {
            def = def.description(description);
        }
        if let Some(title) = title {
            def = def.title(title);
        }
        for (arg, description, required) in arguments {
            def = def.argument(arg, description.unwrap_or_default(), required);
        }
        self.server.register_prompt(def).map_err(core_err)
    }

    /// Removes a prompt (announcing it when serving); returns whether it
    /// existed.
    fn remove_prompt(&self, name: String) -> bool {
        self.server.unregister_prompt(&name)
    }

    /// Sets the handler of `completion/complete`: `invoker` gets the
    /// request params as a dict and answers with a `completion` dict
    /// (`values`, `total`, `hasMore`). Must be set before the server is served.
    fn set_completion(&self, invoker: Py<PyAny>) -> PyResult<()> {
        let invoker = Invoker::shared(invoker);
        self.server
            .set_completion(move |params, cx| {
                let invoker = invoker.clone();
                async move {
                    let params = serde_json::to_value(&params).map_err(RpcError::internal)?;
                    decode::<CompleteResultCompletion>(
                        invoke(invoker, move |py| to_py(py, &params), Some(context(cx))).await,
                    )
                }
            })
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Sends `notifications/resources/updated` to every session subscribed
    /// to `uri`; returns how many were told (0 before the server starts).
    fn notify_resource_updated(&self, uri: String) -> usize {
        self.server.resource_updated(&uri)
    }

    /// Serves one client over this process's stdin and stdout.
    fn serve_stdio(&self) -> PyResult<Serving> {
        let server = self.server()?;
        let runtime = OwnedRuntime::new(SERVER_WORKERS)?;
        let session = {
            let _entered = runtime.handle().enter();
            server.serve(Stdio::new()).map_err(core_err)?
        };
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let done = call::spawn(runtime.handle(), None, async move {
            let closed = tokio::select! {
                reason = session.closed() => Some(reason),
                () = stopped.cancelled() => None,
            };
            match closed {
                Some(reason) => json(&reason),
                None => {
                    session.close().await;
                    json(&"stopped")
                }
            }
        });
        Ok(Serving {
            runtime,
            done,
            stop,
            address: None,
        })
    }

    /// Serves Streamable HTTP at `http://host:port/mcp` (port 0 picks a free
    /// port). `allowed_hosts` lists the accepted `Host` headers (default:
    /// loopback names only; `["*"]` accepts any). The limits left `None`
    /// keep mcp-core's defaults. `store` (`redis://…`) shares sessions,
    /// events, tasks, changes and the `requestState` key with other replicas.
    #[pyo3(signature = (
        host, port, *, stateless = false, json_response = false, allowed_hosts = None,
        max_body_size = None, max_header_size = None, max_sessions = None, idle_timeout = None,
        cancel_on_disconnect = false, auth = None, store = None
    ))]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors the Python keyword arguments"
    )]
    fn serve_http(
        &self,
        py: Python<'_>,
        host: String,
        port: u16,
        stateless: bool,
        json_response: bool,
        allowed_hosts: Option<Vec<String>>,
        max_body_size: Option<usize>,
        max_header_size: Option<usize>,
        max_sessions: Option<usize>,
        idle_timeout: Option<f64>,
        cancel_on_disconnect: bool,
        auth: Option<PyRef<'_, super::auth::resource::ResourceSettings>>,
        store: Option<String>,
    ) -> PyResult<Serving> {
        let server = self.server()?;
        let address: SocketAddr = (host.as_str(), port)
            .to_socket_addrs()
            .map_err(|e| PyOSError::new_err(format!("cannot resolve {host}:{port}: {e}")))?
            .next()
            .ok_or_else(|| PyOSError::new_err(format!("{host} has no address")))?;
        let mut config = HttpOptions {
            stateless,
            json_response,
            allowed_hosts,
            max_body_size,
            max_header_size,
            max_sessions,
            idle_timeout,
            cancel_on_disconnect,
        }
        .config()?;
        let runtime = OwnedRuntime::new(SERVER_WORKERS)?;
        let handle = runtime.handle().clone();
        if let Some(url) = store.filter(|url| !url.is_empty()) {
            config = config.stores(py.detach(|| handle.block_on(replica_stores(&url)))?);
        }
        let listener = py
            .detach(|| handle.block_on(tokio::net::TcpListener::bind(address)))
            .map_err(|e| PyOSError::new_err(format!("cannot listen on {address}: {e}")))?;
        let bound = listener
            .local_addr()
            .map_err(|e| PyOSError::new_err(e.to_string()))?;
        if let Some(auth) = auth {
            config = config.protected_resource(auth.build(&host, bound)?);
        }
        let http = {
            let _entered = runtime.handle().enter();
            StreamableHttpServer::new(server, config)
        };
        let stop = CancellationToken::new();
        let stopped = stop.clone();
        let done = call::spawn(runtime.handle(), None, async move {
            // On stop, every session ends (its streams close) and requests in
            // progress are answered before this returns.
            match http.serve_until(listener, stopped).await {
                Ok(()) => json(&"stopped"),
                Err(e) => Err(Failure::Core(mcp_core::Error::Transport(e))),
            }
        });
        Ok(Serving {
            runtime,
            done,
            stop,
            address: Some(bound),
        })
    }
}

/// Connects to the store at `url` shared by the replicas; a `ValueError`
/// for an address that is not one, a `ConnectionError` naming the store if
/// it does not answer.
async fn replica_stores(url: &str) -> PyResult<mcp_core::store::Stores> {
    use pyo3::exceptions::PyConnectionError;
    if !url.starts_with("redis://") && !url.starts_with("rediss://") {
        return Err(PyValueError::new_err(format!(
            "store {url:?} is not an address such as redis://127.0.0.1:6379/0"
        )));
    }
    let unusable = |e: mcp_core::store::StoreError| {
        PyConnectionError::new_err(format!("cannot use the store: {e}"))
    };
    let store = mcp_core::store::redis::RedisStore::connect(url)
        .await
        .map_err(unusable)?;
    store.replica_stores().await.map_err(unusable)
}

fn seconds(value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| PyValueError::new_err("a timeout must be a non-negative number of seconds"))
}

/// One running transport of a server. Use `libmcp.RunningServer`.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct Serving {
    runtime: OwnedRuntime,
    done: Call,
    stop: CancellationToken,
    address: Option<SocketAddr>,
}

#[pymethods]
impl Serving {
    /// Finishes (with why, as a string) when the transport stops serving.
    fn wait(&self) -> Call {
        self.done.share()
    }

    /// Stops serving: a stdio session is closed; an HTTP server ends its
    /// sessions and stops listening. Waits up to 3 s for requests in
    /// progress, then drops everything. Idempotent.
    fn stop(&self, py: Python<'_>) -> PyResult<()> {
        self.stop.cancel();
        let done = self.done.share();
        // Best effort: give a stdio session a moment to close cleanly.
        let _ = done.wait_done(py, STOP_GRACE);
        self.runtime.shutdown();
        Ok(())
    }

    /// The address an HTTP transport listens on, as `(host, port)`.
    #[getter]
    fn address(&self) -> Option<(String, u16)> {
        self.address.map(|a| (a.ip().to_string(), a.port()))
    }
}

/// What a handler gets besides its arguments: the request, the client, and
/// a way to talk back to it. Use `libmcp.Context`, which wraps it.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct ServerContext {
    cx: Context,
    handle: Handle,
}

impl ServerContext {
    fn spawn<F>(&self, future: F) -> Call
    where
        F: Future<Output = call::Outcome> + Send + 'static,
    {
        call::spawn(&self.handle, None, future)
    }
}

#[pymethods]
impl ServerContext {
    /// The id of the request (str or int), or None.
    #[getter]
    fn request_id<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let id = serde_json::to_value(self.cx.request_id()).map_err(invalid)?;
        to_py(py, &id)
    }

    /// Who the bearer token speaks for (a dict), on a protected server.
    #[getter]
    fn auth<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        super::auth::resource::auth_info_to_py(py, self.cx.auth().as_deref())
    }

    /// Whether the client cancelled the request (or the session ended).
    #[getter]
    fn cancelled(&self) -> bool {
        self.cx.is_cancelled()
    }

    /// The client's `Implementation` as a dict, once initialized.
    #[getter]
    fn client_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let info = serde_json::to_value(self.cx.client_info()).map_err(invalid)?;
        to_py(py, &info)
    }

    /// The client's capabilities as a dict, once initialized.
    #[getter]
    fn client_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let caps = serde_json::to_value(self.cx.client_capabilities()).map_err(invalid)?;
        to_py(py, &caps)
    }

    /// The negotiated protocol revision, e.g. "2025-11-25".
    #[getter]
    fn protocol_version(&self) -> Option<&'static str> {
        self.cx.protocol_version().map(|v| v.as_str())
    }

    /// The progress token the client sent, if any.
    #[getter]
    fn progress_token<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let token = serde_json::to_value(self.cx.progress_token()).map_err(invalid)?;
        to_py(py, &token)
    }

    /// Reports progress (sent only if the client asked for it).
    #[pyo3(signature = (progress, total = None, message = None))]
    fn progress(&self, progress: f64, total: Option<f64>, message: Option<String>) -> Call {
        let cx = self.cx.clone();
        self.spawn(async move {
            cx.progress(progress, total, message).await?;
            none()
        })
    }

    /// Sends a log message at `level` ("debug" … "emergency") if the level
    /// passes the one the client set.
    #[pyo3(signature = (level, data, logger = None))]
    fn log(&self, level: &str, data: &Bound<'_, PyAny>, logger: Option<String>) -> PyResult<Call> {
        let level: LoggingLevel =
            serde_json::from_value(Value::String(level.to_owned())).map_err(|_| {
                PyValueError::new_err(format!(
                    "unknown logging level {level:?}; use debug, info, notice, warning, error, critical, alert or emergency"
                ))
            })?;
        let data = from_py(data)?;
        let cx = self.cx.clone();
        Ok(self.spawn(async move {
            cx.log(level, logger.as_deref(), data).await?;
            none()
        }))
    }

    /// `sampling/createMessage` with `params` (a dict in wire form);
    /// finishes with the client's `CreateMessageResult` dict.
    fn create_message(&self, params: &Bound<'_, PyAny>) -> PyResult<Call> {
        let params: CreateMessageRequestParams =
            serde_json::from_value(Value::Object(object_from_py(params, "params")?))
                .map_err(invalid)?;
        let cx = self.cx.clone();
        Ok(self.spawn(async move { json(&cx.create_message(params).await?) }))
    }

    /// `elicitation/create` with `params` (a dict in wire form); finishes
    /// with the client's `ElicitResult` dict.
    fn elicit(&self, params: &Bound<'_, PyAny>) -> PyResult<Call> {
        let params: ElicitRequestParams =
            serde_json::from_value(Value::Object(object_from_py(params, "params")?))
                .map_err(invalid)?;
        let cx = self.cx.clone();
        Ok(self.spawn(async move { json(&cx.elicit(params).await?) }))
    }

    /// `roots/list`; finishes with the `ListRootsResult` dict.
    fn list_roots(&self) -> Call {
        let cx = self.cx.clone();
        self.spawn(async move { json(&cx.list_roots().await?) })
    }

    /// Finishes when the request is cancelled (or the session ends).
    fn wait_cancelled(&self) -> Call {
        let cx = self.cx.clone();
        self.spawn(async move {
            cx.cancellation().cancelled().await;
            none()
        })
    }
}
