//! `mcp-bench`: measures libmcp against floor programs doing the same work
//! in the same run, and prints one table.
//!
//! ```text
//! mcp-bench [--quick] [--reps N] [--secs S] [--only GROUP,…]
//!           [--unpinned-only | --pinned-only]
//!           [--libmcp-python PYTHON] [--sdk-python PYTHON]
//! ```
//!
//! It runs two passes, each in a child process: unpinned, and with driver and
//! servers pinned to one CPU (`taskset -c 0`). Groups: codec, stdio, spawn,
//! http, memory, python, redis. `tests/bench/run.sh` builds in release mode and runs
//! it.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark binary: the table goes to stdout, progress to stderr"
)]

mod driver;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use driver::{Error, Pass, Settings, table, workloads};
use mcp_bench::machine::{cpu_model, load_average, now_utc};

/// A pass that takes longer than this is stopped (its servers end with it:
/// each exits when its stdin closes).
const PASS_TIME_LIMIT: Duration = Duration::from_secs(240);

struct Args {
    settings: Settings,
    pass: Option<String>,
    unpinned: bool,
    pinned: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: mcp-bench [--quick] [--reps N] [--secs S] [--only GROUP,…] \
         [--unpinned-only | --pinned-only] [--libmcp-python PYTHON] [--sdk-python PYTHON]\n\
         groups: codec, stdio, spawn, http, memory, python, redis"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let root = driver::procs::workspace_root();
    let venv_python = root.join("target/interop/venv/bin/python");
    let mut settings = Settings {
        reps: 5,
        duration: Duration::from_secs(1),
        warmup: Duration::from_millis(300),
        only: None,
        libmcp_python: std::env::var_os("LIBMCP_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| venv_python.clone()),
        sdk_python: venv_python,
    };
    let mut args = Args {
        settings: settings.clone(),
        pass: None,
        unpinned: true,
        pinned: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().unwrap_or_else(|| usage());
        match arg.as_str() {
            "--quick" => {
                settings.reps = 3;
                settings.duration = Duration::from_millis(300);
                settings.warmup = Duration::from_millis(100);
            }
            "--reps" => settings.reps = value().parse().unwrap_or_else(|_| usage()),
            "--secs" => {
                let secs: f64 = value().parse().unwrap_or_else(|_| usage());
                settings.duration = Duration::from_secs_f64(secs.clamp(0.05, 30.0));
            }
            "--warmup" => {
                let secs: f64 = value().parse().unwrap_or_else(|_| usage());
                settings.warmup = Duration::from_secs_f64(secs.clamp(0.0, 10.0));
            }
            "--only" => {
                settings.only = Some(value().split(',').map(str::to_string).collect());
            }
            "--libmcp-python" => settings.libmcp_python = PathBuf::from(value()),
            "--sdk-python" => settings.sdk_python = PathBuf::from(value()),
            "--pass" => args.pass = Some(value()),
            "--unpinned-only" => args.pinned = false,
            "--pinned-only" => args.unpinned = false,
            _ => usage(),
        }
    }
    settings.reps = settings.reps.clamp(1, 50);
    args.settings = settings;
    args
}

/// The settings as arguments for a pass's child process.
fn forwarded(settings: &Settings) -> Vec<String> {
    let mut out = vec![
        "--reps".into(),
        settings.reps.to_string(),
        "--secs".into(),
        settings.duration.as_secs_f64().to_string(),
        "--warmup".into(),
        settings.warmup.as_secs_f64().to_string(),
        "--libmcp-python".into(),
        settings.libmcp_python.to_string_lossy().into_owned(),
        "--sdk-python".into(),
        settings.sdk_python.to_string_lossy().into_owned(),
    ];
    if let Some(only) = &settings.only {
        out.push("--only".into());
        out.push(only.join(","));
    }
    out
}

/// Runs one pass in this process and prints it as JSON on stdout.
fn run_pass(mode: String, settings: &Settings) -> Result<(), Error> {
    std::thread::spawn(|| {
        std::thread::sleep(PASS_TIME_LIMIT);
        eprintln!("mcp-bench: the pass took longer than {PASS_TIME_LIMIT:?}; stopping");
        std::process::exit(3);
    });
    let started = Instant::now();
    let mut pass = Pass {
        mode,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..Pass::default()
    };
    workloads::run_all(settings, &mut pass);
    pass.seconds = started.elapsed().as_secs_f64();
    println!("{}", serde_json::to_string(&pass)?);
    Ok(())
}

/// Runs a pass as a child process (under `taskset -c 0` when pinned).
fn child_pass(mode: &str, pinned: bool, settings: &Settings) -> Result<Pass, Error> {
    let exe = std::env::current_exe()?;
    let mut command = if pinned {
        let mut c = Command::new("taskset");
        c.arg("-c").arg("0").arg(&exe);
        c
    } else {
        Command::new(&exe)
    };
    command
        .args(["--pass", mode])
        .args(forwarded(settings))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let output = command
        .output()
        .map_err(|e| format!("cannot run the {mode} pass: {e}"))?;
    if !output.status.success() {
        return Err(format!("the {mode} pass failed ({})", output.status).into());
    }
    Ok(serde_json::from_slice(&output.stdout)?)
}

fn main() {
    let args = parse_args();
    if let Some(mode) = args.pass {
        if let Err(e) = run_pass(mode, &args.settings) {
            eprintln!("mcp-bench: {e}");
            std::process::exit(1);
        }
        return;
    }
    let started = Instant::now();
    let load_before = load_average();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut passes = Vec::new();
    let mut failed = false;
    let pinnable = Command::new("taskset")
        .args(["-c", "0", "true"])
        .status()
        .is_ok_and(|s| s.success());
    let mut notes = Vec::new();
    for (mode, pinned, wanted) in [
        ("unpinned", false, args.unpinned),
        ("pinned", true, args.pinned),
    ] {
        if !wanted {
            continue;
        }
        if pinned && !pinnable {
            notes.push("pinned pass skipped: `taskset -c 0` does not work here".to_string());
            continue;
        }
        eprintln!("mcp-bench: {mode} pass");
        match child_pass(mode, pinned, &args.settings) {
            Ok(pass) => passes.push(pass),
            Err(e) => {
                eprintln!("mcp-bench: {e}");
                failed = true;
            }
        }
    }
    let s = &args.settings;
    let mut header = vec![
        format!("## mcp-bench — {}", now_utc()),
        String::new(),
        format!(
            "machine: {cores} cores (nproc), {}; load average before {load_before}, after {}",
            cpu_model(),
            load_average()
        ),
        format!(
            "each figure: median of {} repetitions of {:.1} s (min–max), ours and its floor interleaved \
             in the same run; pinned = driver and servers under `taskset -c 0`; whole run {:.0} s",
            s.reps,
            s.duration.as_secs_f64(),
            started.elapsed().as_secs_f64()
        ),
        "floors: stdio = `bench-floor-stdio` (serde_json line reader, canned response); \
         HTTP = `bench-floor-http` (bare axum handler sent the very bytes ours gets, JSON body parsed, the answer in ours' form); \
         decode = serde_json into `serde_json::Value`; Python = the official SDK (`mcp`) server"
            .to_string(),
    ];
    header.extend(notes);
    print!("{}", table::render(&passes, &header));
    if failed || passes.is_empty() {
        std::process::exit(1);
    }
}
