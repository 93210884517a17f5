//! `mcp-soak`: soak and scale checks of libmcp's servers, bounded in time,
//! with a pass criterion each; prints one table and exits 0 only if every
//! criterion holds.
//!
//! ```text
//! mcp-soak [--quick] [--calls N] [--sessions N] [--streams N]
//!          [--idle-timeout SECS] [--hold SECS] [--only PHASE,…]
//!          [--time-limit SECS]
//! ```
//!
//! Phases: `sessions` (N opened and deleted, N left to expire: RSS back near
//! its baseline), `stdio` and `http` (N `tools/call`: no growth of RSS),
//! `streams` (N sessions holding GET streams: pings answered in time,
//! memory per stream). `tests/soak/run.sh` builds in release mode and runs
//! it; the test suite does not.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a soak driver: the table goes to stdout, progress to stderr"
)]

mod calls;
mod report;
mod sessions;
mod streams;

use std::time::{Duration, Instant};

use mcp_bench::Error;
use mcp_bench::machine::{cpu_model, load_average, now_utc};
use report::Row;

/// What to run, and how much of it.
#[derive(Debug)]
pub(crate) struct Config {
    quick: bool,
    /// `tools/call` per transport.
    pub(crate) calls: u64,
    /// Sessions per leg (deleted; left to expire).
    pub(crate) sessions: usize,
    /// Sessions holding a GET stream.
    pub(crate) streams: usize,
    /// The idle timeout of the server of the sessions phase.
    pub(crate) idle_timeout: Duration,
    /// How long the streams are held.
    pub(crate) hold: Duration,
    only: Option<Vec<String>>,
    /// The whole run is stopped after this.
    time_limit: Duration,
}

impl Config {
    fn wants(&self, phase: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|p| p == phase))
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: mcp-soak [--quick] [--calls N] [--sessions N] [--streams N] \
         [--idle-timeout SECS] [--hold SECS] [--only PHASE,…] [--time-limit SECS]\n\
         phases: sessions, stdio, http, streams"
    );
    std::process::exit(2)
}

fn parse_args() -> Config {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let mut config = if quick {
        Config {
            quick,
            calls: 20_000,
            sessions: 1_000,
            streams: 200,
            idle_timeout: Duration::from_secs(2),
            hold: Duration::from_secs(3),
            only: None,
            time_limit: Duration::from_secs(120),
        }
    } else {
        Config {
            quick,
            calls: 1_000_000,
            sessions: 10_000,
            streams: 1_000,
            // Opening 10,000 sessions takes about 3 s here: all of them are
            // open at once before the first expires.
            idle_timeout: Duration::from_secs(5),
            hold: Duration::from_secs(15),
            only: None,
            time_limit: Duration::from_secs(14 * 60),
        }
    };
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--quick" => {}
            "--calls" => config.calls = number(&value()).max(1),
            "--sessions" => config.sessions = number(&value()).max(1) as usize,
            "--streams" => config.streams = number(&value()).max(1) as usize,
            "--idle-timeout" => config.idle_timeout = seconds(&value(), 0.5, 600.0),
            "--hold" => config.hold = seconds(&value(), 0.5, 3600.0),
            "--time-limit" => config.time_limit = seconds(&value(), 10.0, 24.0 * 3600.0),
            "--only" => config.only = Some(value().split(',').map(str::to_string).collect()),
            _ => usage(),
        }
    }
    config
}

/// A count, with `_` or `,` allowed as separators.
fn number(text: &str) -> u64 {
    text.replace(['_', ','], "")
        .parse()
        .unwrap_or_else(|_| usage())
}

fn seconds(text: &str, min: f64, max: f64) -> Duration {
    let secs: f64 = text.parse().unwrap_or_else(|_| usage());
    if !secs.is_finite() {
        usage();
    }
    Duration::from_secs_f64(secs.clamp(min, max))
}

/// Progress on stderr.
pub(crate) fn log(what: &str) {
    eprintln!("mcp-soak:   {what}");
}

/// Ends the process once `limit` has passed. The servers end with it: each
/// exits when its stdin (a pipe from this process) closes.
fn watchdog(limit: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(limit);
        eprintln!(
            "mcp-soak: the run took longer than {:.0} s; stopping",
            limit.as_secs_f64()
        );
        std::process::exit(3);
    });
}

type Phase = fn(&Config) -> Result<Vec<Row>, Error>;

fn main() {
    let config = parse_args();
    watchdog(config.time_limit);
    let started = Instant::now();
    let date = now_utc();
    let load_before = load_average();
    let phases: [(&str, &str, Phase); 4] = [
        (
            "sessions",
            "HTTP sessions opened, deleted, expired",
            sessions::run,
        ),
        ("stdio", "stdio tools/call", calls::stdio),
        ("http", "HTTP tools/call", calls::http),
        ("streams", "SSE streams held open", streams::run),
    ];
    let mut rows = Vec::new();
    for (name, what, phase) in phases {
        if !config.wants(name) {
            continue;
        }
        eprintln!("mcp-soak: [{name}] {what}");
        let phase_started = Instant::now();
        match phase(&config) {
            Ok(more) => rows.extend(more),
            Err(e) => {
                eprintln!("mcp-soak: {name} failed: {e}");
                rows.push(Row::failed(what, &e.to_string()));
            }
        }
        log(&format!(
            "{name} took {:.1} s",
            phase_started.elapsed().as_secs_f64()
        ));
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let header = [
        format!(
            "## mcp-soak{} — {date}",
            if config.quick { " --quick" } else { "" }
        ),
        String::new(),
        format!(
            "machine: {cores} cores (nproc), {}; load average before {load_before}, after {}; \
             whole run {:.0} s",
            cpu_model(),
            load_average(),
            started.elapsed().as_secs_f64()
        ),
        "RSS: VmRSS of the server process from /proc/PID/status; the servers are \
         `bench-server` (an echo tool) on 127.0.0.1"
            .to_string(),
    ];
    print!("{}", report::render(&rows, &header));
    let all_hold = !rows.is_empty() && rows.iter().all(|r| r.holds != Some(false));
    std::process::exit(if all_hold { 0 } else { 1 });
}
