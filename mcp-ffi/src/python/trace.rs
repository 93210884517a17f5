//! OpenTelemetry trace context across the Python boundary, both ways. The
//! protocol part (`_meta`, the handler's parent) is mcp-core's
//! ([`mcp_core::telemetry`]); this module only moves a context between it
//! and Python's current OpenTelemetry context.
//!
//! The package installs two hooks ([`set_trace_hooks`], from
//! `libmcp/_telemetry.py`) when `opentelemetry-api` is importable, none
//! otherwise:
//! - `current()` returns the caller's current context as a W3C carrier dict
//!   (`traceparent`, `tracestate`, `baggage`), or None. A client call
//!   ([`carried`]) runs inside [`with_trace_context`] with it, so the request
//!   carries it in its `_meta`.
//! - `attach(carrier)` makes a carrier the current context and returns the
//!   function that detaches it. A handler is called inside it ([`attached`]),
//!   with the context of the request it answers
//!   ([`mcp_core::telemetry::current_trace_context`]).
//!
//! Without hooks neither costs more than reading a lock. A hook that fails,
//! or a carrier that is no W3C context, is ignored: tracing never fails a
//! call.

use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock};

use futures::future::Either;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use mcp_core::telemetry::{TraceContext, with_trace_context};

/// The package's two hooks.
#[derive(Debug)]
struct Hooks {
    current: Py<PyAny>,
    attach: Py<PyAny>,
}

static HOOKS: RwLock<Option<Arc<Hooks>>> = RwLock::new(None);

fn hooks() -> Option<Arc<Hooks>> {
    HOOKS.read().unwrap_or_else(PoisonError::into_inner).clone()
}

/// Installs the hooks (both callables), or removes them (both None).
#[pyfunction]
#[pyo3(signature = (current = None, attach = None))]
pub(crate) fn set_trace_hooks(current: Option<Py<PyAny>>, attach: Option<Py<PyAny>>) {
    let hooks = match (current, attach) {
        (Some(current), Some(attach)) => Some(Arc::new(Hooks { current, attach })),
        _ => None,
    };
    *HOOKS.write().unwrap_or_else(PoisonError::into_inner) = hooks;
}

/// The caller's current context, from the `current()` hook.
fn outgoing(py: Python<'_>) -> Option<TraceContext> {
    let hooks = hooks()?;
    let carrier = hooks.current.bind(py).call0().ok()?;
    let carrier = carrier.cast::<PyDict>().ok()?;
    let value =
        |key: &str| -> Option<String> { carrier.get_item(key).ok()??.extract::<String>().ok() };
    TraceContext::from_values(
        &value("traceparent")?,
        value("tracestate").as_deref(),
        value("baggage").as_deref(),
    )
}

/// `future` run with the calling Python thread's current OpenTelemetry
/// context as its trace context (unchanged when there is none). Called
/// where a client request starts, with the GIL held.
pub(crate) fn carried<F: Future>(future: F) -> impl Future<Output = F::Output> {
    carried_or(None, future)
}

/// [`carried`], with `inherited` (the context of the request a handler
/// answers) when Python has no current context: the handler's own requests,
/// which run as tasks of their own, repeat it as mcp-core's would.
pub(crate) fn carried_or<F: Future>(
    inherited: Option<TraceContext>,
    future: F,
) -> impl Future<Output = F::Output> {
    match Python::attach(outgoing).or(inherited) {
        Some(context) => Either::Left(with_trace_context(context, future)),
        None => Either::Right(future),
    }
}

/// Runs `f` (which calls a handler) with `context` attached as Python's
/// current OpenTelemetry context, detached again after it.
pub(crate) fn attached<R>(
    py: Python<'_>,
    context: Option<&TraceContext>,
    f: impl FnOnce() -> R,
) -> R {
    let detach = context.and_then(|context| attach(py, &*hooks()?, context));
    let result = f();
    if let Some(detach) = detach {
        if let Err(e) = detach.call0() {
            e.write_unraisable(py, None);
        }
    }
    result
}

/// Calls the `attach` hook with `context` as a carrier dict; the function
/// that detaches it.
fn attach<'py>(
    py: Python<'py>,
    hooks: &Hooks,
    context: &TraceContext,
) -> Option<Bound<'py, PyAny>> {
    let carrier = PyDict::new(py);
    carrier
        .set_item("traceparent", context.parent.to_string())
        .ok()?;
    if let Some(tracestate) = &context.tracestate {
        carrier.set_item("tracestate", tracestate).ok()?;
    }
    if let Some(baggage) = &context.baggage {
        carrier.set_item("baggage", baggage).ok()?;
    }
    hooks.attach.bind(py).call1((carrier,)).ok()
}
