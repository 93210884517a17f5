//! The server side: [`ServerCore`] (a registry of tools, resources,
//! templates, prompts and a completion handler whose handlers are Python
//! callables) and [`Serving`] (one running transport). A handler is called
//! through [`super::invoke`] and gets a [`ServerContext`].
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
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::Duration;

use indexmap::IndexMap;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use mcp_core::http::StreamableHttpServer;
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolResult, CompleteResultCompletion, GetPromptResult, ReadResourceResult, ToolAnnotations,
    ToolExecutionTaskSupport,
};
use mcp_core::server::{Context, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use mcp_core::session::SessionConfig;
use mcp_core::transport::Stdio;

use super::call::{self, Call, OwnedRuntime, json};
use super::context::ServerContext;
use super::convert::{from_py, map_to_py, to_py};
use super::errors::{Failure, to_pyerr};
use super::http_config::HttpOptions;
use super::invoke::{Invoker, decode, invoke};

/// Worker threads of a running transport's runtime. One: the engine's
/// work per request is a few microseconds next to the Python handler's, and
/// with a second worker the request, its handler task and the answer hop
/// between workers (futex wake-ups; HTTP c=1 ~13k → ~17k req/s on one CPU
/// with one worker). Handlers run on their own threads anyway.
pub(crate) const SERVER_WORKERS: usize = 1;

/// How long `Serving.stop()` lets a stdio session close before the runtime
/// is shut down.
const STOP_GRACE: Duration = Duration::from_secs(3);

pub(super) fn invalid(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn core_err(e: mcp_core::Error) -> PyErr {
    match e {
        mcp_core::Error::InvalidArgument(msg) => PyValueError::new_err(msg),
        other => PyRuntimeError::new_err(other.to_string()),
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
                    Some(ServerContext::new(cx)),
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
                        Some(ServerContext::new(cx)),
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
                        Some(ServerContext::new(cx)),
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
                        Some(ServerContext::new(cx)),
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
                        invoke(
                            invoker,
                            move |py| to_py(py, &params),
                            Some(ServerContext::new(cx)),
                        )
                        .await,
                    )
                }
            })
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// Serves the skills under `dir` (the skills extension) in place of
    /// those served until now; clients are told when serving.
    /// Failures are classified by their kind, as every face's are.
    #[pyo3(signature = (dir, *, directory_read = true))]
    fn set_skills_dir(
        &self,
        py: Python<'_>,
        dir: std::path::PathBuf,
        directory_read: bool,
    ) -> PyResult<()> {
        // Reading the files needs no GIL.
        py.detach(|| mcp_core::skills::SkillCatalog::load_dir(&dir))
            .and_then(|catalog| {
                self.server
                    .set_skills(catalog.directory_read(directory_read))
            })
            .map_err(|e| super::errors::to_pyerr(py, e.into()))
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
        let mut options = HttpOptions {
            stateless,
            json_response,
            allowed_hosts,
            max_body_size,
            max_header_size,
            max_sessions,
            idle_timeout,
            cancel_on_disconnect,
            store,
        }
        .options(py)?;
        options.set_address(address);
        let runtime = OwnedRuntime::new(SERVER_WORKERS)?;
        let handle = runtime.handle().clone();
        let (listener, mut config) = py
            .detach(|| handle.block_on(options.bind()))
            .map_err(|e| to_pyerr(py, Failure::Core(e)))?;
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
