//! Calling C callbacks: the caller's userdata, the gate that lets freeing a
//! handle wait for its running callbacks, counters of work in progress, and
//! the reply a callback hands back.

use std::cell::Cell;
use std::ffi::{c_char, c_void};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use mcp_core::jsonrpc::RpcError;
use serde::de::DeserializeOwned;

use super::error::{CallbackResult, McpResult};
use super::ffi::take_string;

/// The caller's `void *userdata`, passed back to its callbacks on library
/// threads.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Userdata(pub(crate) *mut c_void);

impl Userdata {
    /// The pointer (a method, so that closures capture the whole `Userdata`,
    /// which is `Send`, rather than the bare pointer field).
    pub(crate) fn ptr(self) -> *mut c_void {
        self.0
    }
}

// SAFETY: the library never dereferences userdata; it only passes it back to
// the caller's callbacks. The header tells callers that callbacks run on
// library threads, so whatever userdata points to must be usable from them.
unsafe impl Send for Userdata {}
// SAFETY: as for `Send`: the pointer is only copied, never dereferenced.
unsafe impl Sync for Userdata {}

thread_local! {
    /// The gate whose callback this thread is running (0: none).
    static INSIDE_GATE: Cell<usize> = const { Cell::new(0) };
}

/// Tracks the C callbacks of one handle that are running, so that freeing
/// the handle can refuse new ones and wait for those running to return.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    state: Mutex<GateState>,
    idle: Condvar,
}

#[derive(Debug, Default)]
struct GateState {
    closed: bool,
    active: usize,
}

impl Gate {
    fn id(self: &Arc<Self>) -> usize {
        Arc::as_ptr(self) as usize
    }

    fn lock(&self) -> MutexGuard<'_, GateState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Marks a callback as running on this thread; `None` once the handle is
    /// being freed.
    pub(crate) fn enter(self: &Arc<Self>) -> Option<GateGuard> {
        {
            let mut state = self.lock();
            if state.closed {
                return None;
            }
            state.active += 1;
        }
        let previous = INSIDE_GATE.with(|inside| inside.replace(self.id()));
        Some(GateGuard {
            gate: self.clone(),
            previous,
        })
    }

    /// Whether this thread is running one of this gate's callbacks.
    pub(crate) fn current_thread_inside(self: &Arc<Self>) -> bool {
        INSIDE_GATE.with(Cell::get) == self.id()
    }

    /// Refuses new callbacks and waits until the running ones have returned
    /// (except the one this thread is running, if any).
    pub(crate) fn close_and_wait(self: &Arc<Self>) {
        let own = usize::from(self.current_thread_inside());
        let mut state = self.lock();
        state.closed = true;
        while state.active > own {
            state = self
                .idle
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }
}

/// A running callback; see [`Gate::enter`].
#[derive(Debug)]
pub(crate) struct GateGuard {
    gate: Arc<Gate>,
    previous: usize,
}

impl Drop for GateGuard {
    fn drop(&mut self) {
        INSIDE_GATE.with(|inside| inside.set(self.previous));
        let mut state = self.gate.lock();
        state.active = state.active.saturating_sub(1);
        if state.active == 0 {
            self.gate.idle.notify_all();
        }
    }
}

/// A count of pieces of work in progress, and a wait until there are none
/// (used when a handle shuts down).
#[derive(Debug, Default)]
pub(crate) struct Counter {
    count: Mutex<usize>,
    idle: Condvar,
}

impl Counter {
    fn lock(&self) -> MutexGuard<'_, usize> {
        self.count
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Counts one piece of work until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>) -> CounterGuard {
        *self.lock() += 1;
        CounterGuard(self.clone())
    }

    /// Waits until nothing is counted, for at most `limit`; whether
    /// nothing is.
    pub(crate) fn wait_idle(&self, limit: Duration) -> bool {
        let count = self.lock();
        let (count, _) = self
            .idle
            .wait_timeout_while(count, limit, |count| *count > 0)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *count == 0
    }
}

/// One piece of work counted by a [`Counter`].
#[derive(Debug)]
pub(crate) struct CounterGuard(Arc<Counter>);

impl Drop for CounterGuard {
    fn drop(&mut self) {
        let mut count = self.0.lock();
        *count = count.saturating_sub(1);
        if *count == 0 {
            self.0.idle.notify_all();
        }
    }
}

/// What a C callback that answers a request gave back.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) code: CallbackResult,
    pub(crate) text: Option<String>,
}

impl Reply {
    /// Calls `callback` with a fresh `char **` and takes ownership of what it
    /// stored there.
    pub(crate) fn collect(callback: impl FnOnce(*mut *mut c_char) -> CallbackResult) -> Self {
        let mut out: *mut c_char = ptr::null_mut();
        let code = callback(&mut out);
        // SAFETY: the callback contract: `*out` is NULL or a string made by
        // `mcp_string_new` (or `malloc`), now owned by the library.
        let text = unsafe { take_string(out) };
        Self { code, text }
    }

    /// Whether the callback returned `code`.
    pub(crate) fn is(&self, code: McpResult) -> bool {
        self.code == code as CallbackResult
    }

    /// A refusal without calling anything (e.g. the handle is being freed).
    pub(crate) fn refused(message: &str) -> Self {
        Self {
            code: McpResult::MCP_ERR_CLOSED as CallbackResult,
            text: Some(message.to_string()),
        }
    }

    fn describe_failure(&self, what: &str) -> String {
        let name = name_of(self.code);
        match &self.text {
            Some(text) if !text.is_empty() => text.clone(),
            _ => format!("the {what} callback failed ({name})"),
        }
    }

    /// The JSON-RPC error this failed reply stands for: the JSON-RPC error
    /// object the callback gave with `MCP_ERR_RPC`, or an internal error
    /// carrying its message.
    pub(crate) fn rpc_error(&self, what: &str) -> RpcError {
        if self.is(McpResult::MCP_ERR_RPC) {
            if let Some(error) = self
                .text
                .as_deref()
                .and_then(|t| serde_json::from_str::<RpcError>(t).ok())
            {
                return error;
            }
        }
        RpcError::internal(self.describe_failure(what))
    }

    /// The JSON-RPC error object a reply with `MCP_ERR_RPC` carries, if its
    /// text is one.
    pub(crate) fn rpc_error_object(&self) -> Option<RpcError> {
        self.text
            .as_deref()
            .and_then(|t| serde_json::from_str::<RpcError>(t).ok())
    }

    /// The message of a failed reply, for results that carry errors as text
    /// (tool results with `isError`).
    pub(crate) fn error_message(&self, what: &str) -> String {
        if self.is(McpResult::MCP_ERR_RPC) {
            if let Some(error) = self
                .text
                .as_deref()
                .and_then(|t| serde_json::from_str::<RpcError>(t).ok())
            {
                return error.message.into_owned();
            }
        }
        self.describe_failure(what)
    }

    /// Decodes a successful reply's JSON, or turns a failed one into its
    /// JSON-RPC error.
    pub(crate) fn into_result<T: DeserializeOwned>(self, what: &str) -> Result<T, RpcError> {
        if !self.is(McpResult::MCP_OK) {
            return Err(self.rpc_error(what));
        }
        let Some(text) = self.text else {
            return Err(RpcError::internal(format!(
                "the {what} callback returned MCP_OK without setting its result"
            )));
        };
        serde_json::from_str(&text).map_err(|e| {
            RpcError::internal(format!(
                "the {what} callback returned a result that does not decode: {e}"
            ))
        })
    }
}

fn name_of(code: CallbackResult) -> &'static str {
    McpResult::from_raw(code).map_or("MCP_ERR_UNKNOWN", McpResult::name)
}
