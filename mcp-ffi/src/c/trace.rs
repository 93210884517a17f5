//! W3C trace context across the C boundary, both ways. The protocol part
//! (`_meta`, the handler's parent) is mcp-core's ([`mcp_core::telemetry`]);
//! this module only moves the two strings:
//! - a call carries `mcp_call_options.traceparent` / `.tracestate`
//!   (`from_options`, `carried`);
//! - a server callback reads its request's with `mcp_context_traceparent` /
//!   `mcp_context_tracestate` (`RequestTrace`), and the questions it asks
//!   the client through its `mcp_context` carry them on.
//!
//! A malformed value is ignored (as if none were given), never an error.

use std::ffi::{CStr, CString, c_char};
use std::future::Future;

use futures::future::Either;
use mcp_core::telemetry::{TraceContext, current_trace_context, with_trace_context};

use super::context::Context;
use super::ffi::boundary_or;

/// The trace context of a call's options: `None` when `traceparent` is
/// NULL, not UTF-8 or not a W3C `traceparent` (a bad `tracestate` alone is
/// dropped).
///
/// # Safety
/// Each pointer is NULL or a NUL-terminated string.
pub(crate) unsafe fn from_options(
    traceparent: *const c_char,
    tracestate: *const c_char,
) -> Option<TraceContext> {
    // SAFETY: as the caller guarantees.
    let text = |p: *const c_char| (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) });
    let traceparent = text(traceparent)?.to_str().ok()?;
    let tracestate = text(tracestate).and_then(|s| s.to_str().ok());
    TraceContext::from_values(traceparent, tracestate, None)
}

/// `future` run with `context` as its trace context (unchanged when
/// `None`).
pub(crate) fn carried<F: Future>(
    context: Option<TraceContext>,
    future: F,
) -> impl Future<Output = F::Output> {
    match context {
        Some(context) => Either::Left(with_trace_context(context, future)),
        None => Either::Right(future),
    }
}

/// The trace context of the request a server callback handles, taken in
/// the handler's task, with the strings its getters return.
#[derive(Debug, Default)]
pub(crate) struct RequestTrace {
    pub(crate) context: Option<TraceContext>,
    traceparent: Option<CString>,
    tracestate: Option<CString>,
}

impl RequestTrace {
    /// The current request's (call in the handler's task).
    pub(crate) fn current() -> Self {
        let Some(context) = current_trace_context() else {
            return Self::default();
        };
        Self {
            traceparent: CString::new(context.parent.to_string()).ok(),
            tracestate: context
                .tracestate
                .as_deref()
                .and_then(|s| CString::new(s).ok()),
            context: Some(context),
        }
    }
}

fn text_of(value: Option<&CString>) -> *const c_char {
    value.map_or(std::ptr::null(), |s| s.as_ptr())
}

/// The W3C `traceparent` of the request the callback handles
/// (`"00-<trace id>-<caller's span id>-<flags>"`), or NULL when it carried
/// none (or a malformed one). The string is the library's, valid until the
/// callback returns.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL, which
/// gives NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_traceparent(context: *const Context) -> *const c_char {
    boundary_or(std::ptr::null(), || {
        // SAFETY: as the caller guarantees.
        let context = unsafe { context.as_ref() };
        context.map_or(std::ptr::null(), |c| text_of(c.trace.traceparent.as_ref()))
    })
}

/// The W3C `tracestate` of the request the callback handles, or NULL when it
/// carried none (or no valid `traceparent`). The string is the library's,
/// valid until the callback returns.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL, which
/// gives NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_tracestate(context: *const Context) -> *const c_char {
    boundary_or(std::ptr::null(), || {
        // SAFETY: as the caller guarantees.
        let context = unsafe { context.as_ref() };
        context.map_or(std::ptr::null(), |c| text_of(c.trace.tracestate.as_ref()))
    })
}
