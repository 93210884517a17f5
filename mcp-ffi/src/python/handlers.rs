//! The threads that call Python handlers: a process-wide pool of
//! long-lived threads that stay attached to the interpreter.
//!
//! Each thread attaches once (one `PyThreadState` for its lifetime) and
//! detaches (`PyEval_SaveThread`) while it waits for work, so running a
//! handler costs taking the GIL, not creating and destroying a thread
//! state as `PyGILState_Ensure`/`Release` do on a thread that has none (as
//! Tokio's blocking pool threads do). The pool grows on demand, like
//! Tokio's blocking pool, so a handler that blocks never holds up another:
//! a job goes to an idle thread, or to a new one (up to [`MAX_THREADS`]).
//! A thread idle for [`KEEP_ALIVE`] leaves.
//!
//! Exiting follows [`super::gil`]: a thread counts as active from the
//! moment it takes a job until it waits again, and once the interpreter is
//! shutting down a waiting thread never re-attaches (it parks for good; the
//! process is exiting).

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use pyo3::prelude::*;

use super::gil::Active;

/// Work for a pool thread, run attached to Python.
pub(crate) type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// The most threads at once (Tokio's blocking pool has the same default).
const MAX_THREADS: usize = 512;

/// How long an idle thread waits for work before it leaves.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

struct State {
    jobs: VecDeque<Job>,
    /// Threads waiting for a job.
    idle: usize,
    /// Threads alive.
    threads: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    jobs: VecDeque::new(),
    idle: 0,
    threads: 0,
});
static WORK: Condvar = Condvar::new();

fn lock() -> MutexGuard<'static, State> {
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs `job` on a pool thread, attached to Python. The job is dropped
/// without running if the interpreter is shutting down (or no thread can
/// be started at all).
pub(crate) fn submit(job: Job) {
    let mut state = lock();
    state.jobs.push_back(job);
    if state.jobs.len() <= state.idle {
        drop(state);
        WORK.notify_one();
        return;
    }
    if state.threads >= MAX_THREADS {
        // Every thread is busy: the job waits for one.
        return;
    }
    state.threads += 1;
    drop(state);
    let started = std::thread::Builder::new()
        .name("libmcp-handler".into())
        .spawn(run);
    if started.is_err() {
        let mut state = lock();
        state.threads -= 1;
        if state.threads == 0 {
            // Nobody would ever run them.
            let jobs = std::mem::take(&mut state.jobs);
            drop(state);
            drop(jobs);
        }
    }
}

/// Counts a thread out when it ends, however it ends.
struct Alive;

impl Drop for Alive {
    fn drop(&mut self) {
        lock().threads -= 1;
    }
}

/// The next job, waiting (detached from Python) up to [`KEEP_ALIVE`] for
/// one; `None` when the thread should leave. Returns only while the
/// interpreter is not shutting down, with the thread counted active.
fn next() -> (Option<Job>, Active) {
    let mut state = lock();
    let job = loop {
        if let Some(job) = state.jobs.pop_front() {
            break Some(job);
        }
        state.idle += 1;
        let (woken, timeout) = WORK
            .wait_timeout(state, KEEP_ALIVE)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state = woken;
        state.idle -= 1;
        if timeout.timed_out() && state.jobs.is_empty() {
            break None;
        }
    };
    drop(state);
    match Active::enter() {
        Some(active) => (job, active),
        // Re-attaching now could end the thread by unwinding it (see
        // `gil`): the job is dropped and the thread waits for the exit.
        None => {
            drop(job);
            loop {
                std::thread::park();
            }
        }
    }
}

fn run() {
    let _alive = Alive;
    let (Some(first), active) = next() else {
        return;
    };
    // The thread stays counted active until it has detached for good.
    let _active = Python::try_attach(move |py| {
        let mut job = first;
        let mut active = active;
        loop {
            job(py);
            // Waiting is not being active: `gil::shutdown` need not wait.
            let (next_job, next_active) = py.detach(move || {
                drop(active);
                next()
            });
            active = next_active;
            match next_job {
                Some(next_job) => job = next_job,
                None => return active,
            }
        }
    });
}
