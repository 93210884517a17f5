//! `mcp.client.operation.duration` and `mcp.server.operation.duration`:
//! seconds from a request's start to its answer, by method, error type and
//! transport, on histograms with the conventions' buckets.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Histogram, Meter};

/// The buckets the conventions give (seconds).
const BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

struct Instruments {
    client: Histogram<f64>,
    server: Histogram<f64>,
}

static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
static MEASURING: AtomicBool = AtomicBool::new(false);

/// Records operation durations on `meter` from now on (a meter of the
/// application's own provider; [`install_from_env`](super::install_from_env)
/// calls this with its own). Only the first meter given is used.
pub fn record_durations(meter: &Meter) {
    let histogram = |name: &'static str, description: &'static str| {
        meter
            .f64_histogram(name)
            .with_unit("s")
            .with_description(description)
            .with_boundaries(BUCKETS.to_vec())
            .build()
    };
    let _ = INSTRUMENTS.get_or_init(|| Instruments {
        client: histogram(
            "mcp.client.operation.duration",
            "The duration of an MCP request as observed by the sender",
        ),
        server: histogram(
            "mcp.server.operation.duration",
            "The duration of an MCP request as observed by the receiver",
        ),
    });
    MEASURING.store(true, Ordering::Relaxed);
}

/// Whether durations are recorded (a meter was given).
pub(crate) fn measuring() -> bool {
    MEASURING.load(Ordering::Relaxed)
}

/// Records one request's duration.
pub(crate) fn record_duration(
    server: bool,
    elapsed: Duration,
    method: &str,
    error_type: Option<&str>,
    network_transport: Option<&'static str>,
) {
    let Some(instruments) = INSTRUMENTS.get() else {
        return;
    };
    let mut attributes = Vec::with_capacity(3);
    attributes.push(KeyValue::new("mcp.method.name", method.to_string()));
    if let Some(error_type) = error_type {
        attributes.push(KeyValue::new("error.type", error_type.to_string()));
    }
    if let Some(transport) = network_transport {
        attributes.push(KeyValue::new("network.transport", transport));
    }
    let histogram = if server {
        &instruments.server
    } else {
        &instruments.client
    };
    histogram.record(elapsed.as_secs_f64(), &attributes);
}
