//! Many `tools/call` over stdio and over Streamable HTTP, in ten slices
//! with the server's RSS read after each: the end must not be above the
//! sample after the first tenth by more than a small margin.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mcp_bench::Error;
use mcp_bench::http::{Answers, Conn, Target};
use mcp_bench::procs::{Listening, piped, rss_kib, sibling};
use mcp_bench::stdio::StdioPeer;

use crate::Config;
use crate::report::{Row, count, delta_mib, mib};

/// The end sample may exceed the sample after the first tenth by this.
pub(crate) const MARGIN_KIB: u64 = 4 * 1024;
/// Requests in flight on the stdio pipe.
const STDIO_DEPTH: usize = 32;
/// Keep-alive connections per HTTP session (two sessions).
const HTTP_CONNS_PER_SESSION: usize = 8;
/// Slices of the run; RSS is read after each.
const SLICES: u64 = 10;

/// RSS samples over a run of `calls` calls.
#[derive(Debug)]
struct Growth {
    calls: u64,
    elapsed: Duration,
    /// KiB after each slice.
    samples: Vec<u64>,
}

impl Growth {
    fn row(&self, check: String) -> Row {
        let early = self.samples.first().copied().unwrap_or(0);
        let end = self.samples.last().copied().unwrap_or(0);
        let max = self.samples.iter().copied().max().unwrap_or(0);
        let later_calls = self.calls - self.calls / SLICES;
        let per_call = (end as f64 - early as f64) * 1024.0 / later_calls.max(1) as f64;
        Row {
            check,
            measured: format!(
                "{} calls/s; RSS after the first tenth {}, max {}, end {} ({}, \
                 {per_call:.2} B per later call)",
                count((self.calls as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64),
                mib(early),
                mib(max),
                mib(end),
                delta_mib(early, end)
            ),
            criterion: format!(
                "every answer a result; end ≤ first-tenth sample + {}",
                mib(MARGIN_KIB)
            ),
            holds: Some(end <= early + MARGIN_KIB),
        }
    }
}

/// The size of each slice of `calls` (the last takes the remainder).
fn slices(calls: u64) -> Vec<u64> {
    let slices = SLICES.min(calls.max(1));
    let each = calls / slices;
    let mut out = vec![each; slices as usize];
    if let Some(last) = out.last_mut() {
        *last += calls - each * slices;
    }
    out
}

/// `calls` calls to `bench-server stdio`, `STDIO_DEPTH` in flight.
pub(crate) fn stdio(config: &Config) -> Result<Vec<Row>, Error> {
    let program = sibling("bench-server")?;
    let mut peer = StdioPeer::spawn("bench-server stdio", piped(&program, &["stdio"]))?;
    let result = (|| -> Result<Growth, Error> {
        peer.initialize()?;
        peer.verify_call()?;
        let started = Instant::now();
        let mut samples = Vec::new();
        let mut done = 0;
        for slice in slices(config.calls) {
            let run = peer.pipelined_count(STDIO_DEPTH, slice)?;
            done += run.count;
            samples.push(rss_kib(peer.pid())?);
            crate::log(&format!("stdio: {} calls", count(done)));
        }
        Ok(Growth {
            calls: done,
            elapsed: started.elapsed(),
            samples,
        })
    })();
    peer.stop();
    let growth = result?;
    if growth.calls != config.calls {
        return Err(format!("{} of {} calls answered", growth.calls, config.calls).into());
    }
    Ok(vec![growth.row(format!(
        "stdio: {} tools/call, {STDIO_DEPTH} in flight",
        count(config.calls)
    ))])
}

/// `calls` calls to `bench-server http`, over two sessions: one whose
/// client accepts JSON (answers are JSON bodies) and one that accepts only
/// event streams (answers are SSE, stored for resumption).
pub(crate) fn http(config: &Config) -> Result<Vec<Row>, Error> {
    let server = Listening::start(&sibling("bench-server")?, &["http"])?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(http_calls(config, &server));
    drop(runtime);
    server.stop();
    let growth = result?;
    Ok(vec![growth.row(format!(
        "HTTP: {} tools/call over 2 sessions (JSON and SSE answers), \
         {HTTP_CONNS_PER_SESSION} connections each",
        count(config.calls)
    ))])
}

type Worker = (Arc<Target>, Conn);

async fn http_calls(config: &Config, server: &Listening) -> Result<Growth, Error> {
    let addr = server.addr;
    let mut workers: Vec<Worker> = Vec::new();
    for answers in [Answers::Json, Answers::Sse] {
        let mut first = Conn::connect(addr).await?;
        let target = Arc::new(Target::with_session(addr, answers, &mut first).await?);
        first.verify_call(&target).await?;
        workers.push((target.clone(), first));
        for _ in 1..HTTP_CONNS_PER_SESSION {
            workers.push((target.clone(), Conn::connect(addr).await?));
        }
    }
    let next = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let mut samples = Vec::new();
    let mut end = 0;
    for slice in slices(config.calls) {
        end += slice;
        workers = http_slice(workers, &next, end).await?;
        next.store(end, Ordering::Relaxed);
        samples.push(rss_kib(server.pid())?);
        crate::log(&format!("http: {} calls", count(end)));
    }
    Ok(Growth {
        calls: end,
        elapsed: started.elapsed(),
        samples,
    })
}

/// Every worker calls until the shared counter reaches `end`.
async fn http_slice(
    workers: Vec<Worker>,
    next: &Arc<AtomicU64>,
    end: u64,
) -> Result<Vec<Worker>, Error> {
    let mut tasks = Vec::with_capacity(workers.len());
    for (target, mut conn) in workers {
        let next = next.clone();
        tasks.push(tokio::spawn(async move {
            loop {
                let id = next.fetch_add(1, Ordering::Relaxed);
                if id >= end {
                    break;
                }
                conn.call(&target, id + 2).await?;
            }
            Ok::<_, Error>((target, conn))
        }));
    }
    let mut back = Vec::with_capacity(tasks.len());
    for task in tasks {
        back.push(task.await.map_err(|e| e.to_string())??);
    }
    Ok(back)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_add_up() {
        assert_eq!(slices(100), vec![10; 10]);
        assert_eq!(slices(25).iter().sum::<u64>(), 25);
        assert_eq!(slices(3), vec![1, 1, 1]);
        assert_eq!(slices(0), vec![0]);
    }
}
