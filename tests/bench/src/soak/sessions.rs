//! Sessions: N opened (`initialize` + `notifications/initialized`) and
//! deleted, then N opened and left to expire under a short idle timeout.
//! After each leg the server's RSS must be back near its baseline.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use mcp_bench::Error;
use mcp_bench::http::{Answers, Conn, Target, open_session};
use mcp_bench::procs::{Listening, rss_kib, sibling};

use crate::Config;
use crate::report::{Row, count, delta_mib, mib};

/// Connections the sessions are opened over, concurrently.
const CONNS: usize = 4;
/// Sessions opened and deleted before the baseline is read (connection
/// buffers, the runtime's first allocations).
const WARMUP_SESSIONS: usize = 200;
/// How long the server is left alone before RSS is read.
const SETTLE: Duration = Duration::from_secs(1);
/// RSS after the deletions may exceed the baseline by at most this.
pub(crate) const MARGIN_KIB: u64 = 10 * 1024;
/// Rounds of sessions left to expire. glibc malloc keeps the memory the
/// first round frees (it returns only the top of a heap to the system), so
/// RSS after expiry stays near the round's peak; later rounds reuse that
/// memory, and growth from one round to the next would be a leak.
const EXPIRE_ROUNDS: usize = 3;
/// RSS after the last expiry round may exceed RSS after the round before
/// by this share of it, or `MARGIN_KIB` if that is more: where glibc
/// places a round's sessions varies (up to 12 MiB on 80 seen here).
const ROUND_MARGIN: f64 = 0.2;

/// How much RSS after the last expiry round may exceed `before_kib`.
fn round_margin_kib(before_kib: u64) -> u64 {
    MARGIN_KIB.max((before_kib as f64 * ROUND_MARGIN) as u64)
}

const PING: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;

/// Runs both legs against a `bench-server http` with the configured idle
/// timeout.
pub(crate) fn run(config: &Config) -> Result<Vec<Row>, Error> {
    let program = sibling("bench-server")?;
    let timeout = config.idle_timeout.as_secs_f64().to_string();
    // Room for every session of a leg, whatever the reaper has not ended.
    let max = (config.sessions * 2 + WARMUP_SESSIONS).to_string();
    let server = Listening::start(
        &program,
        &["http", "--idle-timeout", &timeout, "--max-sessions", &max],
    )?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = runtime.block_on(legs(config, &server));
    drop(runtime);
    server.stop();
    result
}

async fn legs(config: &Config, server: &Listening) -> Result<Vec<Row>, Error> {
    let (addr, pid, n) = (server.addr, server.pid(), config.sessions);
    let conns = connect(addr, CONNS).await?;
    let conns = open_and_delete(conns, addr, WARMUP_SESSIONS).await?;
    tokio::time::sleep(SETTLE).await;
    let baseline = rss_kib(pid)?;

    log(&format!(
        "opening and deleting {} sessions",
        count(n as u64)
    ));
    let started = Instant::now();
    let conns = open_and_delete(conns, addr, n).await?;
    let rate = n as f64 / started.elapsed().as_secs_f64();
    tokio::time::sleep(SETTLE).await;
    let after_delete = rss_kib(pid)?;
    let delete_holds = after_delete <= baseline + MARGIN_KIB;

    let mut conns = conns;
    let mut rounds = Vec::with_capacity(EXPIRE_ROUNDS);
    for round in 1..=EXPIRE_ROUNDS {
        let (back, expiry) = expire_round(conns, config, pid, addr, round).await?;
        conns = back;
        rounds.push(expiry);
    }
    drop(conns);

    let margin = mib(MARGIN_KIB);
    let all_expired = rounds.iter().all(|r| r.alive == 0);
    let list = |pick: fn(&Expiry) -> u64| {
        rounds
            .iter()
            .map(|r| format!("{:.1}", pick(r) as f64 / 1024.0))
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let alive: usize = rounds.iter().map(|r| r.alive).sum();
    let waited = rounds.iter().map(|r| r.waited).max().unwrap_or_default();
    let [.., before, last] = rounds.as_slice() else {
        return Err("fewer than two expiry rounds ran".into());
    };
    Ok(vec![
        Row {
            check: format!(
                "HTTP: {} sessions opened (initialize + initialized) and deleted (DELETE)",
                count(n as u64)
            ),
            measured: format!(
                "RSS baseline {}, after {} ({}); {} sessions/s",
                mib(baseline),
                mib(after_delete),
                delta_mib(baseline, after_delete),
                count(rate as u64)
            ),
            criterion: format!("every DELETE 200; after ≤ baseline + {margin}"),
            holds: Some(delete_holds),
        },
        Row {
            check: format!(
                "HTTP: {} sessions opened and left to expire (idle timeout {:.0} s), \
                 {EXPIRE_ROUNDS} rounds",
                count(n as u64),
                config.idle_timeout.as_secs_f64()
            ),
            measured: format!(
                "opened at {} sessions/s; {} of {} still answering ≤ {:.1} s after the last was \
                 opened; RSS MiB per \
                 round: all open {}, after expiry {}; last round {} over the one before, {} \
                 over the baseline (glibc malloc keeps freed memory: BENCHMARKS.md)",
                list_rates(&rounds),
                count(alive as u64),
                count((n * EXPIRE_ROUNDS) as u64),
                waited.as_secs_f64(),
                list(|r| r.peak),
                list(|r| r.after),
                delta_mib(before.after, last.after),
                delta_mib(baseline, last.after)
            ),
            criterion: format!(
                "all expired (404) in every round; after the last round ≤ after the one \
                 before + {:.0} % (at least {margin})",
                ROUND_MARGIN * 100.0
            ),
            holds: Some(all_expired && last.after <= before.after + round_margin_kib(before.after)),
        },
    ])
}

/// What one round of sessions left to expire measured.
#[derive(Debug)]
struct Expiry {
    /// Sessions opened per second.
    rate: f64,
    /// RSS with every session open, KiB.
    peak: u64,
    /// Sessions still answering after the wait.
    alive: usize,
    /// From the last session opened to the end of the probe.
    waited: Duration,
    /// RSS after the expiry and a settle, KiB.
    after: u64,
}

/// Opens `config.sessions` sessions, waits for them to expire, checks that
/// they are gone, and reads RSS.
async fn expire_round(
    conns: Vec<Conn>,
    config: &Config,
    pid: u32,
    addr: SocketAddr,
    round: usize,
) -> Result<(Vec<Conn>, Expiry), Error> {
    let n = config.sessions;
    log(&format!(
        "round {round}: opening {} sessions to expire",
        count(n as u64)
    ));
    let started = Instant::now();
    let (conns, ids) = open_many(conns, addr, n).await?;
    let rate = n as f64 / started.elapsed().as_secs_f64().max(1e-9);
    let opened = Instant::now();
    let peak = rss_kib(pid)?;
    // The reaper looks every quarter of the timeout.
    let wait = config.idle_timeout + config.idle_timeout / 4 + SETTLE;
    log(&format!(
        "round {round}: waiting {:.1} s for them to expire",
        wait.as_secs_f64()
    ));
    tokio::time::sleep(wait).await;
    let (conns, alive) = probe(conns, addr, ids).await?;
    let waited = opened.elapsed();
    tokio::time::sleep(SETTLE).await;
    let after = rss_kib(pid)?;
    Ok((
        conns,
        Expiry {
            rate,
            peak,
            alive,
            waited,
            after,
        },
    ))
}

/// The opening rates of the rounds, as `a / b / c`.
fn list_rates(rounds: &[Expiry]) -> String {
    rounds
        .iter()
        .map(|r| count(r.rate as u64))
        .collect::<Vec<_>>()
        .join(" / ")
}

fn log(what: &str) {
    crate::log(&format!("sessions: {what}"));
}

/// `n` keep-alive connections to `addr`.
pub(crate) async fn connect(addr: SocketAddr, n: usize) -> Result<Vec<Conn>, Error> {
    let mut conns = Vec::with_capacity(n);
    for _ in 0..n {
        conns.push(Conn::connect(addr).await?);
    }
    Ok(conns)
}

/// How many of `n` items each of `k` workers takes.
fn shares(n: usize, k: usize) -> Vec<usize> {
    let k = k.max(1);
    (0..k).map(|i| n / k + usize::from(i < n % k)).collect()
}

/// Opens and deletes `n` sessions, spread over `conns`.
async fn open_and_delete(conns: Vec<Conn>, addr: SocketAddr, n: usize) -> Result<Vec<Conn>, Error> {
    let shares = shares(n, conns.len());
    let mut tasks = Vec::with_capacity(conns.len());
    for (mut conn, share) in conns.into_iter().zip(shares) {
        tasks.push(tokio::spawn(async move {
            let bare = Target::new(addr, Answers::Json);
            for _ in 0..share {
                let id = open_session(&bare, &mut conn).await?;
                let status = conn
                    .delete(&Target::for_session(addr, Answers::Json, &id))
                    .await?;
                if status != 200 {
                    return Err(format!("DELETE: HTTP {status}").into());
                }
            }
            Ok::<_, Error>(conn)
        }));
    }
    let mut back = Vec::with_capacity(tasks.len());
    for task in tasks {
        back.push(task.await.map_err(|e| e.to_string())??);
    }
    Ok(back)
}

/// Opens `n` sessions over `conns` and returns their ids.
pub(crate) async fn open_many(
    conns: Vec<Conn>,
    addr: SocketAddr,
    n: usize,
) -> Result<(Vec<Conn>, Vec<String>), Error> {
    let shares = shares(n, conns.len());
    let mut tasks = Vec::with_capacity(conns.len());
    for (mut conn, share) in conns.into_iter().zip(shares) {
        tasks.push(tokio::spawn(async move {
            let bare = Target::new(addr, Answers::Json);
            let mut ids = Vec::with_capacity(share);
            for _ in 0..share {
                ids.push(open_session(&bare, &mut conn).await?);
            }
            Ok::<_, Error>((conn, ids))
        }));
    }
    let mut back = Vec::with_capacity(tasks.len());
    let mut all = Vec::with_capacity(n);
    for task in tasks {
        let (conn, ids) = task.await.map_err(|e| e.to_string())??;
        back.push(conn);
        all.extend(ids);
    }
    Ok((back, all))
}

/// Sends a `ping` in each session; returns how many were answered (any
/// status but 404 "Session not found").
async fn probe(
    conns: Vec<Conn>,
    addr: SocketAddr,
    ids: Vec<String>,
) -> Result<(Vec<Conn>, usize), Error> {
    let k = conns.len().max(1);
    let mut parts: Vec<Vec<String>> = vec![Vec::new(); k];
    for (i, id) in ids.into_iter().enumerate() {
        parts[i % k].push(id);
    }
    let mut tasks = Vec::with_capacity(k);
    for (mut conn, part) in conns.into_iter().zip(parts) {
        tasks.push(tokio::spawn(async move {
            let mut alive = 0;
            for id in part {
                let target = Target::for_session(addr, Answers::Json, &id);
                if conn.post(&target, PING).await?.status != 404 {
                    alive += 1;
                }
            }
            Ok::<_, Error>((conn, alive))
        }));
    }
    let mut back = Vec::with_capacity(k);
    let mut alive = 0;
    for task in tasks {
        let (conn, n) = task.await.map_err(|e| e.to_string())??;
        back.push(conn);
        alive += n;
    }
    Ok((back, alive))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up() {
        assert_eq!(shares(10, 4), [3, 3, 2, 2]);
        assert_eq!(shares(2, 4), [1, 1, 0, 0]);
        assert_eq!(shares(5, 0), [5]);
    }

    #[test]
    fn round_margin_is_a_share_or_the_floor() {
        assert_eq!(round_margin_kib(1024), MARGIN_KIB);
        assert_eq!(round_margin_kib(100 * 1024), 20 * 1024);
    }
}
