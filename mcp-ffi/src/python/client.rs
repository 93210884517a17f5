//! The client side: [`connect_stdio`] and [`connect_http`] connect a
//! [`ClientCore`], whose methods start requests and return [`Call`]s.
//!
//! Each client owns a runtime and a delivery thread. Notifications,
//! progress and the child's stderr lines reach Python on the delivery
//! thread in the order they arrived, and every result of this client is
//! delivered there too, after them. Sampling and elicitation requests from
//! the server run their Python handlers through invokers, as server
//! handlers do.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use indexmap::IndexMap;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use serde_json::Value;

use mcp_core::client::{Client, ClientBuilder, ToolTaskStart};
use mcp_core::schema::{
    CallToolRequestParams, ClientRequestMethod, CompleteRequestParams, CreateMessageResult,
    ElicitResult, LoggingLevel, Root,
};
use mcp_core::session::RequestOptions;
use mcp_core::transport::ChildProcess;
use mcp_core::transport::http::StreamableHttpClient;

use super::call::{self, Call, Deliverer, OwnedRuntime, json, none};
use super::convert::{from_py, object_from_py, to_py};
use super::errors::Failure;
use super::invoke::{Invoker, decode, invoke};
use super::trace;

/// Worker threads of a client's runtime.
const CLIENT_WORKERS: usize = 1;

fn invalid(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn seconds(value: f64) -> PyResult<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| PyValueError::new_err("a timeout must be a non-negative number of seconds"))
}

fn item<'py, T>(options: &Bound<'py, PyDict>, key: &str) -> PyResult<Option<T>>
where
    T: pyo3::conversion::FromPyObjectOwned<'py>,
{
    match options.get_item(key)? {
        Some(value) if !value.is_none() => value
            .extract::<T>()
            .map(Some)
            .map_err(|e| PyTypeError::new_err(format!("option {key}: {}", e.into()))),
        _ => Ok(None),
    }
}

/// Checks a `protocol=` option (`auto`, `legacy` or a revision) when the
/// client is made, so that a typo fails before connecting.
#[pyfunction]
pub(crate) fn check_protocol(protocol: &str) -> PyResult<()> {
    mcp_host::parse_negotiation(protocol)
        .map(drop)
        .map_err(invalid)
}

/// Configures a builder from the options dict the package passes:
/// `name`, `version`, `request_timeout`, `protocol` (`auto`, `legacy` or a
/// revision), `protocol_version` (pins it), `on_sampling`
/// (an invoker), `sampling_tools`, `on_elicitation` (an invoker),
/// `elicitation_url`, `roots` (list of dicts), `on_notification` (called
/// with each notification as a dict).
pub(super) fn builder(options: &Bound<'_, PyDict>, deliver: &Deliverer) -> PyResult<ClientBuilder> {
    let name: String = item(options, "name")?.unwrap_or_else(|| "libmcp-python".into());
    let version: String =
        item(options, "version")?.unwrap_or_else(|| env!("CARGO_PKG_VERSION").into());
    let mut builder = Client::builder(name, version);
    if let Some(protocol) = item::<String>(options, "protocol")? {
        builder = builder.negotiation(mcp_host::parse_negotiation(&protocol).map_err(invalid)?);
    }
    if let Some(timeout) = item::<f64>(options, "request_timeout")? {
        builder = mcp_host::with_request_timeout(builder, seconds(timeout)?);
    }
    if let Some(version) = item::<String>(options, "protocol_version")? {
        let parsed = mcp_host::parse_revision(&version).map_err(invalid)?;
        builder = builder.protocol_version(parsed);
    }
    if let Some(invoker) = item::<Py<PyAny>>(options, "on_sampling")? {
        let tools = item::<bool>(options, "sampling_tools")?.unwrap_or(false);
        let invoker = Invoker::shared(invoker);
        builder = builder.on_sampling(tools, move |params, _request| {
            let invoker = invoker.clone();
            async move {
                let params =
                    serde_json::to_value(&params).map_err(mcp_core::jsonrpc::RpcError::internal)?;
                decode::<CreateMessageResult>(
                    invoke(invoker, move |py| to_py(py, &params), None).await,
                )
            }
        });
    }
    if let Some(invoker) = item::<Py<PyAny>>(options, "on_elicitation")? {
        let url = item::<bool>(options, "elicitation_url")?.unwrap_or(false);
        let invoker = Invoker::shared(invoker);
        builder = builder.on_elicitation(url, move |params, _request| {
            let invoker = invoker.clone();
            async move {
                let params =
                    serde_json::to_value(&params).map_err(mcp_core::jsonrpc::RpcError::internal)?;
                decode::<ElicitResult>(invoke(invoker, move |py| to_py(py, &params), None).await)
            }
        });
    }
    if let Some(roots) = options.get_item("roots")?.filter(|r| !r.is_none()) {
        let roots: Vec<Root> = serde_json::from_value(from_py(&roots)?).map_err(invalid)?;
        builder = builder.roots(roots);
    }
    if let Some(callback) = item::<Py<PyAny>>(options, "on_notification")? {
        let callback = Arc::new(callback);
        let deliver = deliver.clone();
        builder = builder.on_notification(move |notification| {
            let callback = callback.clone();
            let Ok(value) = serde_json::to_value(&notification) else {
                return;
            };
            deliver.python(move |py| {
                let outcome = to_py(py, &value).and_then(|n| callback.call1(py, (n,)));
                if let Err(e) = outcome {
                    e.write_unraisable(py, Some(callback.bind(py)));
                }
            });
        });
    }
    Ok(builder)
}

/// Connects `builder` over `transport` on a new runtime; the call finishes
/// with the connected `ClientCore`.
fn connect<T: mcp_core::transport::Transport>(
    builder: ClientBuilder,
    transport: T,
    deliver: Deliverer,
) -> PyResult<Call> {
    let runtime = Arc::new(OwnedRuntime::new(CLIENT_WORKERS)?);
    let owned = runtime.clone();
    let delivered = deliver.clone();
    let connected = trace::carried(builder.connect(transport));
    Ok(call::spawn(runtime.handle(), Some(&deliver), async move {
        let client = connected.await?;
        let core = ClientCore {
            client: Arc::new(client),
            runtime: owned,
            deliver: delivered,
        };
        Ok(Box::new(move |py: Python<'_>| Ok(Py::new(py, core)?.into_any())) as call::Convert)
    }))
}

/// Starts `command args…` and connects to it over its stdin and stdout.
/// The child gets a small safe environment plus `env` (or all of this
/// process's with `inherit_env`); each line it writes to stderr is passed
/// to `on_stderr`.
#[pyfunction]
#[pyo3(signature = (command, args, options, *, env = None, cwd = None, inherit_env = false, on_stderr = None))]
#[allow(
    clippy::too_many_arguments,
    reason = "mirrors the Python keyword arguments"
)]
pub(crate) fn connect_stdio(
    command: String,
    args: Vec<String>,
    options: &Bound<'_, PyDict>,
    env: Option<HashMap<String, String>>,
    cwd: Option<String>,
    inherit_env: bool,
    on_stderr: Option<Py<PyAny>>,
) -> PyResult<Call> {
    let deliver = Deliverer::start().map_err(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!("could not start a thread: {e}"))
    })?;
    let builder = builder(options, &deliver)?;
    let mut transport = ChildProcess::new(command)
        .args(args)
        .inherit_env(inherit_env);
    for (key, value) in env.unwrap_or_default() {
        transport = transport.env(key, value);
    }
    if let Some(cwd) = cwd {
        transport = transport.current_dir(cwd);
    }
    if let Some(sink) = on_stderr {
        let sink = Arc::new(sink);
        let deliver = deliver.clone();
        transport = transport.on_stderr(move |line| {
            let sink = sink.clone();
            let line = line.to_owned();
            deliver.python(move |py| {
                if let Err(e) = sink.call1(py, (line,)) {
                    e.write_unraisable(py, Some(sink.bind(py)));
                }
            });
        });
    }
    connect(builder, transport, deliver)
}

/// Connects to the Streamable HTTP endpoint `url`, sending `headers` with
/// every request, authorizing with `auth` (see `auth::client`).
#[pyfunction]
#[pyo3(signature = (url, options, *, headers = None, auth = None))]
pub(crate) fn connect_http(
    url: String,
    options: &Bound<'_, PyDict>,
    headers: Option<HashMap<String, String>>,
    auth: Option<PyRef<'_, super::auth::client::OAuthProvider>>,
) -> PyResult<Call> {
    let deliver = Deliverer::start().map_err(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!("could not start a thread: {e}"))
    })?;
    let builder = builder(options, &deliver)?;
    let mut transport = StreamableHttpClient::new(url);
    for (name, value) in headers.unwrap_or_default() {
        transport = transport.header(&name, &value).map_err(invalid)?;
    }
    if let Some(auth) = auth {
        transport = transport.auth(auth.client());
    }
    connect(builder, transport, deliver)
}

/// The `N` string arguments of a generated operation.
pub(super) fn arguments<const N: usize>(
    args: &Bound<'_, PyTuple>,
    method: ClientRequestMethod,
) -> PyResult<[String; N]> {
    let strings: Vec<String> = args
        .iter()
        .map(|a| a.extract::<String>())
        .collect::<PyResult<_>>()
        .map_err(|e| PyTypeError::new_err(format!("`{method}` takes strings: {e}")))?;
    <[String; N]>::try_from(strings).map_err(|given| {
        PyTypeError::new_err(format!(
            "`{method}` takes {N} argument(s), {} given",
            given.len()
        ))
    })
}

/// The error for a client request whose face is written by hand.
pub(super) fn hand_written(method: ClientRequestMethod) -> PyErr {
    PyValueError::new_err(format!(
        "`{method}` has a method of its own on ClientCore, not an operation"
    ))
}

/// A connected client. Use `libmcp.Client` or `libmcp.SyncClient`.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct ClientCore {
    client: Arc<Client>,
    runtime: Arc<OwnedRuntime>,
    deliver: Deliverer,
}

impl ClientCore {
    /// Runs a request on this client's runtime, delivering its outcome in
    /// order with the client's callbacks. The request carries the caller's
    /// current OpenTelemetry context ([`trace::carried`]).
    pub(super) fn spawn<F, Fut>(&self, request: F) -> Call
    where
        F: FnOnce(Arc<Client>) -> Fut,
        Fut: Future<Output = call::Outcome> + Send + 'static,
    {
        call::spawn(
            self.runtime.handle(),
            Some(&self.deliver),
            trace::carried(request(self.client.clone())),
        )
    }
}

#[pymethods]
impl ClientCore {
    /// The server's `Implementation` (name, version, title…) as a dict.
    #[getter]
    fn server_info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.client.server_info()).map_err(invalid)?,
        )
    }

    /// The server's capabilities as a dict.
    #[getter]
    fn server_capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.client.server_capabilities()).map_err(invalid)?,
        )
    }

    /// The server's instructions, if any.
    #[getter]
    fn instructions(&self) -> Option<String> {
        self.client.instructions().map(str::to_owned)
    }

    /// The negotiated protocol revision.
    #[getter]
    fn protocol_version(&self) -> &'static str {
        self.client.protocol_version().as_str()
    }

    /// A client request the method table generates on every face
    /// (`libmcp._operations`): `method` is its wire name, `args` its
    /// arguments in the generated order.
    #[pyo3(signature = (method, *args))]
    fn operation(&self, method: &str, args: &Bound<'_, PyTuple>) -> PyResult<Call> {
        let method = ClientRequestMethod::from_name(method)
            .ok_or_else(|| PyValueError::new_err(format!("`{method}` is no client request")))?;
        self.start_operation(method, args)
    }

    /// `tools/call`; finishes with the `CallToolResult` dict. `timeout`
    /// (seconds) overrides the session's; `on_progress` is called with each
    /// progress notification's params as a dict.
    #[pyo3(signature = (name, arguments = None, *, timeout = None, on_progress = None))]
    fn call_tool(
        &self,
        name: String,
        arguments: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
        on_progress: Option<Py<PyAny>>,
    ) -> PyResult<Call> {
        let arguments = arguments
            .filter(|a| !a.is_none())
            .map(|a| object_from_py(a, "arguments"))
            .transpose()?;
        let mut options = RequestOptions::default();
        if let Some(timeout) = timeout {
            options = options.timeout(seconds(timeout)?);
        }
        if let Some(callback) = on_progress {
            let callback = Arc::new(callback);
            let deliver = self.deliver.clone();
            options = options.on_progress(move |params| {
                let callback = callback.clone();
                let Ok(value) = serde_json::to_value(&params) else {
                    return;
                };
                deliver.python(move |py| {
                    let outcome = to_py(py, &value).and_then(|p| callback.call1(py, (p,)));
                    if let Err(e) = outcome {
                        e.write_unraisable(py, Some(callback.bind(py)));
                    }
                });
            });
        }
        let params = CallToolRequestParams {
            arguments,
            ..CallToolRequestParams::new(name)
        };
        Ok(self.spawn(|c| async move { json(&c.call_tool_with(params, options).await?) }))
    }

    /// Starts `tools/call` as a task (`Client::start_tool_task`); finishes
    /// with `{"task": Task}` or, when the server ran it at once (2026-07-28,
    /// where the server decides), `{"result": CallToolResult}`. `ttl`
    /// (seconds) asks how long a 2025-11-25 server keeps the task.
    #[pyo3(signature = (name, arguments = None, *, ttl = None))]
    fn start_tool_task(
        &self,
        name: String,
        arguments: Option<&Bound<'_, PyAny>>,
        ttl: Option<f64>,
    ) -> PyResult<Call> {
        let arguments = arguments
            .filter(|a| !a.is_none())
            .map(|a| object_from_py(a, "arguments"))
            .transpose()?;
        let ttl = ttl.map(seconds).transpose()?;
        Ok(self.spawn(|c| async move {
            let start = c.start_tool_task(&name, arguments, ttl).await?;
            let answer = match start {
                ToolTaskStart::Task(task) => serde_json::json!({ "task": task }),
                ToolTaskStart::Done(result) => serde_json::json!({ "result": result }),
                _ => {
                    return Err(Failure::Core(mcp_core::Error::Protocol(
                        "an answer to a task call libmcp does not know".into(),
                    )));
                }
            };
            json(&answer)
        }))
    }

    /// `tasks/get` (a `GetTaskResult` dict; under the tasks extension its
    /// inlined `result`, `error` or `inputRequests` too).
    fn get_task(&self, task_id: String) -> Call {
        self.spawn(|c| async move { json(&c.get_task(&task_id).await?) })
    }

    /// Waits for a tool-call task to end (answering its input requests
    /// with the handlers) and finishes with its `CallToolResult` dict.
    fn tool_task_result(&self, task_id: String) -> Call {
        self.spawn(|c| async move { json(&c.tool_task_result(&task_id).await?) })
    }

    /// One page of `tasks/list` (2025-11-25 only).
    #[pyo3(signature = (cursor = None))]
    fn list_tasks(&self, cursor: Option<String>) -> Call {
        self.spawn(|c| async move { json(&c.list_tasks(cursor).await?) })
    }

    /// `tasks/cancel`; finishes with the task as it is then.
    fn cancel_task(&self, task_id: String) -> Call {
        self.spawn(|c| async move { json(&c.cancel_task(&task_id).await?) })
    }

    /// Every entry of `skills/list` (all pages); finishes with a list of
    /// entry dicts.
    fn list_skills(&self) -> Call {
        self.spawn(|c| async move { json(&c.list_all_skills().await?) })
    }

    /// `skills/get`; finishes with the entry dict of the skill at `uri`.
    fn get_skill(&self, uri: String) -> Call {
        self.spawn(|c| async move { json(&c.get_skill(&uri).await?) })
    }

    /// Looks up the skill at `uri` and reads its `SKILL.md`, verified
    /// against the entry; finishes with `[entry dict, text]`.
    fn load_skill(&self, uri: String) -> Call {
        self.spawn(|c| async move {
            let loaded = c.load_skill_at(&uri).await?;
            json(&(loaded.entry, loaded.skill_md))
        })
    }

    /// Reads the file `file_uri` of the skill at `skill_uri`, verified
    /// against the skill's entry; finishes with its bytes.
    fn read_skill_file(&self, skill_uri: String, file_uri: String) -> Call {
        self.spawn(|c| async move {
            let bytes = c.read_skill_file_at(&skill_uri, &file_uri).await?;
            Ok(Box::new(move |py: Python<'_>| {
                Ok(pyo3::types::PyBytes::new(py, &bytes).into_any().unbind())
            }) as call::Convert)
        })
    }

    /// `prompts/get` with string arguments; finishes with the
    /// `GetPromptResult` dict.
    #[pyo3(signature = (name, arguments = None))]
    fn get_prompt(&self, name: String, arguments: Option<&Bound<'_, PyDict>>) -> PyResult<Call> {
        let arguments = arguments
            .map(|args| {
                args.iter()
                    .map(|(k, v)| Ok((k.extract::<String>()?, v.extract::<String>()?)))
                    .collect::<PyResult<IndexMap<String, String>>>()
            })
            .transpose()
            .map_err(|e| {
                PyTypeError::new_err(format!("prompt arguments must be str to str: {e}"))
            })?;
        Ok(self.spawn(|c| async move { json(&c.get_prompt(&name, arguments).await?) }))
    }

    /// `completion/complete` with `params` in wire form; finishes with the
    /// `CompleteResult` dict.
    fn complete(&self, params: &Bound<'_, PyAny>) -> PyResult<Call> {
        let params: CompleteRequestParams =
            serde_json::from_value(from_py(params)?).map_err(invalid)?;
        Ok(self.spawn(|c| async move { json(&c.complete(params).await?) }))
    }

    /// `logging/setLevel`.
    fn set_logging_level(&self, level: &str) -> PyResult<Call> {
        let level: LoggingLevel = serde_json::from_value(Value::String(level.to_owned()))
            .map_err(|_| PyValueError::new_err(format!("unknown logging level {level:?}")))?;
        Ok(self.spawn(|c| async move {
            c.set_logging_level(level).await?;
            none()
        }))
    }

    /// Replaces the roots offered to the server (a list of `Root` dicts)
    /// and tells it.
    fn set_roots(&self, roots: &Bound<'_, PyAny>) -> PyResult<Call> {
        let roots: Vec<Root> = serde_json::from_value(from_py(roots)?).map_err(invalid)?;
        Ok(self.spawn(|c| async move {
            c.set_roots(roots).await?;
            none()
        }))
    }

    /// Any request: `method` with `params` (JSON-compatible); finishes with
    /// the raw result.
    #[pyo3(signature = (method, params = None, *, timeout = None))]
    fn request(
        &self,
        method: String,
        params: Option<&Bound<'_, PyAny>>,
        timeout: Option<f64>,
    ) -> PyResult<Call> {
        let params = params.filter(|p| !p.is_none()).map(from_py).transpose()?;
        let mut options = RequestOptions::default();
        if let Some(timeout) = timeout {
            options = options.timeout(seconds(timeout)?);
        }
        Ok(self.spawn(|c| async move {
            let raw = c.request_raw(&method, &params, options).await?;
            let value: Value = serde_json::from_str(raw.get())?;
            json(&value)
        }))
    }

    /// Ends the session and closes the transport (a child process is shut
    /// down); finishes once it is closed.
    fn close(&self) -> Call {
        self.spawn(|c| async move {
            c.close().await;
            none()
        })
    }

    /// Finishes, with the reason, when the session ends.
    fn closed(&self) -> Call {
        self.spawn(|c| async move { json(&c.closed().await) })
    }

    /// Shuts the client's runtime down now (after `close`); pending calls
    /// fail with `ConnectionClosed`.
    fn shutdown(&self) {
        self.runtime.shutdown();
    }
}
