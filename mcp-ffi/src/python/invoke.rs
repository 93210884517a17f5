//! Calling a Python handler. Its invoker (see [`super::server`]) runs on a
//! handler thread ([`super::handlers`]) and answers through a [`Responder`],
//! once. The request's future waits for that answer (spinning first when
//! answers come quickly, [`super::spin`]), answers -32603 when the handler
//! ended without answering, and cancels a coroutine handler when it is
//! dropped first. The handler is called with its request's trace context
//! as Python's current OpenTelemetry context ([`super::trace::attached`]).

use std::sync::{Arc, Mutex};
use std::time::Instant;

use pyo3::prelude::*;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::oneshot;

use mcp_core::jsonrpc::RpcError;
use mcp_core::telemetry::current_trace_context;

use super::context::ServerContext;
use super::convert::from_py;
use super::errors::rpc_error;
use super::spin::{ANSWER, Predictor};

pub(crate) type Answer = Result<Value, RpcError>;

/// What a request shares with the handler answering it: where the answer
/// goes, and how to cancel a coroutine handler.
#[derive(Debug, Default)]
struct Slot {
    /// The answer, and when it was given.
    tx: Option<oneshot::Sender<(Answer, Instant)>>,
    /// The cancel function a coroutine handler's invoker returned.
    cancel: Option<Py<PyAny>>,
    /// The request's future was dropped before the answer.
    abandoned: bool,
}

type SharedSlot = Arc<Mutex<Slot>>;

fn lock_slot(slot: &SharedSlot) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Delivers the answer (the first time); the cancel function is no longer
/// needed (it would keep the coroutine alive).
fn send(slot: &SharedSlot, answer: Answer) -> bool {
    let (tx, cancel) = {
        let mut slot = lock_slot(slot);
        (slot.tx.take(), slot.cancel.take())
    };
    drop(cancel);
    match tx {
        Some(tx) => tx.send((answer, Instant::now())).is_ok(),
        None => false,
    }
}

/// Answers a request whose job ended without an answer and without a
/// coroutine still to give one: dropped unrun (the pool could not run it, or
/// the interpreter is exiting), or a sync invoker that returned without
/// answering. Otherwise the request would wait for ever: its own future
/// keeps the slot, and so the sender, alive.
struct Unanswered(Option<SharedSlot>);

impl Unanswered {
    fn disarm(&mut self) {
        self.0 = None;
    }
}

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some(slot) = self.0.take() {
            send(&slot, Err(RpcError::internal(UNANSWERED)));
        }
    }
}

const UNANSWERED: &str = "the Python handler finished without answering";

/// A Python invoker (see the module docs), with what its calls showed about
/// waiting for them.
#[derive(Debug)]
pub(crate) struct Invoker {
    callable: Py<PyAny>,
    /// Whether its last call made alone answered soon enough to be waited
    /// for by spinning ([`super::spin`]).
    quick: Predictor,
}

impl Invoker {
    pub(crate) fn shared(callable: Py<PyAny>) -> Arc<Self> {
        Arc::new(Self {
            callable,
            quick: Predictor::new(),
        })
    }
}

/// How a handler answers: exactly once, with `resolve(value)` or
/// `reject(code, message, data=None)`. Later calls are ignored.
#[pyclass(frozen, module = "libmcp._libmcp")]
#[derive(Debug)]
pub(crate) struct Responder {
    slot: SharedSlot,
}

#[pymethods]
impl Responder {
    /// Answers with `value` (JSON-compatible: dict, list, str, int, float,
    /// bool, None). Raises `TypeError`/`ValueError` if it is not, without
    /// answering. Returns whether the answer was delivered (False once
    /// answered, or when the request was cancelled meanwhile).
    fn resolve(&self, value: &Bound<'_, PyAny>) -> PyResult<bool> {
        let value = from_py(value)?;
        Ok(send(&self.slot, Ok(value)))
    }

    /// Answers with the JSON-RPC error `code`, `message` and `data`.
    #[pyo3(signature = (code, message, data = None))]
    fn reject(
        &self,
        code: i64,
        message: String,
        data: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let data = data.filter(|d| !d.is_none()).map(from_py).transpose()?;
        Ok(send(&self.slot, Err(rpc_error(code, message, data))))
    }

    /// Whether an answer was given already.
    fn done(&self) -> bool {
        lock_slot(&self.slot).tx.is_none()
    }
}

/// Calls `cancel` (a coroutine handler's cancel function) on a handler
/// thread.
fn call_cancel(cancel: Py<PyAny>) {
    super::handlers::submit(Box::new(move |py| {
        if let Err(e) = cancel.call0(py) {
            e.write_unraisable(py, None);
        }
    }));
}

/// Cancels a running coroutine handler when the request's future is
/// dropped before the handler answered (the client cancelled, or the
/// session ended): at once if its invoker returned already, else as soon
/// as it does.
struct CancelOnDrop(Option<SharedSlot>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(slot) = self.0.take() else { return };
        let cancel = {
            let mut slot = lock_slot(&slot);
            slot.abandoned = true;
            slot.cancel.take()
        };
        if let Some(cancel) = cancel {
            call_cancel(cancel);
        }
    }
}

/// Runs a Python handler through its invoker (on a handler thread, see
/// [`super::handlers`]) and waits for its answer.
pub(crate) async fn invoke<A>(
    invoker: Arc<Invoker>,
    args: A,
    context: Option<ServerContext>,
) -> Answer
where
    A: for<'py> FnOnce(Python<'py>) -> PyResult<Bound<'py, PyAny>> + Send + 'static,
{
    let (tx, mut rx) = oneshot::channel();
    let slot: SharedSlot = Arc::new(Mutex::new(Slot {
        tx: Some(tx),
        ..Slot::default()
    }));
    let mut guard = CancelOnDrop(Some(slot.clone()));
    let mut unanswered = Unanswered(Some(slot.clone()));
    let handler = invoker.clone();
    let trace = current_trace_context();
    let alone = super::handlers::submit(Box::new(move |py| {
        let responder = Responder { slot: slot.clone() };
        let started =
            super::trace::attached(py, trace.as_ref(), || -> PyResult<Option<Py<PyAny>>> {
                let args = args(py)?;
                let context = match context {
                    Some(context) => Py::new(py, context)?.into_any(),
                    None => py.None(),
                };
                let responder = Py::new(py, responder)?;
                let cancel = handler
                    .callable
                    .bind(py)
                    .call1((args, context, responder))?;
                Ok((!cancel.is_none()).then(|| cancel.unbind()))
            });
        match started {
            Ok(None) => {}
            Ok(Some(cancel)) => {
                // The coroutine answers (or its cancellation ends the wait).
                unanswered.disarm();
                let mut locked = lock_slot(&slot);
                if locked.abandoned {
                    drop(locked);
                    call_cancel(cancel);
                } else if locked.tx.is_some() {
                    locked.cancel = Some(cancel);
                }
            }
            Err(e) => {
                send(&slot, Err(RpcError::internal(e)));
            }
        }
    }));
    // Nothing else is running on the pool: wait a moment for a short
    // handler's answer here rather than sleep and be woken for it.
    let submitted = Instant::now();
    let quick = alone.then(|| {
        invoker.quick.spin(ANSWER, || match rx.try_recv() {
            Ok((answer, _)) => Some(Ok(answer)),
            Err(oneshot::error::TryRecvError::Closed) => Some(Err(())),
            Err(oneshot::error::TryRecvError::Empty) => None,
        })
    });
    let answer = match quick.flatten() {
        Some(answer) => answer,
        None => rx.await.map_err(|_| ()).map(|(answer, at)| {
            if alone {
                // When it was answered, not when this task woke to it.
                invoker
                    .quick
                    .record(at.saturating_duration_since(submitted), ANSWER);
            }
            answer
        }),
    };
    guard.0 = None;
    answer.unwrap_or_else(|()| Err(RpcError::internal(UNANSWERED)))
}

/// Decodes what a handler answered as `T`.
pub(crate) fn decode<T: DeserializeOwned>(answer: Answer) -> Result<T, RpcError> {
    serde_json::from_value(answer?).map_err(|e| {
        RpcError::internal(format!(
            "the Python handler returned an invalid result: {e}"
        ))
    })
}
