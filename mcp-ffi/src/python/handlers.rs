//! The threads that call Python handlers: a process-wide pool of
//! long-lived threads that stay attached to the interpreter.
//!
//! Each thread attaches once (one `PyThreadState` for its lifetime) and
//! detaches (`PyEval_SaveThread`) while it waits for work, so running a
//! handler costs taking the GIL, not creating and destroying a thread
//! state as `PyGILState_Ensure`/`Release` do on a thread that has none (as
//! Tokio's blocking pool threads do). The pool grows on demand, like
//! Tokio's blocking pool, so a handler that blocks never holds up another:
//! a job goes to an idle thread (the most recently idle one, whose caches
//! are warm), or to a new one (up to [`MAX_THREADS`]). A thread idle for
//! [`KEEP_ALIVE`] leaves. A thread that finished a job first spins a
//! little for the next one ([`super::spin`]).
//!
//! Exiting follows [`super::gil`]: a thread counts as active from the
//! moment it takes a job until it waits again, and once the interpreter is
//! shutting down a waiting thread never re-attaches (it parks for good; the
//! process is exiting).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::Thread;
use std::time::{Duration, Instant};

use pyo3::prelude::*;

use super::gil::Active;

/// Work for a pool thread, run attached to Python.
pub(crate) type Job = Box<dyn for<'py> FnOnce(Python<'py>) + Send>;

/// The most threads at once (Tokio's blocking pool has the same default).
const MAX_THREADS: usize = 512;

/// How long an idle thread waits for work before it leaves.
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// An idle thread, and where a job is handed to it.
struct Waiter {
    /// The job handed over, and when.
    job: Mutex<Option<(Job, Instant)>>,
    thread: Thread,
    /// Whether this thread spins for its next job.
    spin: super::spin::Predictor,
}

struct State {
    /// Jobs no idle thread was there for.
    jobs: VecDeque<Job>,
    /// Idle threads, the most recently idle last: it gets the next job
    /// (its caches are warm, and the others may sleep on).
    idle: Vec<Arc<Waiter>>,
    /// Threads alive.
    threads: usize,
}

static STATE: Mutex<State> = Mutex::new(State {
    jobs: VecDeque::new(),
    idle: Vec::new(),
    threads: 0,
});

fn lock() -> MutexGuard<'static, State> {
    STATE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `job` on a pool thread, attached to Python: the most recently idle
/// one, else a new one. The job is dropped without running if the
/// interpreter is shutting down (or no thread can be started at all).
/// Returns whether an idle thread took it while no other pool thread was
/// busy (the caller may then wait a moment for its outcome, see
/// [`super::spin`]).
pub(crate) fn submit(job: Job) -> bool {
    let mut state = lock();
    if let Some(waiter) = state.idle.pop() {
        let alone = state.threads - state.idle.len() == 1;
        drop(state);
        *waiter.job.lock().unwrap_or_else(PoisonError::into_inner) = Some((job, Instant::now()));
        waiter.thread.unpark();
        return alone;
    }
    state.jobs.push_back(job);
    if state.threads >= MAX_THREADS {
        // Every thread is busy: the job waits for one.
        return false;
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
    false
}

/// Counts a thread out when it ends, however it ends.
struct Alive;

impl Drop for Alive {
    fn drop(&mut self) {
        lock().threads -= 1;
    }
}

/// Waits (detached from Python) up to [`KEEP_ALIVE`] for a job; `None`
/// when the thread should leave.
fn wait(waiter: &Arc<Waiter>) -> Option<Job> {
    let take = || {
        waiter
            .job
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    };
    {
        let mut state = lock();
        if let Some(job) = state.jobs.pop_front() {
            return Some(job);
        }
        state.idle.push(waiter.clone());
    }
    let idle_since = Instant::now();
    if let Some((job, _)) = waiter.spin.spin(super::spin::NEXT_JOB, take) {
        return Some(job);
    }
    let deadline = idle_since + KEEP_ALIVE;
    loop {
        if let Some((job, handed)) = take() {
            // How long the job took to come, not to wake this thread.
            let took = handed.saturating_duration_since(idle_since);
            waiter.spin.record(took, super::spin::NEXT_JOB);
            return Some(job);
        }
        let now = Instant::now();
        if now >= deadline {
            let mut state = lock();
            if let Some(at) = state.idle.iter().position(|w| Arc::ptr_eq(w, waiter)) {
                state.idle.remove(at);
                return None;
            }
            // Popped by `submit`, which is handing a job over: wait for it.
            drop(state);
            std::thread::park();
        } else {
            std::thread::park_timeout(deadline - now);
        }
    }
}

/// The next job (`None`: the thread should leave), with the thread counted
/// active. Never returns once the interpreter is shutting down:
/// re-attaching then could end the thread by unwinding it (see `gil`), so
/// the job is dropped and the thread waits for the exit.
fn next(waiter: &Arc<Waiter>) -> (Option<Job>, Active) {
    let job = wait(waiter);
    match Active::enter() {
        Some(active) => (job, active),
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
    let waiter = Arc::new(Waiter {
        job: Mutex::new(None),
        thread: std::thread::current(),
        spin: super::spin::Predictor::new(),
    });
    let (Some(first), active) = next(&waiter) else {
        return;
    };
    // The thread stays counted active until it has detached for good.
    let _active = Python::try_attach(move |py| {
        let mut job = first;
        let mut active = active;
        loop {
            job(py);
            // Waiting is not being active: `gil::shutdown` need not wait.
            let (next_job, next_active) = py.detach(|| {
                drop(active);
                next(&waiter)
            });
            active = next_active;
            match next_job {
                Some(next_job) => job = next_job,
                None => return active,
            }
        }
    });
}
