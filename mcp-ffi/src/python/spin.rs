//! Short spin-waits where a thread would otherwise sleep for a few tens of
//! microseconds between a handler's hand-offs.
//!
//! A Python handler call crosses threads twice: a runtime worker hands the
//! call to a handler thread ([`super::handlers`]) and the handler thread
//! hands the answer back. Each hand-off to a sleeping thread is a wake-up,
//! and on a virtual machine whose idle CPUs halt (this project's 2-vCPU
//! test machine) waking a thread on a halted CPU costs tens of
//! microseconds, more than the Python call itself. So, when the process may
//! run on more than one CPU, a handler thread that finished a job spins
//! for [`NEXT_JOB`] before it sleeps (the next call of a busy client lands
//! on a thread that is awake), and a worker that handed a call to an
//! otherwise idle pool spins for [`ANSWER`] before it returns to its other
//! tasks (a short handler's answer is then taken without waking it). Both
//! yield the CPU every few checks, so the thread they wait for can run on
//! the same CPU. On one CPU (`taskset -c 0`) spinning only delays the thread
//! waited for, so nothing spins.
//!
//! A spin that ends empty-handed is CPU thrown away (a client calling every
//! millisecond would cost a handler thread a fifth of a CPU), so each
//! waiter spins only while it pays: a [`Predictor`] (one per handler
//! thread, one per Python handler's answers) remembers whether its last
//! wait ended within the spin limit.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How long a handler thread that finished a job spins for the next one.
/// Longer than a sequential client's round trip on a busy machine (about
/// 50–100 µs), so a client calling again at once finds the thread awake.
pub(crate) const NEXT_JOB: Duration = Duration::from_micros(200);

/// How long a worker spins for the answer of a call it handed to an idle
/// pool: a short handler (most tools) answers within it; a longer one is
/// then awaited as usual.
pub(crate) const ANSWER: Duration = Duration::from_micros(100);

/// Checks between two yields of the CPU.
const CHECKS_PER_YIELD: u32 = 16;

/// Whether spinning can help: the process may run on more than one CPU
/// (its affinity and CPU quota allow it). Read once.
fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::thread::available_parallelism().is_ok_and(|n| n.get() > 1))
}

/// Calls `ready` until it returns `Some` or `limit` has passed (`None`),
/// pausing between calls and yielding the CPU now and then.
fn until<T>(limit: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + limit;
    let mut checks = 0u32;
    loop {
        if let Some(value) = ready() {
            return Some(value);
        }
        if Instant::now() >= deadline {
            return None;
        }
        checks += 1;
        if checks.is_multiple_of(CHECKS_PER_YIELD) {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Whether spinning would have caught a waiter's last wait.
#[derive(Debug)]
pub(crate) struct Predictor(AtomicBool);

impl Predictor {
    pub(crate) const fn new() -> Self {
        Self(AtomicBool::new(true))
    }

    /// Spins (when [`enabled`]) if the last wait ended within `limit`; a spin that ends empty-handed turns spinning off until a
    /// wait is quick again ([`record`](Self::record)).
    pub(crate) fn spin<T>(&self, limit: Duration, ready: impl FnMut() -> Option<T>) -> Option<T> {
        if !enabled() || !self.0.load(Ordering::Relaxed) {
            return None;
        }
        let caught = until(limit, ready);
        if caught.is_none() {
            self.0.store(false, Ordering::Relaxed);
        }
        caught
    }

    /// Records a wait that spinning did not catch, by how long the awaited
    /// thing took to come (measured where it was given, not when the waiter
    /// woke to it, which would count the very wake-up spinning avoids): the
    /// next wait spins if it came within `limit`.
    pub(crate) fn record(&self, took: Duration, limit: Duration) {
        if enabled() {
            self.0.store(took < limit, Ordering::Relaxed);
        }
    }
}
