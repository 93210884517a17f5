//! Many concurrent SSE streams: N sessions each holding its GET stream open
//! on a connection of its own, a few of them busy (`tools/call` and
//! `notifications/cancelled`), while another session pings. The server must
//! answer every ping within a bound and keep every stream open; the memory
//! of a session and of its stream is reported.

use std::time::{Duration, Instant};

use mcp_bench::Error;
use mcp_bench::http::{Answers, Conn, Target};
use mcp_bench::procs::{Listening, rss_kib, sibling};
use mcp_bench::stats::Run;

use crate::Config;
use crate::report::{Row, count, mib, ms};
use crate::sessions::{connect, open_many};

/// Every ping must be answered within this.
pub(crate) const PING_BOUND: Duration = Duration::from_millis(250);
/// Sessions (holding streams too) that send requests and notifications.
const BUSY: usize = 8;
/// Pause between pings.
const PING_EVERY: Duration = Duration::from_millis(20);
/// Left alone before RSS is read.
const SETTLE: Duration = Duration::from_millis(500);
/// A notification every busy session sends between calls: cancelling a
/// request that is not in progress (the server ignores it).
const CANCELLED: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"none","reason":"mcp-soak"}}"#;

/// Descriptors the driver needs beyond one per stream.
const SPARE_FDS: u64 = 256;

pub(crate) fn run(config: &Config) -> Result<Vec<Row>, Error> {
    let needed = config.streams as u64 + SPARE_FDS;
    if let Some(limit) = open_files_limit() {
        if limit < needed {
            return Err(format!(
                "{} streams need {needed} open files; the limit is {limit} (raise `ulimit -n`)",
                config.streams
            )
            .into());
        }
    }
    let server = Listening::start(&sibling("bench-server")?, &["http"])?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(hold(config, &server));
    drop(runtime);
    server.stop();
    result
}

/// The soft limit on open files of this process (the server inherits it).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

async fn hold(config: &Config, server: &Listening) -> Result<Vec<Row>, Error> {
    let (addr, pid, n) = (server.addr, server.pid(), config.streams);
    let mut control = Conn::connect(addr).await?;
    let pinger = Target::with_session(addr, Answers::Json, &mut control).await?;
    control.verify_call(&pinger).await?;
    tokio::time::sleep(SETTLE).await;
    let rss_start = rss_kib(pid)?;

    log(&format!("opening {} sessions", count(n as u64)));
    let (_conns, ids) = open_many(connect(addr, 4).await?, addr, n).await?;
    tokio::time::sleep(SETTLE).await;
    let rss_sessions = rss_kib(pid)?;

    // One connection per stream (HTTP/1.1), used once for a ping so that
    // the server's buffers for it exist before the stream is opened.
    log(&format!("opening {} connections", count(n as u64)));
    let mut held = Vec::with_capacity(n);
    for (k, id) in ids.iter().enumerate() {
        let mut conn = Conn::connect(addr).await?;
        conn.ping(&Target::for_session(addr, Answers::Json, id), k as u64 + 2)
            .await?;
        held.push(conn);
    }
    tokio::time::sleep(SETTLE).await;
    let rss_conns = rss_kib(pid)?;

    log(&format!("opening {} GET streams", count(n as u64)));
    for (conn, id) in held.iter_mut().zip(&ids) {
        conn.open_stream(&Target::for_session(addr, Answers::Json, id))
            .await?;
    }
    tokio::time::sleep(SETTLE).await;
    let rss_streams = rss_kib(pid)?;

    log(&format!(
        "holding them {:.0} s, {BUSY} sessions busy, pinging",
        config.hold.as_secs_f64()
    ));
    let deadline = Instant::now() + config.hold;
    let mut busy = Vec::with_capacity(BUSY);
    for (k, id) in ids.iter().take(BUSY).enumerate() {
        let answers = if k % 2 == 0 {
            Answers::Json
        } else {
            Answers::Sse
        };
        let target = Target::for_session(addr, answers, id);
        busy.push(tokio::spawn(work(target, deadline)));
    }
    let mut pings = Run::default();
    let mut id = 2;
    while Instant::now() < deadline {
        let sent = Instant::now();
        control.ping(&pinger, id).await?;
        pings.latencies_ns.push(sent.elapsed().as_nanos() as u64);
        pings.count += 1;
        id += 1;
        tokio::time::sleep(PING_EVERY).await;
    }
    let mut calls = 0;
    for task in busy {
        calls += task.await.map_err(|e| e.to_string())??;
    }
    let open = held.iter_mut().map(Conn::still_open).filter(|&o| o).count();
    let rss_end = rss_kib(pid)?;

    let max_ms = pings.latencies_ns.iter().copied().max().unwrap_or(0) as f64 / 1e6;
    let holds = open == n && max_ms <= PING_BOUND.as_secs_f64() * 1e3 && pings.count > 0;
    let per = |from: u64, to: u64| to.saturating_sub(from) as f64 / n.max(1) as f64;
    Ok(vec![
        Row {
            check: format!(
                "SSE: {} sessions each holding a GET stream for {:.0} s, {BUSY} of them busy \
                 (tools/call + notifications/cancelled)",
                count(n as u64),
                config.hold.as_secs_f64()
            ),
            measured: format!(
                "{} of {} streams open at the end; {} busy calls ({}/s); ping p50 {}, \
                 p99 {}, max {} ({} pings)",
                count(open as u64),
                count(n as u64),
                count(calls),
                count((calls as f64 / config.hold.as_secs_f64().max(1e-9)) as u64),
                ms(pings.percentile_us(50.0) / 1e3),
                ms(pings.percentile_us(99.0) / 1e3),
                ms(max_ms),
                count(pings.count)
            ),
            criterion: format!(
                "every stream open; every ping answered within {} ms",
                PING_BOUND.as_millis()
            ),
            holds: Some(holds),
        },
        Row {
            check: "SSE: memory per session holding a GET stream".into(),
            measured: format!(
                "{:.1} KiB: session {:.1} + its HTTP/1.1 connection {:.1} + the stream on \
                 it {:.1}; RSS {} → {} with sessions → {} with connections → {} with \
                 streams → {} after the busy period",
                per(rss_start, rss_streams),
                per(rss_start, rss_sessions),
                per(rss_sessions, rss_conns),
                per(rss_conns, rss_streams),
                mib(rss_start),
                mib(rss_sessions),
                mib(rss_conns),
                mib(rss_streams),
                mib(rss_end)
            ),
            criterion: "reported".into(),
            holds: None,
        },
    ])
}

/// Calls and notifications in one session until `deadline`, on a
/// connection of its own (the session's stream holds another); returns the
/// number of calls.
async fn work(target: Target, deadline: Instant) -> Result<u64, Error> {
    let mut conn = Conn::connect(target.addr).await?;
    let mut calls = 0;
    while Instant::now() < deadline {
        conn.call(&target, calls + 1).await?;
        let status = conn.post(&target, CANCELLED).await?.status;
        if status != 202 {
            return Err(format!("notifications/cancelled: HTTP {status}").into());
        }
        calls += 1;
    }
    Ok(calls)
}

fn log(what: &str) {
    crate::log(&format!("streams: {what}"));
}
