//! Medians, ranges and latency percentiles.

use std::time::Duration;

/// One timed run: how many requests completed, over how long, and (when
/// recorded) each request's latency in nanoseconds.
#[derive(Debug, Default)]
pub struct Run {
    pub count: u64,
    pub elapsed: Duration,
    pub latencies_ns: Vec<u64>,
}

impl Run {
    pub fn per_second(&self) -> f64 {
        self.count as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The `p`-th percentile latency (nearest rank), in microseconds.
    pub fn percentile_us(&mut self, p: f64) -> f64 {
        if self.latencies_ns.is_empty() {
            return f64::NAN;
        }
        self.latencies_ns.sort_unstable();
        let n = self.latencies_ns.len();
        let rank = ((p / 100.0) * n as f64).ceil() as usize;
        self.latencies_ns[rank.clamp(1, n) - 1] as f64 / 1000.0
    }
}

/// The median of `values` (NaN when empty).
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The smallest and largest of `values`.
pub fn range(values: &[f64]) -> (f64, f64) {
    values
        .iter()
        .filter(|x| !x.is_nan())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
}

/// Per-repetition ratios `ours[i] / floor[i]` (repetitions are interleaved,
/// so each pair ran under the same conditions).
pub fn paired_ratios(ours: &[f64], floor: &[f64]) -> Vec<f64> {
    ours.iter()
        .zip(floor)
        .map(|(o, f)| o / f)
        .filter(|r| r.is_finite())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_percentiles() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(range(&[2.0, 5.0, 1.0]), (1.0, 5.0));
        let mut run = Run {
            latencies_ns: (1..=100).map(|i| i * 1000).collect(),
            ..Run::default()
        };
        assert_eq!(run.percentile_us(50.0), 50.0);
        assert_eq!(run.percentile_us(99.0), 99.0);
        assert_eq!(paired_ratios(&[2.0, 3.0], &[1.0, 0.0]), vec![2.0]);
    }
}
