//! `libmcp.ClientGroup`'s native part: [`connect_group`] connects a
//! [`GroupCore`] to every server of an `mcpServers` configuration. Like a
//! client it owns a runtime and a delivery thread; the group's events
//! (state changes, list changes) reach Python on that thread.

use std::sync::Arc;

use indexmap::IndexMap;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Value, json as json_value};

use mcp_core::client::group::GroupEvent;
use mcp_core::client::{ClientGroup, GroupConfig};
use mcp_host::{GroupStatus, ServerStatus};

use super::call::{self, Call, Deliverer, OwnedRuntime, json, none};
use super::client::builder;
use super::convert::{object_from_py, to_py};

/// Worker threads of a group's runtime (one connection per server shares
/// them).
const GROUP_WORKERS: usize = 2;

fn invalid(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// An event as a dict: `{"kind": "status"|"tools_changed"|…, "server": …}`;
/// a status is in the one form of `mcp_host::ServerStatus`.
fn event_json(event: &GroupEvent, config: &GroupConfig) -> Option<Value> {
    Some(match event {
        GroupEvent::Status(status) => {
            let wire = serde_json::to_value(ServerStatus::new(status, config)).ok()?;
            json_value!({"kind": "status", "server": status.name, "status": wire})
        }
        GroupEvent::ToolsChanged { server } => {
            json_value!({"kind": "tools_changed", "server": server})
        }
        GroupEvent::PromptsChanged { server } => {
            json_value!({"kind": "prompts_changed", "server": server})
        }
        GroupEvent::ResourcesChanged { server } => {
            json_value!({"kind": "resources_changed", "server": server})
        }
        GroupEvent::Notification {
            server,
            notification,
        } => json_value!({
            "kind": "notification",
            "server": server,
            "notification": serde_json::to_value(notification).ok()?,
        }),
        _ => return None,
    })
}

/// Reads the configuration (JSON text of an `mcpServers` file) and connects
/// to every server at once; finishes with the `GroupCore` once each has
/// connected or failed. `options` are a client's (`builder`), plus
/// `separator`, `retry_interval` (seconds), `on_event` (called with each
/// event as a dict) and `on_stderr` (called with the server's name and a
/// line).
#[pyfunction]
#[pyo3(signature = (config, options))]
pub(crate) fn connect_group(config: &str, options: &Bound<'_, PyDict>) -> PyResult<Call> {
    let config = Arc::new(GroupConfig::parse(config).map_err(invalid)?);
    let deliver = Deliverer::start().map_err(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!("could not start a thread: {e}"))
    })?;
    let mut group = ClientGroup::builder(builder(options, &deliver)?);
    if let Some(separator) = options.get_item("separator")?.filter(|s| !s.is_none()) {
        group = group
            .separator(&separator.extract::<String>()?)
            .map_err(invalid)?;
    }
    if let Some(interval) = options.get_item("retry_interval")?.filter(|s| !s.is_none()) {
        let seconds = std::time::Duration::try_from_secs_f64(interval.extract::<f64>()?)
            .map_err(|_| invalid("retry_interval must be a non-negative number of seconds"))?;
        group = group.retry_interval(seconds);
    }
    if let Some(sink) = options.get_item("on_stderr")?.filter(|s| !s.is_none()) {
        let sink = Arc::new(sink.unbind());
        let deliver = deliver.clone();
        group = group.on_stderr(move |server, line| {
            let (sink, server, line) = (sink.clone(), server.to_owned(), line.to_owned());
            deliver.python(move |py| {
                if let Err(e) = sink.call1(py, (server, line)) {
                    e.write_unraisable(py, Some(sink.bind(py)));
                }
            });
        });
    }
    let on_event = options
        .get_item("on_event")?
        .filter(|s| !s.is_none())
        .map(|s| Arc::new(s.unbind()));
    let runtime = Arc::new(OwnedRuntime::new(GROUP_WORKERS)?);
    let owned = runtime.clone();
    let delivered = deliver.clone();
    Ok(call::spawn(runtime.handle(), Some(&deliver), async move {
        let group = Arc::new(group.connect(&config).await);
        if let Some(callback) = on_event {
            forward_events(&group, config.clone(), callback, delivered.clone());
        }
        let core = GroupCore {
            group,
            config,
            runtime: owned,
            deliver: delivered,
        };
        Ok(Box::new(move |py: Python<'_>| Ok(Py::new(py, core)?.into_any())) as call::Convert)
    }))
}

/// Hands each event to `callback` on the delivery thread, until the group
/// is gone.
fn forward_events(
    group: &ClientGroup,
    config: Arc<GroupConfig>,
    callback: Arc<Py<PyAny>>,
    deliver: Deliverer,
) {
    let mut events = group.events();
    tokio::spawn(async move {
        loop {
            let event = match events.recv().await {
                Ok(event) => event,
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            };
            let Some(value) = event_json(&event, &config) else {
                continue;
            };
            let callback = callback.clone();
            deliver.python(move |py| {
                let outcome = to_py(py, &value).and_then(|v| callback.call1(py, (v,)));
                if let Err(e) = outcome {
                    e.write_unraisable(py, Some(callback.bind(py)));
                }
            });
        }
    });
}

/// A connected group. Use `libmcp.ClientGroup`.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct GroupCore {
    group: Arc<ClientGroup>,
    /// What the group was connected from (each server's `target`).
    config: Arc<GroupConfig>,
    runtime: Arc<OwnedRuntime>,
    deliver: Deliverer,
}

impl GroupCore {
    fn spawn<F, Fut>(&self, request: F) -> Call
    where
        F: FnOnce(Arc<ClientGroup>) -> Fut,
        Fut: std::future::Future<Output = call::Outcome> + Send + 'static,
    {
        call::spawn(
            self.runtime.handle(),
            Some(&self.deliver),
            super::trace::carried(request(self.group.clone())),
        )
    }
}

#[pymethods]
impl GroupCore {
    /// Every server's state as JSON text, `{"servers": […]}` in
    /// configuration order: the same text as C's `mcp_group_status` and
    /// `mcp servers list --json`.
    fn status_json(&self) -> PyResult<String> {
        GroupStatus::of(&self.group, &self.config)
            .to_json()
            .map_err(invalid)
    }

    /// The merged tool list (`Tool` dicts, names `server__tool`).
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.group.tools()).map_err(invalid)?,
        )
    }

    /// The merged prompt list.
    fn prompts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(
            py,
            &serde_json::to_value(self.group.prompts()).map_err(invalid)?,
        )
    }

    /// `(server, tool)` of merged tool `name`, or `None`.
    fn route_tool(&self, name: &str) -> Option<(String, String)> {
        self.group
            .route_tool(name)
            .map(|(server, tool)| (server.to_owned(), tool))
    }

    /// Calls merged tool `name`; finishes with the `CallToolResult` dict.
    #[pyo3(signature = (name, arguments = None))]
    fn call_tool(&self, name: String, arguments: Option<&Bound<'_, PyAny>>) -> PyResult<Call> {
        let arguments = arguments
            .filter(|a| !a.is_none())
            .map(|a| object_from_py(a, "arguments"))
            .transpose()?;
        Ok(self.spawn(|g| async move { json(&g.call_tool(&name, arguments).await?) }))
    }

    /// Gets merged prompt `name` with string arguments.
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
        Ok(self.spawn(|g| async move { json(&g.get_prompt(&name, arguments).await?) }))
    }

    /// Every resource of every server: a list of `{"server", "resource"}`.
    fn list_resources(&self) -> Call {
        self.spawn(|g| async move {
            let listed: Vec<Value> = g
                .list_resources()
                .await
                .into_iter()
                .map(|r| json_value!({"server": r.server, "resource": r.item}))
                .collect();
            json(&listed)
        })
    }

    /// Reads `uri` from the server that offers it.
    fn read_resource(&self, uri: String) -> Call {
        self.spawn(|g| async move { json(&g.read_resource(&uri).await?) })
    }

    /// Connects every server that is not connected and lists again.
    fn refresh(&self) -> Call {
        self.spawn(|g| async move {
            g.refresh().await;
            none()
        })
    }

    /// Closes every connection; finishes once they are closed.
    fn close(&self) -> Call {
        self.spawn(|g| async move {
            g.close().await;
            none()
        })
    }

    /// Shuts the group's runtime down now (after `close`).
    fn shutdown(&self) {
        self.runtime.shutdown();
    }
}
