//! `mcp_cancel_token`: cancels client calls from another thread.

use tokio_util::sync::CancellationToken;

use super::error::McpResult;
use super::ffi::{arg, boundary, boundary_or, take_handle};

/// Cancels the calls it is given to (`mcp_call_options.cancel`) from any
/// thread: `mcp_cancel_token_cancel` makes each call that uses it fail at
/// once with `MCP_ERR_CANCELLED` and tells the server
/// (`notifications/cancelled`). A cancelled token stays cancelled: a call
/// given it later fails at once. Made by `mcp_cancel_token_new`, freed with
/// `mcp_cancel_token_free` once no call uses it.
#[derive(Debug, Default)]
pub struct CancelToken(pub(crate) CancellationToken);

/// Makes a token, not cancelled; `*token_out` receives it.
///
/// # Safety
/// `token_out` is NULL or points to writable memory for one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_cancel_token_new(token_out: *mut *mut CancelToken) -> McpResult {
    boundary(|| {
        arg!(out_handle token_out).give(CancelToken::default());
        Ok(())
    })
}

/// Cancels every call using `token`, now and later. Callable from any
/// thread, also from callbacks; cancelling twice is fine.
///
/// # Safety
/// `token` is NULL or a live token.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_cancel_token_cancel(token: *const CancelToken) -> McpResult {
    boundary(|| {
        arg!(handle token).0.cancel();
        Ok(())
    })
}

/// Whether `token` was cancelled (false for NULL).
///
/// # Safety
/// `token` is NULL or a live token.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_cancel_token_is_cancelled(token: *const CancelToken) -> bool {
    boundary_or(false, || {
        // SAFETY: as the caller guarantees.
        unsafe { token.as_ref() }.is_some_and(|t| t.0.is_cancelled())
    })
}

/// Frees a token. NULL is a no-op. No call may be using it.
///
/// # Safety
/// `token` is NULL or a token from `mcp_cancel_token_new` not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_cancel_token_free(token: *mut CancelToken) {
    boundary_or((), || {
        // SAFETY: NULL or from `mcp_cancel_token_new`, given up by the caller.
        drop(unsafe { take_handle(token) });
    });
}
