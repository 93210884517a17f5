//! The one table: every figure beside its floor from the same pass, the
//! ratio between them, the target, and whether it holds.

use std::fmt::Write;

use super::Pass;
use super::stats::{median, paired_ratios, range};

#[derive(Clone, Copy, Debug)]
enum Unit {
    PerSecond,
    Micros,
    Millis,
    KiB,
}

#[derive(Clone, Copy, Debug)]
enum Target {
    /// ours / floor ≥ x (throughput).
    RatioAtLeast(f64),
    /// ours / floor ≤ x (latency: ≤ 1.25 is the same as speed ≥ 0.8).
    RatioAtMost(f64),
    /// ours ≤ x in the row's unit.
    AtMost(f64),
    /// ours ≥ x in the row's unit.
    AtLeast(f64),
    /// None: the row informs (where the time goes).
    Informs,
}

struct Row {
    key: &'static str,
    workload: &'static str,
    metric: &'static str,
    unit: Unit,
    target: Target,
}

const fn row(
    key: &'static str,
    workload: &'static str,
    metric: &'static str,
    unit: Unit,
    target: Target,
) -> Row {
    Row {
        key,
        workload,
        metric,
        unit,
        target,
    }
}

/// Latency ratio matching a throughput ratio of 0.8.
const LATENCY_08: Target = Target::RatioAtMost(1.25);
/// Latency ratio matching a throughput ratio of 0.9 (1 / 0.9, rounded).
const LATENCY_09: Target = Target::RatioAtMost(1.11);

#[rustfmt::skip]
const ROWS: &[Row] = &[
    row("stdio.seq.rps", "stdio, sequential tools/call", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.8)),
    row("stdio.seq.p50", "stdio, sequential tools/call", "p50 µs", Unit::Micros, LATENCY_08),
    row("stdio.seq.p99", "stdio, sequential tools/call", "p99 µs", Unit::Micros, LATENCY_08),
    row("stdio.inflight64.rps", "stdio, 64 requests in flight", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.5)),
    row("http.c1.json.rps", "HTTP, 1 session, c=1, JSON answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.9)),
    row("http.c1.json.p50", "HTTP, 1 session, c=1, JSON answers", "p50 µs", Unit::Micros, LATENCY_09),
    row("http.c1.json.p99", "HTTP, 1 session, c=1, JSON answers", "p99 µs", Unit::Micros, LATENCY_08),
    row("http.c1.sse.rps", "HTTP, 1 session, c=1, SSE answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.9)),
    row("http.c1.sse.p50", "HTTP, 1 session, c=1, SSE answers", "p50 µs", Unit::Micros, LATENCY_09),
    row("http.c1.sse.p99", "HTTP, 1 session, c=1, SSE answers", "p99 µs", Unit::Micros, LATENCY_08),
    row("http.stateless.rps", "HTTP, 2026-07-28 stateless tools/call, c=1, JSON answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.9)),
    row("http.stateless.p50", "HTTP, 2026-07-28 stateless tools/call, c=1, JSON answers", "p50 µs", Unit::Micros, LATENCY_09),
    row("http.stateless.p99", "HTTP, 2026-07-28 stateless tools/call, c=1, JSON answers", "p99 µs", Unit::Micros, LATENCY_08),
    row("http.c32.json.rps", "HTTP, 1 session, c=32, JSON answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.6)),
    row("http.c32.sse.rps", "HTTP, 1 session, c=32, SSE answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.6)),
    row("http.idle_session_kib", "memory per idle HTTP session (1,000 open)", "KiB/session", Unit::KiB, Target::AtMost(8.0)),
    row("stdio.spawn_ms", "stdio spawn → initialize result", "ms", Unit::Millis, Target::AtMost(5.0)),
    row("codec.per_s", "decode tools/call + encode result, 1 core", "decodes/s", Unit::PerSecond, Target::AtLeast(1_000_000.0)),
    row("redis.c1.rps", "HTTP, Redis store vs in-memory (floor), tools/call on an existing session, c=1, JSON", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.5)),
    row("redis.c1.p50", "HTTP, Redis store vs in-memory (floor), tools/call on an existing session, c=1, JSON", "p50 µs", Unit::Micros, Target::Informs),
    row("redis.added.p50", "Redis: what the store adds to a tools/call, c=1 (Redis p50 − in-memory p50) vs a bare GET round trip (floor)", "p50 µs", Unit::Micros, Target::Informs),
    row("redis.c32.rps", "HTTP, Redis store vs in-memory (floor), tools/call on an existing session, c=32, JSON", "req/s", Unit::PerSecond, Target::RatioAtLeast(0.5)),
    row("redis.open.rps", "HTTP, Redis store vs in-memory (floor), session open (initialize + initialized), c=1", "sessions/s", Unit::PerSecond, Target::Informs),
    row("replicas.c32.rps", "HTTP via HAProxy, Redis store: 3 replicas vs 1 replica (floor), tools/call, c=32, JSON", "req/s", Unit::PerSecond, Target::Informs),
    row("python.stdio.seq.rps", "Python: libmcp server vs official SDK (mcp), stdio sequential", "req/s", Unit::PerSecond, Target::RatioAtLeast(10.0)),
    row("python.http.c1.rps", "Python: libmcp server vs official SDK (mcp), HTTP, 1 session, c=1, JSON answers", "req/s", Unit::PerSecond, Target::RatioAtLeast(10.0)),
];

/// Renders the passes (unpinned first) as one Markdown table, with the
/// header lines that say where and when it ran.
pub(crate) fn render(passes: &[Pass], header: &[String]) -> String {
    let mut out = String::new();
    for line in header {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "| workload | metric | run | ours: median (min–max) | floor: median (min–max) | ours / floor: median (min–max) | target | holds |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|---|---|");
    for row in ROWS {
        for pass in passes {
            let Some(m) = pass.results.get(row.key) else {
                continue;
            };
            let ours = match &m.ours_missing {
                Some(why) if m.ours.is_empty() => why.clone(),
                _ => cell(&m.ours, row.unit),
            };
            let floor = match &m.floor_missing {
                Some(why) if m.floor.is_empty() => why.clone(),
                _ => cell(&m.floor, row.unit),
            };
            let ratios = paired_ratios(&m.ours, &m.floor);
            let ratio = if ratios.is_empty() {
                "—".to_string()
            } else {
                let (lo, hi) = range(&ratios);
                format!(
                    "{} ({}–{})",
                    ratio_text(median(&ratios)),
                    ratio_text(lo),
                    ratio_text(hi)
                )
            };
            let holds = holds(row, &m.ours, &ratios);
            let _ = writeln!(
                out,
                "| {} | {} | {} ({} CPU{}) | {ours} | {floor} | {ratio} | {} | {holds} |",
                row.workload,
                row.metric,
                pass.mode,
                pass.cpus,
                if pass.cpus == 1 { "" } else { "s" },
                target_text(row),
            );
        }
    }
    out
}

fn holds(row: &Row, ours: &[f64], ratios: &[f64]) -> &'static str {
    let verdict = match row.target {
        Target::RatioAtLeast(x) => (!ratios.is_empty()).then(|| median(ratios) >= x),
        Target::RatioAtMost(x) => (!ratios.is_empty()).then(|| median(ratios) <= x),
        Target::AtMost(x) => (!ours.is_empty()).then(|| median(ours) <= x),
        Target::AtLeast(x) => (!ours.is_empty()).then(|| median(ours) >= x),
        Target::Informs => return "—",
    };
    match verdict {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "n/a",
    }
}

fn target_text(row: &Row) -> String {
    match row.target {
        Target::RatioAtLeast(x) => format!("ratio ≥ {x}"),
        Target::RatioAtMost(x) => format!("ratio ≤ {x} (speed ≥ {:.1})", 1.0 / x),
        Target::AtMost(x) => format!("≤ {} {}", number(x, row.unit), unit_text(row.unit)),
        Target::AtLeast(x) => format!("≥ {} {}", number(x, row.unit), unit_text(row.unit)),
        Target::Informs => "—".into(),
    }
}

fn unit_text(unit: Unit) -> &'static str {
    match unit {
        Unit::PerSecond => "/s",
        Unit::Micros => "µs",
        Unit::Millis => "ms",
        Unit::KiB => "KiB",
    }
}

fn cell(values: &[f64], unit: Unit) -> String {
    if values.is_empty() {
        return "—".into();
    }
    let (lo, hi) = range(values);
    format!(
        "{} ({}–{})",
        number(median(values), unit),
        number(lo, unit),
        number(hi, unit)
    )
}

fn ratio_text(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn number(x: f64, unit: Unit) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    match unit {
        Unit::PerSecond => thousands(x.round() as u64),
        Unit::Micros if x >= 100.0 => thousands(x.round() as u64),
        Unit::Micros => format!("{x:.1}"),
        Unit::Millis => format!("{x:.2}"),
        Unit::KiB => format!("{x:.1}"),
    }
}

fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(950), "950");
        assert_eq!(number(12.345, Unit::Micros), "12.3");
        assert_eq!(cell(&[1.0, 3.0, 2.0], Unit::Millis), "2.00 (1.00–3.00)");
    }
}
