//! The Streamable HTTP options the Python face takes as keyword arguments
//! (`run_http`, `start_http`, `streamable_http_app`), handed to the one
//! model every face shares (`mcp_host::HttpOptions`), which checks them.

use std::time::Duration;

use pyo3::prelude::*;

use super::errors::{Failure, to_pyerr};

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
    pub(crate) store: Option<String>,
}

impl HttpOptions {
    /// The shared model; a bad value raises `libmcp.InvalidArgument` (a
    /// `ValueError`) with the model's message.
    pub(crate) fn options(self, py: Python<'_>) -> PyResult<mcp_host::HttpOptions> {
        self.check().map_err(|e| to_pyerr(py, Failure::Core(e)))
    }

    fn check(self) -> Result<mcp_host::HttpOptions, mcp_core::Error> {
        let mut options = mcp_host::HttpOptions::default();
        options.set_stateless(self.stateless);
        options.set_json_response(self.json_response);
        options.set_cancel_on_disconnect(self.cancel_on_disconnect);
        if let Some(hosts) = &self.allowed_hosts {
            options.set_allowed_hosts(hosts.iter().map(String::as_str))?;
        }
        if let Some(bytes) = self.max_body_size {
            options.set_max_body_size(bytes)?;
        }
        if let Some(bytes) = self.max_header_size {
            options.set_max_header_size(bytes)?;
        }
        if let Some(sessions) = self.max_sessions {
            options.set_max_sessions(sessions)?;
        }
        if let Some(seconds) = self.idle_timeout {
            // Negative, NaN or too large is no duration at all.
            let timeout = Duration::try_from_secs_f64(seconds).map_err(|_| {
                mcp_core::Error::InvalidArgument(mcp_host::HttpOptions::IDLE_TIMEOUT_RULE.into())
            })?;
            options.set_idle_timeout(timeout)?;
        }
        if let Some(url) = &self.store {
            options.set_store(url)?;
        }
        Ok(options)
    }
}
