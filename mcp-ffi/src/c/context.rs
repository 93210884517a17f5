//! `mcp_context`: what a server callback gets to talk back to the client
//! while it handles a request (progress, logs, sampling, elicitation, roots).

use std::ffi::c_char;
use std::fmt;
use std::future::Future;

use mcp_core::schema::{CreateMessageRequestParams, ElicitRequestParams, LoggingLevel};
use serde_json::{Value, json};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use super::error::{Failure, MCP_ERR_CANCELLED, McpResult};
use super::ffi::{arg, boundary, boundary_or, to_json};
use super::runtime::run;
use super::trace::{RequestTrace, carried};

/// The request a server callback is handling: pass it to `mcp_context_*` to
/// report progress, send log messages, or ask the client for sampling,
/// elicitation or its roots.
///
/// Valid only during the callback it was given to (on that callback's thread
/// or any other thread, as long as the callback has not returned). It must
/// not be freed.
pub struct Context {
    pub(crate) cx: mcp_core::server::Context,
    pub(crate) handle: Handle,
    /// Cancelled once nobody waits for the callback's answer any more (its
    /// input-required round ended, or the server dropped the request).
    pub(crate) abandoned: CancellationToken,
    /// The request's trace context, which its questions to the client carry.
    pub(crate) trace: RequestTrace,
}

impl Context {
    /// Runs a question to the client (sampling, elicitation, roots) until it
    /// is answered or the callback's answer is no longer awaited.
    fn ask<T: serde::Serialize + Send + 'static>(
        &self,
        question: impl Future<Output = mcp_core::Result<T>> + Send + 'static,
    ) -> Result<String, Failure> {
        let abandoned = self.abandoned.clone();
        let question = carried(self.trace.context.clone(), question);
        run(&self.handle, None, |_| async move {
            tokio::select! {
                result = question => to_json(&result?),
                () = abandoned.cancelled() => Err(Failure::new(
                    MCP_ERR_CANCELLED,
                    "the question went to the client as an input-required result; \
                     the callback runs again with the answer: return now",
                )),
            }
        })
    }
}

impl fmt::Debug for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Context")
            .field("request_id", &self.cx.request_id())
            .finish_non_exhaustive()
    }
}

/// Reports progress on the request, if the client asked for progress (it
/// does nothing otherwise). `progress` should grow with each call; `total` is
/// the value it will reach, or NAN if unknown; `message` may be NULL.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL);
/// `message` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_progress(
    context: *const Context,
    progress: f64,
    total: f64,
    message: *const c_char,
) -> McpResult {
    boundary(|| {
        let context = arg!(handle context);
        let message = arg!(opt_str message).map(str::to_string);
        if !progress.is_finite() {
            return Err(Failure::invalid("`progress` must be a finite number"));
        }
        let total = (!total.is_nan()).then_some(total);
        let cx = context.cx.clone();
        let trace = context.trace.context.clone();
        run(&context.handle, None, |_| {
            carried(trace, async move {
                cx.progress(progress, total, message)
                    .await
                    .map_err(Failure::from)
            })
        })
    })
}

/// Sends a log message (`notifications/message`) to the client, if `level`
/// passes the level the client set with `logging/setLevel` (everything passes
/// until it sets one). `level` is one of `"debug"`, `"info"`, `"notice"`,
/// `"warning"`, `"error"`, `"critical"`, `"alert"`, `"emergency"`; `logger`
/// names the source and may be NULL; `message` is sent as the log's data
/// (a JSON string).
///
/// # Safety
/// `context` is the context given to the running callback (or NULL); the
/// strings are NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_log(
    context: *const Context,
    level: *const c_char,
    logger: *const c_char,
    message: *const c_char,
) -> McpResult {
    boundary(|| {
        let context = arg!(handle context);
        let level = parse_level(arg!(str level))?;
        let logger = arg!(opt_str logger).map(str::to_string);
        let message = arg!(str message).to_string();
        let cx = context.cx.clone();
        let trace = context.trace.context.clone();
        run(&context.handle, None, |_| {
            carried(trace, async move {
                cx.log(level, logger.as_deref(), Value::String(message))
                    .await
                    .map_err(Failure::from)
            })
        })
    })
}

pub(crate) fn parse_level(level: &str) -> Result<LoggingLevel, Failure> {
    serde_json::from_value(Value::String(level.to_string())).map_err(|_| {
        Failure::invalid(format!(
            "unknown log level `{level}`; use debug, info, notice, warning, error, critical, alert or emergency"
        ))
    })
}

/// Whether the client cancelled the request (or the session ended, or the
/// answer is no longer awaited: see `mcp_context_create_message`). A long
/// callback may poll this and give up early; its result is then discarded.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL, which
/// gives false).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_is_cancelled(context: *const Context) -> bool {
    boundary_or(false, || {
        // SAFETY: as the caller guarantees.
        unsafe { context.as_ref() }
            .is_some_and(|c| c.cx.is_cancelled() || c.abandoned.is_cancelled())
    })
}

/// Asks the client's model for a completion (`sampling/createMessage`) and
/// waits for it. `params_json` is a `CreateMessageRequestParams` object
/// (`{"messages":[…],"maxTokens":100}`); on success `*result_json` is the
/// `CreateMessageResult`. Fails with `MCP_ERR_CAPABILITY` (without asking)
/// when the client did not declare `sampling`.
///
/// Under 2026-07-28 a question in a request that stands alone goes to the
/// client as an input-required result, and the client's retry runs the
/// callback again from the start, where the same question is answered at
/// once. The first run's call fails with `MCP_ERR_CANCELLED` as soon as the
/// question has gone out: return then (the result is discarded). A callback
/// must ask the same questions in the same order on each run. The same
/// holds for `mcp_context_elicit` and `mcp_context_list_roots`.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL);
/// `params_json` is NULL or NUL-terminated; `result_json` is NULL or points
/// to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_create_message(
    context: *const Context,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let context = arg!(handle context);
        let params: CreateMessageRequestParams = arg!(json params_json);
        let cx = context.cx.clone();
        let json = context.ask(async move { cx.create_message(params).await })?;
        out.set(&json)
    })
}

/// Asks the user for input through the client (`elicitation/create`) and
/// waits for the answer. `params_json` is an `ElicitRequestParams` object
/// (`{"message":"…","requestedSchema":{…}}`); on success `*result_json` is
/// the `ElicitResult` (`{"action":"accept","content":{…}}`). Fails with
/// `MCP_ERR_CAPABILITY` when the client did not declare `elicitation`.
/// Under 2026-07-28 see `mcp_context_create_message`.
///
/// # Safety
/// As for `mcp_context_create_message`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_elicit(
    context: *const Context,
    params_json: *const c_char,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let context = arg!(handle context);
        let params: ElicitRequestParams = arg!(json params_json);
        let cx = context.cx.clone();
        let json = context.ask(async move { cx.elicit(params).await })?;
        out.set(&json)
    })
}

/// Asks the client for its roots (`roots/list`) and waits for them;
/// `*result_json` is the `ListRootsResult` (`{"roots":[{"uri":…}]}`). Fails
/// with `MCP_ERR_CAPABILITY` when the client did not declare `roots`.
/// Under 2026-07-28 see `mcp_context_create_message`.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL);
/// `result_json` is NULL or points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_list_roots(
    context: *const Context,
    result_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string result_json);
        let context = arg!(handle context);
        let cx = context.cx.clone();
        let json = context.ask(async move { cx.list_roots().await })?;
        out.set(&json)
    })
}

/// Writes what the client said about itself when it initialized:
/// `{"clientInfo":{"name":…,"version":…},"capabilities":{…},"protocolVersion":"…"}`.
///
/// # Safety
/// `context` is the context given to the running callback (or NULL);
/// `info_json` is NULL or points to writable memory for one `char *`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mcp_context_client_info(
    context: *const Context,
    info_json: *mut *mut c_char,
) -> McpResult {
    boundary(|| {
        let out = arg!(out_string info_json);
        let context = arg!(handle context);
        let cx = &context.cx;
        let info = json!({
            "clientInfo": cx.client_info(),
            "capabilities": cx.client_capabilities(),
            "protocolVersion": cx.protocol_version().map(|v| v.as_str()),
        });
        out.set(&to_json(&info)?)
    })
}
