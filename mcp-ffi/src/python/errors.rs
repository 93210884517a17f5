//! Failures of `mcp-core` operations and how they become Python exceptions.
//!
//! The exception classes are defined in Python (`libmcp.errors`, where they
//! have docstrings and a constructor users can raise them with); the class of
//! a failure is chosen by its `mcp_core::ErrorKind` in one place
//! (`exception_classes.rs`), and `libmcp.errors._from_core` builds it.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use mcp_core::ErrorKind;
use mcp_core::jsonrpc::RpcError;

use crate::exception_classes::exception_class;

use super::convert::to_py;

/// Why an operation did not produce a value.
#[derive(Debug)]
pub(crate) enum Failure {
    /// `mcp-core` reported an error.
    Core(mcp_core::Error),
    /// The operation was cancelled (by Python, or because its runtime is
    /// gone).
    Cancelled(String),
    /// A Python exception (e.g. a conversion failed).
    Python(PyErr),
}

impl From<mcp_core::Error> for Failure {
    fn from(error: mcp_core::Error) -> Self {
        Self::Core(error)
    }
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Self {
        Self::Python(error)
    }
}

impl From<serde_json::Error> for Failure {
    fn from(error: serde_json::Error) -> Self {
        Self::Core(mcp_core::Error::Json(error))
    }
}

static FROM_CORE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The Python exception for `failure`.
pub(crate) fn to_pyerr(py: Python<'_>, failure: Failure) -> PyErr {
    let (class, message, code, data) = match failure {
        Failure::Python(err) => return err,
        Failure::Cancelled(why) => (exception_class(ErrorKind::Cancelled), why, None, None),
        Failure::Core(error) => {
            let class = exception_class(error.kind());
            // A group member's failure is its source's kind, named.
            let (server, inner) = match &error {
                mcp_core::Error::Member { server, source } => (Some(server), source.as_ref()),
                other => (None, other),
            };
            match inner {
                mcp_core::Error::Rpc(rpc) => (
                    class,
                    match server {
                        Some(server) => format!("server `{server}`: {}", rpc.message),
                        None => rpc.message.to_string(),
                    },
                    Some(rpc.code.0),
                    rpc.data.clone(),
                ),
                _ => (class, error.to_string(), None, None),
            }
        }
    };
    let built = (|| -> PyResult<PyErr> {
        let from_core = FROM_CORE.get_or_try_init(py, || {
            py.import("libmcp.errors")?
                .getattr("_from_core")
                .map(Bound::unbind)
        })?;
        let data = match &data {
            Some(value) => to_py(py, value)?,
            None => py.None().into_bound(py),
        };
        let exc = from_core.bind(py).call1((class, &message, code, data))?;
        Ok(PyErr::from_value(exc))
    })();
    built.unwrap_or_else(|e| {
        PyRuntimeError::new_err(format!(
            "{message} (and libmcp.errors could not build the exception: {e})"
        ))
    })
}

/// A JSON-RPC error from what a Python handler rejected with.
pub(crate) fn rpc_error(code: i64, message: String, data: Option<serde_json::Value>) -> RpcError {
    let error = RpcError::new(mcp_core::jsonrpc::ErrorCode(code), message);
    match data {
        Some(data) => error.with_data(data),
        None => error,
    }
}
