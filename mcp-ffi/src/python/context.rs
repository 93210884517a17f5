//! [`ServerContext`]: what a Python handler gets besides its arguments.

use std::future::Future;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use serde_json::Value;
use tokio::runtime::Handle;

use mcp_core::schema::{CreateMessageRequestParams, ElicitRequestParams, LoggingLevel};
use mcp_core::server::Context;
use mcp_core::telemetry::{TraceContext, current_trace_context};

use super::call::{self, Call, json, none};
use super::convert::{from_py, object_from_py, to_py};
use super::server::invalid;

/// What a handler gets besides its arguments: the request, the client, and
/// a way to talk back to it. Use `libmcp.Context`, which wraps it.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct ServerContext {
    cx: Context,
    handle: Handle,
    /// The request's trace context, for the handler's own requests.
    trace: Option<TraceContext>,
}

impl ServerContext {
    /// The context of the handler of the request `cx` describes, on the
    /// current runtime (called in the handler's task).
    pub(super) fn new(cx: Context) -> Self {
        Self {
            cx,
            handle: Handle::current(),
            trace: current_trace_context(),
        }
    }

    /// Runs one of the handler's requests on the runtime, carrying the
    /// handler's current OpenTelemetry context, else the request's.
    fn spawn<F>(&self, future: F) -> Call
    where
        F: Future<Output = call::Outcome> + Send + 'static,
    {
        call::spawn(
            &self.handle,
            None,
            super::trace::carried_or(self.trace.clone(), future),
        )
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
