//! The workloads of one pass. Every figure of ours is measured beside its
//! floor in the same pass, with their repetitions interleaved.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_bench::initialize_request;

use super::http::{Answers, Conn, Target, closed_loop, open_session};
use super::procs::{Listening, piped, rss_kib, sibling, stop, workspace_root};
use super::stats::{Run, median};
use super::stdio::StdioPeer;
use super::{Error, Pass, Settings, codec};

/// Requests in flight in the pipelined stdio workload.
const STDIO_DEPTH: usize = 64;
/// Connections (one session) in the concurrent HTTP workload.
const HTTP_CONCURRENCY: usize = 32;
/// Idle sessions opened to measure memory.
const IDLE_SESSIONS: usize = 1000;
/// Spawns per program in the spawn → initialize workload.
const SPAWNS: usize = 20;

fn log(what: &str) {
    eprintln!("mcp-bench:   {what}");
}

/// Runs every wanted workload into `pass`.
pub(crate) fn run_all(settings: &Settings, pass: &mut Pass) {
    let groups: [(&str, &[&str], WorkloadFn); 7] = [
        ("codec", &["codec.per_s"], codec_workload),
        (
            "stdio",
            &[
                "stdio.seq.rps",
                "stdio.seq.p50",
                "stdio.seq.p99",
                "stdio.inflight64.rps",
            ],
            stdio_workload,
        ),
        ("spawn", &["stdio.spawn_ms"], spawn_workload),
        ("http", HTTP_KEYS, http_workload),
        ("memory", &["http.idle_session_kib"], memory_workload),
        ("python", PYTHON_KEYS, python_workload),
        ("redis", super::replicas::KEYS, super::replicas::workload),
    ];
    for (group, keys, workload) in groups {
        if !settings.wants(group) {
            continue;
        }
        eprintln!("mcp-bench: [{}] {group}", pass.mode);
        if let Err(e) = workload(settings, pass) {
            eprintln!("mcp-bench: {group} failed: {e}");
            pass.failed(keys, &e.to_string());
        }
    }
}

type WorkloadFn = fn(&Settings, &mut Pass) -> Result<(), Error>;

const PYTHON_KEYS: &[&str] = &["python.stdio.seq.rps", "python.http.c1.rps"];

const HTTP_KEYS: &[&str] = &[
    "http.c1.json.rps",
    "http.c1.json.p50",
    "http.c1.json.p99",
    "http.c1.sse.rps",
    "http.c1.sse.p50",
    "http.c1.sse.p99",
    "http.c32.json.rps",
    "http.c32.sse.rps",
    "http.stateless.rps",
    "http.stateless.p50",
    "http.stateless.p99",
];

fn codec_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let slice = settings.duration / 2;
    codec::rate(codec::floor_once, settings.warmup)?;
    codec::rate(codec::ours_once, settings.warmup)?;
    for _ in 0..settings.reps {
        let floor = codec::rate(codec::floor_once, slice)?;
        let ours = codec::rate(codec::ours_once, slice)?;
        let m = pass.entry("codec.per_s");
        m.floor.push(floor);
        m.ours.push(ours);
    }
    Ok(())
}

fn stdio_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let ours_bin = sibling("bench-server")?;
    let floor_bin = sibling("bench-floor-stdio")?;
    let mut ours = StdioPeer::spawn("bench-server stdio", piped(&ours_bin, &["stdio"]))?;
    let mut floor = StdioPeer::spawn("bench-floor-stdio", piped(&floor_bin, &[]))?;
    let result = (|| -> Result<(), Error> {
        for peer in [&mut floor, &mut ours] {
            peer.initialize()?;
            peer.verify_call()?;
            peer.sequential(settings.warmup)?;
            peer.pipelined(STDIO_DEPTH, settings.warmup)?;
        }
        for _ in 0..settings.reps {
            let mut f = floor.sequential(settings.duration)?;
            let mut o = ours.sequential(settings.duration)?;
            record_latency_run(pass, "stdio.seq", &mut o, &mut f);
        }
        for _ in 0..settings.reps {
            let f = floor.pipelined(STDIO_DEPTH, settings.duration)?;
            let o = ours.pipelined(STDIO_DEPTH, settings.duration)?;
            let m = pass.entry("stdio.inflight64.rps");
            m.floor.push(f.per_second());
            m.ours.push(o.per_second());
        }
        Ok(())
    })();
    ours.stop();
    floor.stop();
    result
}

/// Records req/s, p50 and p99 of a pair of runs under `prefix`.
pub(crate) fn record_latency_run(pass: &mut Pass, prefix: &str, ours: &mut Run, floor: &mut Run) {
    for (suffix, pick) in [("rps", None), ("p50", Some(50.0)), ("p99", Some(99.0))] {
        let m = pass.entry(&format!("{prefix}.{suffix}"));
        match pick {
            None => {
                m.ours.push(ours.per_second());
                m.floor.push(floor.per_second());
            }
            Some(p) => {
                m.ours.push(ours.percentile_us(p));
                m.floor.push(floor.percentile_us(p));
            }
        }
    }
}

fn spawn_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let ours_bin = sibling("bench-server")?;
    let floor_bin = sibling("bench-floor-stdio")?;
    // One untimed spawn each warms the page cache.
    spawn_to_initialize(&floor_bin, &[])?;
    spawn_to_initialize(&ours_bin, &["stdio"])?;
    let rounds = SPAWNS.max(settings.reps);
    for _ in 0..rounds {
        let floor = spawn_to_initialize(&floor_bin, &[])?;
        let ours = spawn_to_initialize(&ours_bin, &["stdio"])?;
        let m = pass.entry("stdio.spawn_ms");
        m.floor.push(floor.as_secs_f64() * 1e3);
        m.ours.push(ours.as_secs_f64() * 1e3);
    }
    Ok(())
}

/// From spawning `program` to having read its initialize result.
fn spawn_to_initialize(program: &Path, args: &[&str]) -> Result<Duration, Error> {
    let request = format!("{}\n", initialize_request(0));
    let started = Instant::now();
    let mut child = piped(program, args).spawn()?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        stop(child, Duration::from_secs(1));
        return Err("stdin and stdout must be piped".into());
    };
    let mut line = String::new();
    let outcome = stdin
        .write_all(request.as_bytes())
        .and_then(|()| stdin.flush())
        .and_then(|()| BufReader::new(stdout).read_line(&mut line));
    let elapsed = started.elapsed();
    drop(stdin);
    stop(child, Duration::from_secs(2));
    outcome?;
    if !line.contains("\"result\"") {
        return Err(format!("{}: no initialize result: {line:?}", program.display()).into());
    }
    Ok(elapsed)
}

fn http_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let floor = Listening::start(&sibling("bench-floor-http")?, &[])?;
    let json = match Listening::start(&sibling("bench-server")?, &["http", "--json"]) {
        Ok(server) => server,
        Err(e) => {
            floor.stop();
            return Err(e);
        }
    };
    let sse = match Listening::start(&sibling("bench-server")?, &["http"]) {
        Ok(server) => server,
        Err(e) => {
            floor.stop();
            json.stop();
            return Err(e);
        }
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(http_runs(settings, pass, [floor.addr, json.addr, sse.addr]));
    drop(runtime);
    floor.stop();
    json.stop();
    sse.stop();
    result
}

/// A target with its connections, reused across repetitions.
pub(crate) struct Driven {
    target: Arc<Target>,
    one: Vec<Conn>,
    many: Vec<Conn>,
}

/// How a target is spoken to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Speak {
    /// A 2025-11-25 session (`initialize` first).
    Session,
    /// 2026-07-28 requests standing alone.
    Stateless,
}

pub(crate) async fn prepare(
    addr: std::net::SocketAddr,
    speak: Speak,
    answers: Answers,
) -> Result<Driven, Error> {
    let mut first = Conn::connect(addr).await?;
    let target = match speak {
        Speak::Session => Target::with_session(addr, answers, &mut first).await?,
        Speak::Stateless => Target::stateless(addr, answers),
    };
    connect(target, first).await
}

/// The floor at `addr`, sent the very requests `like` gets (same headers,
/// session id included, and body), so that a ratio counts only what the
/// server does with them.
pub(crate) async fn prepare_floor(
    addr: std::net::SocketAddr,
    like: &Target,
) -> Result<Driven, Error> {
    connect(like.same_requests_to(addr), Conn::connect(addr).await?).await
}

/// Checks one call on `first`, then opens the connections of c=32.
async fn connect(target: Target, mut first: Conn) -> Result<Driven, Error> {
    let addr = target.addr;
    first.verify_call(&target).await?;
    let mut many = Vec::with_capacity(HTTP_CONCURRENCY);
    for _ in 0..HTTP_CONCURRENCY {
        many.push(Conn::connect(addr).await?);
    }
    Ok(Driven {
        target: Arc::new(target),
        one: vec![first],
        many,
    })
}

/// Runs `driven` with its one or many connections for `duration`.
pub(crate) async fn drive(
    driven: &mut Driven,
    many: bool,
    duration: Duration,
) -> Result<Run, Error> {
    let conns = std::mem::take(if many {
        &mut driven.many
    } else {
        &mut driven.one
    });
    let (run, conns) = closed_loop(&driven.target, conns, duration).await?;
    if many {
        driven.many = conns;
    } else {
        driven.one = conns;
    }
    Ok(run)
}

async fn http_runs(
    settings: &Settings,
    pass: &mut Pass,
    [floor, json, sse]: [std::net::SocketAddr; 3],
) -> Result<(), Error> {
    let mut json = prepare(json, Speak::Session, Answers::Json).await?;
    let mut sse = prepare(sse, Speak::Session, Answers::Sse).await?;
    // The JSON server serves 2026-07-28 requests on the same endpoint.
    let mut stateless = prepare(json.target.addr, Speak::Stateless, Answers::Json).await?;
    // Each row has its own floor, sent the same bytes as ours.
    let mut floor_json = prepare_floor(floor, &json.target).await?;
    let mut floor_sse = prepare_floor(floor, &sse.target).await?;
    let mut floor_stateless = prepare_floor(floor, &stateless.target).await?;
    for many in [false, true] {
        for d in [
            &mut floor_json,
            &mut json,
            &mut floor_sse,
            &mut sse,
            &mut floor_stateless,
            &mut stateless,
        ] {
            drive(d, many, settings.warmup).await?;
        }
    }
    let mut rows = [
        ("http.c1.json", &mut floor_json, &mut json),
        ("http.c1.sse", &mut floor_sse, &mut sse),
        ("http.stateless", &mut floor_stateless, &mut stateless),
    ];
    for _ in 0..settings.reps {
        for (prefix, floor, ours) in &mut rows {
            let mut f = drive(floor, false, settings.duration).await?;
            let mut o = drive(ours, false, settings.duration).await?;
            record_latency_run(pass, prefix, &mut o, &mut f);
        }
    }
    for _ in 0..settings.reps {
        for (key, floor, ours) in [
            ("http.c32.json.rps", &mut floor_json, &mut json),
            ("http.c32.sse.rps", &mut floor_sse, &mut sse),
        ] {
            let f = drive(floor, true, settings.duration).await?;
            let o = drive(ours, true, settings.duration).await?;
            let m = pass.entry(key);
            m.floor.push(f.per_second());
            m.ours.push(o.per_second());
        }
    }
    Ok(())
}

fn memory_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let program = sibling("bench-server")?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    for _ in 0..settings.reps.min(3) {
        let server = Listening::start(&program, &["http"])?;
        let outcome = runtime.block_on(idle_sessions(&server));
        server.stop();
        let per_session = outcome?;
        let m = pass.entry("http.idle_session_kib");
        m.ours.push(per_session);
    }
    pass.entry("http.idle_session_kib").floor_missing = Some("—".into());
    Ok(())
}

/// Opens one session and a call (warming up), reads RSS, opens
/// `IDLE_SESSIONS` more and leaves them idle, reads RSS again; returns KiB
/// per session.
async fn idle_sessions(server: &Listening) -> Result<f64, Error> {
    let mut conn = Conn::connect(server.addr).await?;
    // Clients accept both JSON and SSE (as the spec requires of them).
    let target = Target::with_session(server.addr, Answers::Json, &mut conn).await?;
    conn.verify_call(&target).await?;
    let bare = Target::new(server.addr, Answers::Json);
    tokio::time::sleep(Duration::from_millis(200)).await;
    let before = rss_kib(server.pid())?;
    for _ in 0..IDLE_SESSIONS {
        open_session(&bare, &mut conn).await?;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = rss_kib(server.pid())?;
    Ok(after.saturating_sub(before) as f64 / IDLE_SESSIONS as f64)
}

fn python_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let stdio = python_stdio_workload(settings, pass);
    let http = python_http_workload(settings, pass);
    stdio.and(http)
}

/// The official SDK's and libmcp's Python servers over Streamable HTTP:
/// one session each, c=1, JSON answers, repetitions alternating.
fn python_http_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let key = "python.http.c1.rps";
    let scripts = workspace_root().join("tests/bench/python");
    let start = |python: &Path, script: &str| {
        let script = scripts.join(script);
        Listening::start(python, &[&script.to_string_lossy(), "http"])
    };
    let sdk = if imports(&settings.sdk_python, "mcp") {
        match start(&settings.sdk_python, "sdk_echo_server.py") {
            Ok(server) => Some(server),
            Err(e) => {
                pass.entry(key).floor_missing = Some(format!("failed: {e}"));
                None
            }
        }
    } else {
        pass.entry(key).floor_missing = Some(format!(
            "n/a (no `mcp` in {}; run tests/interop/setup.sh)",
            settings.sdk_python.display()
        ));
        None
    };
    let libmcp = if imports(&settings.libmcp_python, "libmcp") {
        match start(&settings.libmcp_python, "libmcp_echo_server.py") {
            Ok(server) => Some(server),
            Err(e) => {
                pass.entry(key).ours_missing = Some(format!("failed: {e}"));
                None
            }
        }
    } else {
        pass.entry(key).ours_missing = Some("n/a (wheel not built)".into());
        None
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(async {
        let mut sdk_driven = match &sdk {
            Some(server) => Some(prepare(server.addr, Speak::Session, Answers::Json).await?),
            None => None,
        };
        let mut libmcp_driven = match &libmcp {
            Some(server) => Some(prepare(server.addr, Speak::Session, Answers::Json).await?),
            None => None,
        };
        for driven in [sdk_driven.as_mut(), libmcp_driven.as_mut()]
            .into_iter()
            .flatten()
        {
            drive(driven, false, settings.warmup).await?;
        }
        for _ in 0..settings.reps {
            if let Some(driven) = sdk_driven.as_mut() {
                let run = drive(driven, false, settings.duration).await?;
                pass.entry(key).floor.push(run.per_second());
            }
            if let Some(driven) = libmcp_driven.as_mut() {
                let run = drive(driven, false, settings.duration).await?;
                pass.entry(key).ours.push(run.per_second());
            }
        }
        Ok::<(), Error>(())
    });
    drop(runtime);
    for server in [sdk, libmcp].into_iter().flatten() {
        server.stop();
    }
    if let Some(m) = pass.results.get(key) {
        if !m.ours.is_empty() && !m.floor.is_empty() {
            log(&format!(
                "Python HTTP c=1: libmcp {:.0} req/s, official SDK {:.0} req/s",
                median(&m.ours),
                median(&m.floor)
            ));
        }
    }
    result
}

fn python_stdio_workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let key = "python.stdio.seq.rps";
    let scripts = workspace_root().join("tests/bench/python");
    let sdk = if imports(&settings.sdk_python, "mcp") {
        Some(start_python(
            "official Python SDK server",
            &settings.sdk_python,
            &scripts.join("sdk_echo_server.py"),
        ))
    } else {
        pass.entry(key).floor_missing = Some(format!(
            "n/a (no `mcp` in {}; run tests/interop/setup.sh)",
            settings.sdk_python.display()
        ));
        None
    };
    let libmcp = if imports(&settings.libmcp_python, "libmcp") {
        Some(start_python(
            "libmcp Python server",
            &settings.libmcp_python,
            &scripts.join("libmcp_echo_server.py"),
        ))
    } else {
        pass.entry(key).ours_missing = Some("n/a (wheel not built)".into());
        None
    };
    let mut sdk = match sdk {
        Some(Ok(peer)) => Some(peer),
        Some(Err(e)) => {
            pass.entry(key).floor_missing = Some(format!("failed: {e}"));
            None
        }
        None => None,
    };
    let mut libmcp = match libmcp {
        Some(Ok(peer)) => Some(peer),
        Some(Err(e)) => {
            pass.entry(key).ours_missing = Some(format!("failed: {e}"));
            None
        }
        None => None,
    };
    let result = (|| -> Result<(), Error> {
        let reps = settings.reps.min(3);
        for _ in 0..reps {
            if let Some(peer) = sdk.as_mut() {
                let run = peer.sequential(settings.duration)?;
                pass.entry(key).floor.push(run.per_second());
            }
            if let Some(peer) = libmcp.as_mut() {
                let run = peer.sequential(settings.duration)?;
                pass.entry(key).ours.push(run.per_second());
            }
        }
        Ok(())
    })();
    for peer in [sdk, libmcp].into_iter().flatten() {
        peer.stop();
    }
    if let Some(m) = pass.results.get(key) {
        if !m.ours.is_empty() {
            log(&format!("libmcp Python: {:.0} req/s", median(&m.ours)));
        }
    }
    result
}

/// Whether `python -c "import MODULE"` works.
fn imports(python: &Path, module: &str) -> bool {
    python.exists()
        && Command::new(python)
            .args(["-c", &format!("import {module}")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

fn start_python(name: &str, python: &Path, script: &Path) -> Result<StdioPeer, Error> {
    let script = script.to_string_lossy();
    let mut peer = StdioPeer::spawn(name, piped(python, &[&script]))?;
    let ready = peer
        .initialize()
        .and_then(|_| peer.verify_call())
        .and_then(|()| peer.sequential(Duration::from_millis(500)).map(|_| ()));
    match ready {
        Ok(()) => Ok(peer),
        Err(e) => {
            peer.stop();
            Err(e)
        }
    }
}
