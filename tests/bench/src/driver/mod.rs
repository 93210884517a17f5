//! The driver: runs every workload against ours and its floor (one pass),
//! and renders passes as the table.

pub(crate) mod codec;
pub(crate) mod replicas;
pub(crate) mod table;
pub(crate) mod workloads;

// The client side is shared with `mcp-soak` (in the library).
pub(crate) use mcp_bench::{Error, http, procs, stats, stdio};

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// One figure's repetitions: ours and the floor's, in run order (the
/// repetitions of the two are interleaved, so pairs can be compared).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Measurement {
    pub(crate) ours: Vec<f64>,
    pub(crate) floor: Vec<f64>,
    /// Why there is no figure for ours (e.g. "n/a (wheel not built)").
    pub(crate) ours_missing: Option<String>,
    /// Why there is no figure for the floor.
    pub(crate) floor_missing: Option<String>,
}

/// The results of one pass (unpinned, or pinned to one CPU).
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Pass {
    pub(crate) mode: String,
    /// CPUs this pass could use.
    pub(crate) cpus: usize,
    pub(crate) seconds: f64,
    pub(crate) results: BTreeMap<String, Measurement>,
}

impl Pass {
    pub(crate) fn entry(&mut self, key: &str) -> &mut Measurement {
        self.results.entry(key.to_string()).or_default()
    }

    /// Marks `keys` as failed with `why` (a workload that could not run).
    pub(crate) fn failed(&mut self, keys: &[&str], why: &str) {
        for key in keys {
            let m = self.entry(key);
            m.ours_missing = Some(format!("failed: {why}"));
        }
    }
}

/// How long and how often to measure.
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    pub(crate) reps: usize,
    pub(crate) duration: Duration,
    pub(crate) warmup: Duration,
    /// Workload groups to run (`None`: all).
    pub(crate) only: Option<Vec<String>>,
    /// The interpreter of a venv where `import libmcp` may work.
    pub(crate) libmcp_python: PathBuf,
    /// The interpreter of the venv with the official SDK (`mcp`).
    pub(crate) sdk_python: PathBuf,
}

impl Settings {
    pub(crate) fn wants(&self, group: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|g| g == group))
    }
}
