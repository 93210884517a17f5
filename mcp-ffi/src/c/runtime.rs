//! A handle's runtime: starting it, shutting it down, and running a future
//! on it from a C thread (with progress callbacks on that thread).

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use futures::FutureExt;
use mcp_core::schema::ProgressNotificationParams;
use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};
use tokio::runtime::{Handle, Runtime};

use super::error::{Failure, MCP_ERR_CLOSED};

/// Worker threads of each handle's runtime.
const WORKER_THREADS: usize = 2;

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
