//! Operations that run on a Tokio runtime and finish in Python.
//!
//! Every asynchronous operation of the native module returns a [`Call`]: a
//! handle Python can wait on (blocking, with the GIL released and Ctrl-C
//! honoured), attach a callback to (how the package makes it awaitable in
//! asyncio), or cancel (which drops the `mcp-core` future, so a request in
//! flight is cancelled on the wire too). The value is converted to a Python
//! object only when Python asks for it, with the GIL held.

use std::future::Future;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use pyo3::exceptions::{PyRuntimeError, PyTimeoutError};
use pyo3::prelude::*;
use serde::Serialize;
use tokio::runtime::{Handle, Runtime};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::convert::to_py;
use super::errors::{Failure, to_pyerr};

/// Turns a finished operation's value into a Python object (GIL held).
pub(crate) type Convert = Box<dyn FnOnce(Python<'_>) -> PyResult<Py<PyAny>> + Send>;

/// How an operation ended.
pub(crate) type Outcome = Result<Convert, Failure>;

/// How often a blocking wait wakes up to run Python's signal handlers.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// The value `value` serialized to JSON now (off the GIL) and converted to
/// Python objects when asked for.
pub(crate) fn json<T: Serialize>(value: &T) -> Outcome {
    let value = serde_json::to_value(value)?;
    Ok(Box::new(move |py| Ok(to_py(py, &value)?.unbind())))
}

/// `None`.
pub(crate) fn none() -> Outcome {
    Ok(Box::new(|py| Ok(py.None())))
}

enum State {
    Pending(Vec<Py<PyAny>>),
    Ready(Outcome),
    Converted(Result<Py<PyAny>, PyErr>),
}

/// The shared state of one operation.
pub(crate) struct CallInner {
    state: Mutex<State>,
    ready: Condvar,
    cancel: CancellationToken,
}

impl std::fmt::Debug for CallInner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallInner")
            .field("done", &self.is_done())
            .finish_non_exhaustive()
    }
}

impl CallInner {
    fn new() -> Self {
        Self {
            state: Mutex::new(State::Pending(Vec::new())),
            ready: Condvar::new(),
            cancel: CancellationToken::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn is_done(&self) -> bool {
        !matches!(*self.lock(), State::Pending(_))
    }

    /// Stores the outcome (once) and returns the callbacks to run.
    fn set(&self, outcome: Outcome) -> Vec<Py<PyAny>> {
        let mut state = self.lock();
        if !matches!(*state, State::Pending(_)) {
            return Vec::new();
        }
        let State::Pending(callbacks) = std::mem::replace(&mut *state, State::Ready(outcome))
        else {
            return Vec::new();
        };
        drop(state);
        self.ready.notify_all();
        callbacks
    }

    /// Stores the outcome and runs the callbacks (attaching to Python).
    fn finish(&self, outcome: Outcome) {
        let callbacks = self.set(outcome);
        if !callbacks.is_empty() {
            // `None` when the interpreter is shutting down: nobody waits.
            let _ = super::gil::with_python(|py| run_callbacks(py, callbacks));
        }
    }

    /// The value or exception, converting it on first use.
    fn take_result(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut state = self.lock();
        let converted = match std::mem::replace(&mut *state, State::Pending(Vec::new())) {
            State::Pending(callbacks) => {
                *state = State::Pending(callbacks);
                return Err(PyRuntimeError::new_err("the operation has not finished"));
            }
            State::Ready(Ok(convert)) => convert(py),
            State::Ready(Err(failure)) => Err(to_pyerr(py, failure)),
            State::Converted(done) => done,
        };
        let answer = match &converted {
            Ok(value) => Ok(value.clone_ref(py)),
            Err(err) => Err(err.clone_ref(py)),
        };
        *state = State::Converted(converted);
        answer
    }
}

fn run_callbacks(py: Python<'_>, callbacks: Vec<Py<PyAny>>) {
    for callback in callbacks {
        if let Err(e) = callback.call0(py) {
            e.write_unraisable(py, Some(callback.bind(py)));
        }
    }
}

/// Completes its operation when dropped, so that an operation whose task
/// never ran (its runtime shut down) still ends.
struct Finisher {
    inner: Arc<CallInner>,
    deliver: Option<Deliverer>,
    done: bool,
}

impl Finisher {
    fn complete(&mut self, outcome: Outcome) {
        self.done = true;
        match &self.deliver {
            Some(deliver) => deliver.finish(self.inner.clone(), outcome),
            None => self.inner.finish(outcome),
        }
    }
}

impl Drop for Finisher {
    fn drop(&mut self) {
        if !self.done {
            self.complete(Err(Failure::Core(mcp_core::Error::ConnectionClosed(
                "the connection's runtime shut down before the operation finished".into(),
            ))));
        }
    }
}

/// Runs `future` on `handle` and returns its [`Call`]. With `deliver`, the
/// outcome is handed to Python through that delivery thread, after every
/// callback queued there before it (progress, notifications).
pub(crate) fn spawn<F>(handle: &Handle, deliver: Option<&Deliverer>, future: F) -> Call
where
    F: Future<Output = Outcome> + Send + 'static,
{
    let inner = Arc::new(CallInner::new());
    let mut finisher = Finisher {
        inner: inner.clone(),
        deliver: deliver.cloned(),
        done: false,
    };
    let cancel = inner.cancel.clone();
    handle.spawn(async move {
        let outcome = tokio::select! {
            biased;
            () = cancel.cancelled() => Err(Failure::Cancelled("the operation was cancelled".into())),
            outcome = future => outcome,
        };
        finisher.complete(outcome);
    });
    Call { inner }
}

/// A pending operation of the native module. Use `libmcp.Pending`, which
/// wraps it; this class is not part of the stable API.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct Call {
    inner: Arc<CallInner>,
}

impl Call {
    /// Another handle to the same operation.
    pub(crate) fn share(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }

    /// Waits at most `limit` (GIL released) for the operation to finish;
    /// returns whether it has.
    pub(crate) fn wait_done(&self, py: Python<'_>, limit: Duration) -> bool {
        let inner = &self.inner;
        py.detach(|| {
            let state = inner.lock();
            let (state, _) = inner
                .ready
                .wait_timeout_while(state, limit, |s| matches!(s, State::Pending(_)))
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            !matches!(*state, State::Pending(_))
        })
    }
}

#[pymethods]
impl Call {
    /// Whether the operation has finished (with a value or an error).
    fn done(&self) -> bool {
        self.inner.is_done()
    }

    /// Cancels the operation (a request in flight is cancelled on the wire);
    /// does nothing once it has finished.
    fn cancel(&self) {
        self.inner.cancel.cancel();
    }

    /// Calls `callback()` once the operation has finished: at once if it
    /// already has, otherwise from a library thread.
    fn add_done_callback(&self, py: Python<'_>, callback: Py<PyAny>) {
        let mut state = self.inner.lock();
        if let State::Pending(callbacks) = &mut *state {
            callbacks.push(callback);
            return;
        }
        drop(state);
        run_callbacks(py, vec![callback]);
    }

    /// Waits for the operation (at most `timeout` seconds) and returns its
    /// value or raises its error. The GIL is released while waiting; Ctrl-C
    /// cancels the operation and raises `KeyboardInterrupt`.
    #[pyo3(signature = (timeout = None))]
    fn result(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Py<PyAny>> {
        let deadline = match timeout {
            Some(t) if t.is_finite() && t >= 0.0 => {
                Some(Instant::now() + Duration::from_secs_f64(t))
            }
            Some(t) if t.is_nan() || t < 0.0 => {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "timeout must be a non-negative number of seconds",
                ));
            }
            _ => None,
        };
        loop {
            let slice = match deadline {
                Some(deadline) => {
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        if self.inner.is_done() {
                            break;
                        }
                        return Err(PyTimeoutError::new_err(format!(
                            "the operation did not finish within {} s",
                            timeout.unwrap_or_default()
                        )));
                    }
                    left.min(SIGNAL_CHECK)
                }
                None => SIGNAL_CHECK,
            };
            let Some(_active) = super::gil::Active::enter() else {
                self.inner.cancel.cancel();
                return Err(PyRuntimeError::new_err("the interpreter is shutting down"));
            };
            let inner = &self.inner;
            let done = py.detach(|| {
                let state = inner.lock();
                let (state, _) = inner
                    .ready
                    .wait_timeout_while(state, slice, |s| matches!(s, State::Pending(_)))
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                !matches!(*state, State::Pending(_))
            });
            if done {
                break;
            }
            if let Err(interrupt) = py.check_signals() {
                self.inner.cancel.cancel();
                return Err(interrupt);
            }
        }
        self.inner.take_result(py)
    }

    fn __repr__(&self) -> String {
        let state = if self.inner.is_done() {
            "done"
        } else {
            "pending"
        };
        format!("<libmcp._libmcp.Call {state}>")
    }
}

/// One piece of work for a delivery thread.
enum Job {
    /// Run Python code.
    Python(Box<dyn FnOnce(Python<'_>) + Send>),
    /// Complete an operation.
    Finish(Arc<CallInner>, Outcome),
}

/// A thread that runs a connection's Python callbacks (notifications,
/// progress) and completes its operations, one at a time and in the order
/// the engine produced them: progress reported before a result is seen
/// before the result. Ends when every sender is gone.
#[derive(Clone)]
pub(crate) struct Deliverer {
    tx: mpsc::UnboundedSender<Job>,
}

impl std::fmt::Debug for Deliverer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Deliverer").finish_non_exhaustive()
    }
}

impl Deliverer {
    /// Starts the thread.
    pub(crate) fn start() -> std::io::Result<Self> {
        let (tx, mut rx) = mpsc::unbounded_channel::<Job>();
        std::thread::Builder::new()
            .name("libmcp-deliver".into())
            .spawn(move || {
                while let Some(job) = rx.blocking_recv() {
                    match job {
                        Job::Python(work) => {
                            let _ = super::gil::with_python(work);
                        }
                        Job::Finish(inner, outcome) => inner.finish(outcome),
                    }
                }
            })?;
        Ok(Self { tx })
    }

    /// Runs `work` with the GIL on the delivery thread.
    pub(crate) fn python(&self, work: impl FnOnce(Python<'_>) + Send + 'static) {
        // Fails only once the thread is gone, when nobody is listening.
        let _ = self.tx.send(Job::Python(Box::new(work)));
    }

    fn finish(&self, inner: Arc<CallInner>, outcome: Outcome) {
        if let Err(mpsc::error::SendError(Job::Finish(inner, outcome))) =
            self.tx.send(Job::Finish(inner, outcome))
        {
            inner.finish(outcome);
        }
    }
}

/// A Tokio runtime owned by one Python object, shut down (without waiting
/// for its tasks) when the object closes or is collected.
pub(crate) struct OwnedRuntime {
    runtime: Mutex<Option<Runtime>>,
    handle: Handle,
}

impl std::fmt::Debug for OwnedRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedRuntime").finish_non_exhaustive()
    }
}

impl OwnedRuntime {
    /// A multi-thread runtime with `workers` worker threads.
    pub(crate) fn new(workers: usize) -> PyResult<Self> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .thread_name("libmcp-runtime")
            .enable_all()
            .build()
            .map_err(|e| {
                PyRuntimeError::new_err(format!("could not start a Tokio runtime: {e}"))
            })?;
        Ok(Self {
            handle: runtime.handle().clone(),
            runtime: Mutex::new(Some(runtime)),
        })
    }

    /// Where to spawn work.
    pub(crate) fn handle(&self) -> &Handle {
        &self.handle
    }

    /// Shuts the runtime down now: its tasks are dropped, which closes its
    /// connections and kills its child processes.
    pub(crate) fn shutdown(&self) {
        let runtime = self
            .runtime
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(runtime) = runtime {
            if Handle::try_current().is_ok() {
                // Inside a runtime (a task dropped the last reference): shut
                // down from a plain thread.
                let _ = std::thread::Builder::new()
                    .name("libmcp-shutdown".into())
                    .spawn(move || runtime.shutdown_background());
            } else {
                runtime.shutdown_background();
            }
        }
    }
}

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        self.shutdown();
    }
}
