//! The Streamable HTTP options the Python face takes as keyword arguments
//! (`run_http`, `start_http`, `streamable_http_app`), turned into an
//! [`HttpServerConfig`] in one place.

use std::time::Duration;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use mcp_core::http::{HostPolicy, HttpServerConfig};

/// The options, as Python passes them (`None`: mcp-core's default).
#[derive(Debug, Default)]
pub(crate) struct HttpOptions {
    pub(crate) stateless: bool,
    pub(crate) json_response: bool,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) max_body_size: Option<usize>,
    pub(crate) max_header_size: Option<usize>,
    pub(crate) max_sessions: Option<usize>,
    pub(crate) idle_timeout: Option<f64>,
    pub(crate) cancel_on_disconnect: bool,
}

impl HttpOptions {
    /// The transport's configuration; a zero size or a timeout that is not
    /// a positive number of seconds is a `ValueError`.
    pub(crate) fn config(self) -> PyResult<HttpServerConfig> {
        let policy = match self.allowed_hosts {
            None => HostPolicy::Loopback,
            Some(hosts) if hosts.iter().any(|h| h == "*") => HostPolicy::Any,
            Some(hosts) => HostPolicy::AllowList(hosts),
        };
        let mut config = HttpServerConfig::default()
            .stateless(self.stateless)
            .json_response(self.json_response)
            .host_policy(policy)
            .cancel_on_disconnect(self.cancel_on_disconnect);
        let positive = |name: &str, value: Option<usize>| match value {
            Some(0) => Err(PyValueError::new_err(format!("{name} must be at least 1"))),
            other => Ok(other),
        };
        if let Some(bytes) = positive("max_body_size", self.max_body_size)? {
            config = config.max_body_size(bytes);
        }
        if let Some(bytes) = positive("max_header_size", self.max_header_size)? {
            config = config.max_header_size(bytes);
        }
        if let Some(sessions) = positive("max_sessions", self.max_sessions)? {
            config = config.max_sessions(sessions);
        }
        if let Some(seconds) = self.idle_timeout {
            let timeout = Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|t| !t.is_zero())
                .ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "idle_timeout must be a positive number of seconds, not {seconds}"
                    ))
                })?;
            config = config.idle_timeout(timeout);
        }
        Ok(config)
    }
}
