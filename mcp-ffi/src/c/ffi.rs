//! Plumbing shared by every exported function: the panic boundary, reading
//! arguments, writing out-parameters, library-allocated strings, calling C
//! callbacks, and running futures on a handle's runtime.

use std::cell::Cell;
use std::ffi::{CStr, CString, c_char, c_void};
use std::future::Future;
use std::panic::{self, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, mpsc};
use std::time::Duration;

use futures::FutureExt;
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::ProgressNotificationParams;
use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::runtime::{Handle, Runtime};

use super::error::{
    Failure, MCP_ERR_CLOSED, MCP_ERR_INVALID_JSON, MCP_ERR_RPC, MCP_OK, McpResult, mcp_result_name,
};

/// Most entries read from a NULL-terminated array of strings (arguments,
/// environment, headers): a guard against a missing terminator.
const MAX_LIST_LEN: usize = 65_536;

/// Worker threads of each handle's runtime.
const WORKER_THREADS: usize = 2;

/// Runs the body of an exported function that returns an [`McpResult`]:
/// failures are recorded as the thread's last error, panics become
/// `MCP_ERR_PANIC`.
pub(crate) fn boundary(body: impl FnOnce() -> Result<(), Failure>) -> McpResult {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => MCP_OK,
        Ok(Err(failure)) => failure.record(),
        Err(payload) => Failure::panic(payload.as_ref()).record(),
    }
}

/// Runs the body of an exported function that returns something other than
/// an [`McpResult`]; a panic returns `fallback`.
pub(crate) fn boundary_or<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    match panic::catch_unwind(AssertUnwindSafe(body)) {
        Ok(value) => value,
        Err(payload) => {
            Failure::panic(payload.as_ref()).record();
            fallback
        }
    }
}

/// Reads a required string argument.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid and
/// unchanged for `'a` (the duration of the exported call).
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, name: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::null(name));
    }
    // SAFETY: not NULL, and the caller guarantees a live NUL-terminated string.
    let text = unsafe { CStr::from_ptr(ptr) };
    text.to_str()
        .map_err(|e| Failure::invalid(format!("`{name}` is not valid UTF-8: {e}")))
}

/// Reads an optional string argument (NULL gives `None`).
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_opt_str<'a>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded from the caller.
    unsafe { arg_str(ptr, name) }.map(Some)
}

/// Parses a required JSON text argument.
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_json<T: DeserializeOwned>(
    ptr: *const c_char,
    name: &str,
) -> Result<T, Failure> {
    // SAFETY: forwarded from the caller.
    let text = unsafe { arg_str(ptr, name) }?;
    parse_json(text, name)
}

/// Parses an optional JSON text argument (NULL gives `None`).
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn arg_opt_json<T: DeserializeOwned>(
    ptr: *const c_char,
    name: &str,
) -> Result<Option<T>, Failure> {
    // SAFETY: forwarded from the caller.
    match unsafe { arg_opt_str(ptr, name) }? {
        Some(text) => parse_json(text, name).map(Some),
        None => Ok(None),
    }
}

pub(crate) fn parse_json<T: DeserializeOwned>(text: &str, name: &str) -> Result<T, Failure> {
    serde_json::from_str(text)
        .map_err(|e| Failure::new(MCP_ERR_INVALID_JSON, format!("`{name}`: {e}")))
}

/// Reads a NULL-terminated array of strings; a NULL array is empty.
///
/// # Safety
/// `ptr` is NULL or points to an array of string pointers, each valid as for
/// [`arg_str`], ending with a NULL entry.
pub(crate) unsafe fn arg_str_list(
    ptr: *const *const c_char,
    name: &str,
) -> Result<Vec<String>, Failure> {
    let mut items = Vec::new();
    if ptr.is_null() {
        return Ok(items);
    }
    for i in 0..MAX_LIST_LEN {
        // SAFETY: the array is NULL-terminated and we stop at the terminator,
        // so index `i` is within it.
        let item = unsafe { *ptr.add(i) };
        if item.is_null() {
            return Ok(items);
        }
        // SAFETY: each entry before the terminator is a valid string.
        let text = unsafe { arg_str(item, name) }?;
        items.push(text.to_string());
    }
    Err(Failure::invalid(format!(
        "`{name}` has more than {MAX_LIST_LEN} entries; is its NULL terminator missing?"
    )))
}

/// Borrows the object behind a handle argument.
///
/// # Safety
/// `ptr` is NULL or a handle made by this library and not yet freed.
pub(crate) unsafe fn arg_handle<'a, T>(ptr: *const T, name: &str) -> Result<&'a T, Failure> {
    // SAFETY: the caller guarantees a live handle when not NULL.
    unsafe { ptr.as_ref() }.ok_or_else(|| Failure::null(name))
}

/// An out-parameter for a library-allocated string: checked for NULL and set
/// to NULL when made, written only on success.
pub(crate) struct OutString(*mut *mut c_char);

impl OutString {
    /// # Safety
    /// `ptr` is NULL or points to writable memory for one `char *`.
    pub(crate) unsafe fn new(ptr: *mut *mut c_char, name: &str) -> Result<Self, Failure> {
        if ptr.is_null() {
            return Err(Failure::null(name));
        }
        // SAFETY: not NULL and writable, as the caller guarantees.
        unsafe { ptr.write(ptr::null_mut()) };
        Ok(Self(ptr))
    }

    pub(crate) fn set(self, text: &str) -> Result<(), Failure> {
        let string = alloc_string(text)?;
        // SAFETY: checked and writable when `self` was made; the exported
        // call has not returned yet.
        unsafe { self.0.write(string) };
        Ok(())
    }
}

/// An optional out-parameter of a plain value (NULL: not wanted).
pub(crate) struct OutValue<T>(*mut T);

impl<T> OutValue<T> {
    /// # Safety
    /// `ptr` is NULL or points to writable memory for one `T`.
    pub(crate) unsafe fn new(ptr: *mut T) -> Self {
        Self(ptr)
    }

    pub(crate) fn set(self, value: T) {
        if !self.0.is_null() {
            // SAFETY: not NULL and writable, as the caller of `new` guaranteed.
            unsafe { self.0.write(value) };
        }
    }
}

/// Copies `text` into a new NUL-terminated C string allocated with `malloc`,
/// the allocation `mcp_string_free` releases. An interior NUL ends the string
/// early as C sees it (JSON text never holds one).
pub(crate) fn alloc_string(text: &str) -> Result<*mut c_char, Failure> {
    let bytes = text.as_bytes();
    let Some(size) = bytes.len().checked_add(1) else {
        return Err(Failure::internal("string too long"));
    };
    // SAFETY: `malloc` has no preconditions; the result is checked for NULL.
    let buffer = unsafe { libc::malloc(size) }.cast::<u8>();
    if buffer.is_null() {
        return Err(Failure::internal(format!(
            "out of memory allocating {size} bytes"
        )));
    }
    // SAFETY: `buffer` has room for `size` = len + 1 bytes and does not
    // overlap `bytes`.
    unsafe {
        ptr::copy_nonoverlapping(bytes.as_ptr(), buffer, bytes.len());
        buffer.add(bytes.len()).write(0);
    }
    Ok(buffer.cast::<c_char>())
}

/// Releases a string made by [`alloc_string`] (NULL is a no-op).
///
/// # Safety
/// `ptr` is NULL or a string from [`alloc_string`] (i.e. `malloc`) that is
/// not used afterwards.
pub(crate) unsafe fn free_string(ptr: *mut c_char) {
    if !ptr.is_null() {
        // SAFETY: allocated with `malloc`, freed once, as the caller guarantees.
        unsafe { libc::free(ptr.cast::<c_void>()) };
    }
}

/// Takes a string that a callback handed over (made by `mcp_string_new`, or
/// `malloc`'d), copies it and frees it.
///
/// # Safety
/// As for [`free_string`]; the string is NUL-terminated.
pub(crate) unsafe fn take_string(ptr: *mut c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: a live NUL-terminated string, as the caller guarantees.
    let text = unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned();
    // SAFETY: as the caller guarantees; not used after this.
    unsafe { free_string(ptr) };
    Some(text)
}

/// A C string for passing to a callback; interior NULs (impossible in JSON
/// text, possible in a child's stderr) become U+FFFD.
pub(crate) fn c_string_lossy(text: &str) -> CString {
    CString::new(text).unwrap_or_else(|_| {
        let cleaned = text.replace('\0', "\u{fffd}");
        CString::new(cleaned).unwrap_or_default()
    })
}

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

/// Makes the multi-thread runtime a handle owns.
pub(crate) fn new_runtime(kind: &str) -> Result<Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKER_THREADS)
        .thread_name(format!("mcp-{kind}"))
        .on_thread_start(block_sigpipe)
        .enable_all()
        .build()
        .map_err(|e| Failure::internal(format!("could not start the {kind}'s runtime: {e}")))
}

/// Blocks SIGPIPE in the calling (runtime) thread, so that writing to a peer
/// that went away (a server process that died, a client that closed stdout)
/// fails with EPIPE instead of killing a C program that did not ignore
/// SIGPIPE. The signal stays pending on that thread and is never delivered.
fn block_sigpipe() {
    let mut set = SigSet::empty();
    set.add(Signal::SIGPIPE);
    // Cannot fail with a valid `how` and set.
    let _ = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None);
}

/// Shuts a handle's runtime down. From one of the handle's own callbacks
/// (which runs on the runtime's blocking pool and cannot wait for itself) the
/// shutdown happens in the background.
pub(crate) fn shut_down(runtime: Runtime, from_own_callback: bool) {
    if from_own_callback {
        runtime.shutdown_background();
    } else {
        runtime.shutdown_timeout(Duration::from_secs(5));
    }
}

/// A progress callback from `mcp_call_options`, called on the thread that
/// made the call.
pub(crate) type ProgressFn = Box<dyn Fn(&ProgressNotificationParams)>;

/// Progress updates sent from the runtime to the waiting caller.
pub(crate) type ProgressSink = Arc<dyn Fn(ProgressNotificationParams) + Send + Sync>;

enum Event<T> {
    Progress(ProgressNotificationParams),
    Done(std::thread::Result<Result<T, Failure>>),
}

/// Runs a future on `handle`'s runtime and blocks the calling thread until it
/// ends. When `progress` is given, the future gets a sink for progress
/// updates, and `progress` is called with each of them on this thread while
/// it waits. Works from any thread that is not a worker of that runtime
/// (the library never calls it from one).
pub(crate) fn run<T, F>(
    handle: &Handle,
    progress: Option<&ProgressFn>,
    make: impl FnOnce(Option<ProgressSink>) -> F,
) -> Result<T, Failure>
where
    T: Send + 'static,
    F: Future<Output = Result<T, Failure>> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Event<T>>();
    let sink: Option<ProgressSink> = progress.map(|_| {
        let tx = tx.clone();
        let sink: ProgressSink = Arc::new(move |p| {
            let _ = tx.send(Event::Progress(p));
        });
        sink
    });
    let future = make(sink);
    handle.spawn(async move {
        let outcome = AssertUnwindSafe(future).catch_unwind().await;
        let _ = tx.send(Event::Done(outcome));
    });
    loop {
        match rx.recv() {
            Ok(Event::Progress(p)) => {
                if let Some(callback) = progress {
                    callback(&p);
                }
            }
            Ok(Event::Done(Ok(result))) => return result,
            Ok(Event::Done(Err(payload))) => return Err(Failure::panic(payload.as_ref())),
            Err(_) => {
                return Err(Failure::new(
                    MCP_ERR_CLOSED,
                    "the handle is shutting down; the call was abandoned",
                ));
            }
        }
    }
}

/// What a C callback that answers a request gave back.
#[derive(Debug)]
pub(crate) struct Reply {
    pub(crate) code: McpResult,
    pub(crate) text: Option<String>,
}

impl Reply {
    /// Calls `callback` with a fresh `char **` and takes ownership of what it
    /// stored there.
    pub(crate) fn collect(callback: impl FnOnce(*mut *mut c_char) -> McpResult) -> Self {
        let mut out: *mut c_char = ptr::null_mut();
        let code = callback(&mut out);
        // SAFETY: the callback contract: `*out` is NULL or a string made by
        // `mcp_string_new` (or `malloc`), now owned by the library.
        let text = unsafe { take_string(out) };
        Self { code, text }
    }

    /// A refusal without calling anything (e.g. the handle is being freed).
    pub(crate) fn refused(message: &str) -> Self {
        Self {
            code: super::error::MCP_ERR_CLOSED,
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
        if self.code == MCP_ERR_RPC {
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
        if self.code == MCP_ERR_RPC {
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
        if self.code != MCP_OK {
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

fn name_of(code: McpResult) -> String {
    let name = mcp_result_name(code);
    // SAFETY: `mcp_result_name` always returns a static NUL-terminated string.
    unsafe { CStr::from_ptr(name) }
        .to_string_lossy()
        .into_owned()
}

/// Serializes to JSON text, reporting failure as an internal error.
pub(crate) fn to_json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, Failure> {
    serde_json::to_string(value)
        .map_err(|e| Failure::internal(format!("could not encode JSON: {e}")))
}

/// A JSON value that must be an object.
pub(crate) fn expect_object(
    value: Value,
    name: &str,
) -> Result<serde_json::Map<String, Value>, Failure> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(Failure::new(
            MCP_ERR_INVALID_JSON,
            format!("`{name}` must be a JSON object, got {other}"),
        )),
    }
}
