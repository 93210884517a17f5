//! The Redis rows: `bench-server` with the Redis store against itself in
//! memory (the floor), for tools/call on an existing session and for
//! opening sessions; and three Redis-backed replicas behind HAProxy against
//! one. Needs `redis-server` and `haproxy` (tests/deploy/install.sh); each
//! runs on a loopback port with throw-away settings and is stopped at the
//! end.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::http::{Answers, Conn, Target, open_session};
use super::procs::{Listening, sibling, stop};
use super::stats::Run;
use super::workloads::{Speak, drive, prepare, record_latency_run};
use super::{Error, Pass, Settings};

pub(crate) const KEYS: &[&str] = &[
    "redis.c1.rps",
    "redis.c1.p50",
    "redis.added.p50",
    "redis.c32.rps",
    "redis.open.rps",
    "replicas.c32.rps",
];

/// Stops what it holds (by PID) when dropped, also on an early return.
#[derive(Default)]
struct Started {
    children: Vec<Child>,
    servers: Vec<Listening>,
    dir: Option<PathBuf>,
}

impl Drop for Started {
    fn drop(&mut self) {
        for server in self.servers.drain(..) {
            server.stop();
        }
        for child in self.children.drain(..) {
            stop(child, Duration::from_secs(1));
        }
        if let Some(dir) = self.dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn free_port() -> Result<u16, Error> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn wait_port(port: u16) -> Result<(), Error> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    for _ in 0..100 {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!("nothing listens on port {port} after 10 s").into())
}

fn spawn(program: &str, args: &[String]) -> Result<Child, Error> {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            format!("cannot start {program} ({e}); tests/deploy/install.sh installs it").into()
        })
}

pub(crate) fn workload(settings: &Settings, pass: &mut Pass) -> Result<(), Error> {
    let mut started = Started::default();
    let redis_port = free_port()?;
    started.children.push(spawn(
        "redis-server",
        &[
            "--port".into(),
            redis_port.to_string(),
            "--bind".into(),
            "127.0.0.1".into(),
            "--save".into(),
            String::new(),
            "--appendonly".into(),
            "no".into(),
        ],
    )?);
    wait_port(redis_port)?;
    let store = format!("redis://127.0.0.1:{redis_port}/0");
    let program = sibling("bench-server")?;
    // Room for every session the session-open rows open.
    let sessions = "1000000";
    let memory = Listening::start(&program, &["http", "--json", "--max-sessions", sessions])?;
    let memory_addr = memory.addr;
    started.servers.push(memory);
    let mut replicas = Vec::new();
    for _ in 0..3 {
        let replica = Listening::start(
            &program,
            &[
                "http",
                "--json",
                "--max-sessions",
                sessions,
                "--store",
                &store,
            ],
        )?;
        replicas.push(replica.addr);
        started.servers.push(replica);
    }
    let (one, three) = balancer(&mut started, &replicas)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(runs(settings, pass, memory_addr, replicas[0], one, three))?;
    added_by_the_store(settings, pass, redis_port)
}

/// What the store adds to a tools/call at c=1 (the Redis server's p50
/// minus the in-memory one's, from the rows just measured) beside its
/// floor: a bare `GET` round trip to the same `redis-server` from a
/// blocking socket (no client library, no runtime). A GETEX per request is
/// the store's whole cost on this path, so the bare round trip bounds the
/// best c=1 ratio any client could reach: m / (m + rtt).
fn added_by_the_store(settings: &Settings, pass: &mut Pass, port: u16) -> Result<(), Error> {
    let mut socket = TcpStream::connect(("127.0.0.1", port))?;
    socket.set_nodelay(true)?;
    socket.set_read_timeout(Some(Duration::from_secs(5)))?;
    round_trips(&mut socket, settings.warmup)?;
    let (redis, memory) = {
        let m = pass.entry("redis.c1.p50");
        (m.ours.clone(), m.floor.clone())
    };
    for (redis, memory) in redis.iter().zip(&memory) {
        let mut bare = round_trips(&mut socket, settings.duration)?;
        let m = pass.entry("redis.added.p50");
        m.ours.push(redis - memory);
        m.floor.push(bare.percentile_us(50.0));
    }
    Ok(())
}

/// `GET` of a key that does not exist, one after the other for `duration`.
fn round_trips(socket: &mut TcpStream, duration: Duration) -> Result<Run, Error> {
    const GET: &[u8] = b"*2\r\n$3\r\nGET\r\n$17\r\nmcp-bench:no-such\r\n";
    const NIL: &[u8] = b"$-1\r\n";
    let mut reply = [0u8; NIL.len()];
    let mut latencies_ns = Vec::new();
    let start = Instant::now();
    while start.elapsed() < duration {
        let sent = Instant::now();
        socket.write_all(GET)?;
        socket.read_exact(&mut reply)?;
        if reply != NIL {
            return Err(format!(
                "redis answered {:?} to GET",
                String::from_utf8_lossy(&reply)
            )
            .into());
        }
        latencies_ns.push(u64::try_from(sent.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    Ok(Run {
        count: latencies_ns.len() as u64,
        elapsed: start.elapsed(),
        latencies_ns,
    })
}

/// HAProxy with two frontends: one to the first replica only, one to all
/// three round-robin. Their addresses.
fn balancer(
    started: &mut Started,
    replicas: &[SocketAddr],
) -> Result<(SocketAddr, SocketAddr), Error> {
    let dir = std::env::temp_dir().join(format!("mcp-bench-haproxy-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    started.dir = Some(dir.clone());
    let (one, three) = (free_port()?, free_port()?);
    let mut config = format!(
        "global\n    maxconn 1024\ndefaults\n    mode http\n    timeout connect 2s\n    \
         timeout client 60s\n    timeout server 60s\n\
         frontend one\n    bind 127.0.0.1:{one}\n    default_backend one\n\
         frontend three\n    bind 127.0.0.1:{three}\n    default_backend three\n\
         backend one\n    server r0 {}\n\
         backend three\n    balance roundrobin\n",
        replicas[0]
    );
    for (i, replica) in replicas.iter().enumerate() {
        config.push_str(&format!("    server r{i} {replica}\n"));
    }
    let path = dir.join("haproxy.cfg");
    std::fs::write(&path, config)?;
    started.children.push(spawn(
        "haproxy",
        &[
            "-db".into(),
            "-f".into(),
            path.to_string_lossy().into_owned(),
        ],
    )?);
    wait_port(one)?;
    wait_port(three)?;
    Ok((
        SocketAddr::from(([127, 0, 0, 1], one)),
        SocketAddr::from(([127, 0, 0, 1], three)),
    ))
}

/// Sessions opened (`initialize` + `notifications/initialized`) one after
/// the other on one connection for `duration`; how many per second.
async fn opens(conn: &mut Conn, target: &Target, duration: Duration) -> Result<f64, Error> {
    let start = Instant::now();
    let mut count = 0u64;
    while start.elapsed() < duration {
        open_session(target, conn).await?;
        count += 1;
    }
    Ok(count as f64 / start.elapsed().as_secs_f64())
}

async fn runs(
    settings: &Settings,
    pass: &mut Pass,
    memory: SocketAddr,
    redis: SocketAddr,
    one: SocketAddr,
    three: SocketAddr,
) -> Result<(), Error> {
    let mut in_memory = prepare(memory, Speak::Session, Answers::Json).await?;
    let mut in_redis = prepare(redis, Speak::Session, Answers::Json).await?;
    let mut via_one = prepare(one, Speak::Session, Answers::Json).await?;
    let mut via_three = prepare(three, Speak::Session, Answers::Json).await?;
    let (memory_open, redis_open) = (
        Target::new(memory, Answers::Json),
        Target::new(redis, Answers::Json),
    );
    let mut memory_conn = Conn::connect(memory).await?;
    let mut redis_conn = Conn::connect(redis).await?;
    for many in [false, true] {
        for d in [&mut in_memory, &mut in_redis, &mut via_one, &mut via_three] {
            drive(d, many, settings.warmup).await?;
        }
    }
    opens(&mut memory_conn, &memory_open, settings.warmup).await?;
    opens(&mut redis_conn, &redis_open, settings.warmup).await?;
    for _ in 0..settings.reps {
        let mut floor = drive(&mut in_memory, false, settings.duration).await?;
        let mut ours = drive(&mut in_redis, false, settings.duration).await?;
        // Files rps, p50 and p99 (the table shows rps and p50).
        record_latency_run(pass, "redis.c1", &mut ours, &mut floor);
        let floor = drive(&mut in_memory, true, settings.duration).await?;
        let ours = drive(&mut in_redis, true, settings.duration).await?;
        let m = pass.entry("redis.c32.rps");
        m.floor.push(floor.per_second());
        m.ours.push(ours.per_second());
        let floor = opens(&mut memory_conn, &memory_open, settings.duration).await?;
        let ours = opens(&mut redis_conn, &redis_open, settings.duration).await?;
        let m = pass.entry("redis.open.rps");
        m.floor.push(floor);
        m.ours.push(ours);
        let floor = drive(&mut via_one, true, settings.duration).await?;
        let ours = drive(&mut via_three, true, settings.duration).await?;
        let m = pass.entry("replicas.c32.rps");
        m.floor.push(floor.per_second());
        m.ours.push(ours.per_second());
    }
    Ok(())
}
