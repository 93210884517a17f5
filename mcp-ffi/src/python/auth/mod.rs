//! OAuth 2.1 in the Python face, over `mcp_core::auth`: [`client`] is what
//! `Client.http(url, auth=libmcp.auth.OAuth(...))` builds (an
//! [`OAuthClient`](mcp_core::auth::OAuthClient) whose token store and
//! redirect handling may be Python objects), [`resource`] is what
//! `run_http(..., auth=libmcp.auth.ProtectedResource(...))` builds (a
//! [`ProtectedResource`](mcp_core::auth::ProtectedResource) whose token
//! validator is a Python callable).
//!
//! Python callables are reached through the same invokers as handlers
//! ([`super::server::invoke`]): sync ones run on Tokio's blocking pool,
//! coroutine functions on the client's (or server's) event loop.

pub(crate) mod client;
pub(crate) mod resource;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Seconds since the Unix epoch, as Python's `time.time()` counts.
fn epoch_seconds(at: SystemTime) -> f64 {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The instant `seconds` after the Unix epoch; `None` for a value that is
/// not a finite non-negative number.
fn from_epoch_seconds(seconds: f64) -> Option<SystemTime> {
    let since = Duration::try_from_secs_f64(seconds).ok()?;
    UNIX_EPOCH.checked_add(since)
}

use pyo3::prelude::*;

/// Adds the OAuth classes and functions to the native module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<client::TokenStorage>()?;
    module.add_class::<client::OAuthProvider>()?;
    module.add_class::<resource::ResourceSettings>()?;
    module.add_function(wrap_pyfunction!(client::oauth_provider, module)?)?;
    Ok(())
}
