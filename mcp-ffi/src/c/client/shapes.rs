//! The argument and result shapes of the generated client requests
//! (`operations.rs`): each takes the C arguments of one shape, checks them,
//! runs the core client's call and writes the result.

use super::*;
use crate::c::ffi::arg_str;

/// No arguments and no result (`mcp_client_ping`).
///
/// # Safety
/// As for the exported functions: `client` is NULL or live, `options` NULL
/// or valid.
pub(super) unsafe fn plain<Fut>(
    client: *const Client,
    options: *const CallOptions,
    method: &'static str,
    run: impl FnOnce(Arc<CoreClient>) -> Fut,
) -> McpResult
where
    Fut: Future<Output = mcp_core::Result<()>> + Send + 'static,
{
    boundary(|| {
        let client = arg!(handle client);
        let options = arg!(call_options options);
        client.call_unit(&options, method, run)
    })
}

/// Every page of a list, written as `{"<key>":[…]}`.
///
/// # Safety
/// As for the exported functions; `result_json` is NULL or writable.
pub(super) unsafe fn listing<T, Fut>(
    client: *const Client,
    options: *const CallOptions,
    result_json: *mut *mut c_char,
    method: &'static str,
    key: &'static str,
    fetch: impl FnOnce(Arc<CoreClient>) -> Fut,
) -> McpResult
where
    T: serde::Serialize,
    Fut: Future<Output = mcp_core::Result<Vec<T>>> + Send + 'static,
{
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        let options = arg!(call_options options);
        out.set(&client.call_json(&options, method, |core| {
            let listing = fetch(core);
            async move {
                let items = serde_json::to_value(listing.await?)?;
                Ok(Map::from_iter([(key.to_string(), items)]))
            }
        })?)
    })
}

/// One string argument (a URI, a task id), with the name its errors use;
/// the result is written to
/// `*result_json`.
///
/// # Safety
/// As for the exported functions; `text` is NULL or NUL-terminated,
/// `result_json` NULL or writable.
pub(super) unsafe fn text_result<T, Fut>(
    client: *const Client,
    (text, name): (*const c_char, &'static str),
    options: *const CallOptions,
    result_json: *mut *mut c_char,
    method: &'static str,
    run: impl FnOnce(Arc<CoreClient>, String) -> Fut,
) -> McpResult
where
    T: serde::Serialize,
    Fut: Future<Output = mcp_core::Result<T>> + Send + 'static,
{
    boundary(|| {
        let out = arg!(out_string result_json);
        let client = arg!(handle client);
        // SAFETY: the exported function's contract (NULL or a string).
        let text = unsafe { arg_str(text, name) }?.to_string();
        let options = arg!(call_options options);
        out.set(&client.call_json(&options, method, |core| run(core, text))?)
    })
}

/// One string argument, with the name its errors use, and no result.
///
/// # Safety
/// As for the exported functions; `text` is NULL or NUL-terminated.
pub(super) unsafe fn text_unit<Fut>(
    client: *const Client,
    (text, name): (*const c_char, &'static str),
    options: *const CallOptions,
    method: &'static str,
    run: impl FnOnce(Arc<CoreClient>, String) -> Fut,
) -> McpResult
where
    Fut: Future<Output = mcp_core::Result<()>> + Send + 'static,
{
    boundary(|| {
        let client = arg!(handle client);
        // SAFETY: the exported function's contract (NULL or a string).
        let text = unsafe { arg_str(text, name) }?.to_string();
        let options = arg!(call_options options);
        client.call_unit(&options, method, |core| run(core, text))
    })
}
