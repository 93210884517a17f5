//! Entering Python from the library's own threads, safely until exit.
//!
//! CPython ends a non-Python thread that waits for the GIL once the
//! interpreter is finalizing, by unwinding it; unwinding through PyO3's
//! attach guard aborts the process. So the package registers [`shutdown`]
//! with `atexit` (which runs before finalization): from then on library
//! threads no longer enter Python, and `shutdown` waits (briefly, with the
//! GIL released) for those inside to leave.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pyo3::prelude::*;

static CLOSING: AtomicBool = AtomicBool::new(false);
static ACTIVE: AtomicUsize = AtomicUsize::new(0);

/// How long [`shutdown`] waits for library threads to leave Python.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A library thread inside Python (or waiting for it).
pub(crate) struct Active(());

impl Active {
    /// `None` once the interpreter is shutting down.
    pub(crate) fn enter() -> Option<Self> {
        ACTIVE.fetch_add(1, Ordering::SeqCst);
        if CLOSING.load(Ordering::SeqCst) {
            ACTIVE.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Self(()))
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Runs `f` attached to Python from a library thread; `None` (without
/// running it) once the interpreter is shutting down.
pub(crate) fn with_python<R>(f: impl for<'py> FnOnce(Python<'py>) -> R) -> Option<R> {
    let _active = Active::enter()?;
    Python::try_attach(f)
}

/// Called by `atexit`: library threads stop entering Python, and those
/// inside get up to two seconds to leave.
#[pyfunction]
#[pyo3(name = "_shutdown")]
pub(crate) fn shutdown(py: Python<'_>) {
    CLOSING.store(true, Ordering::SeqCst);
    py.detach(|| {
        let deadline = Instant::now() + EXIT_GRACE;
        while ACTIVE.load(Ordering::SeqCst) > 0 && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(2));
        }
    });
}
