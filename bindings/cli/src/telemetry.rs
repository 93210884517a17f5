//! OpenTelemetry export for every verb: when `OTEL_EXPORTER_OTLP_ENDPOINT`
//! (or its `_TRACES_` / `_METRICS_` form) is set, the spans and duration
//! metrics of the session go to that collector over OTLP/HTTP (protobuf),
//! named by `OTEL_SERVICE_NAME` (default `mcp`) and
//! `OTEL_RESOURCE_ATTRIBUTES`; when none is set nothing is installed. A
//! setting that cannot be honoured is a warning, never a failure of the
//! command. Installed before the async runtime starts, flushed after it has
//! stopped, for at most a few seconds.

#[cfg(feature = "otel")]
use std::time::Duration;

/// How long the exit waits for the last export.
#[cfg(feature = "otel")]
const FLUSH: Duration = Duration::from_secs(3);

/// What was installed.
pub(crate) struct Telemetry {
    #[cfg(feature = "otel")]
    guard: Option<mcp_core::telemetry::otel::OtelGuard>,
}

impl Telemetry {
    /// Installs the exporter if the variables ask for it.
    pub(crate) fn install() -> Self {
        #[cfg(feature = "otel")]
        {
            let guard = match mcp_core::telemetry::otel::install_from_env("mcp") {
                Ok(guard) => guard,
                Err(e) => {
                    crate::output::stderr(&format!("warning: OpenTelemetry export is off: {e}"));
                    None
                }
            };
            Self { guard }
        }
        #[cfg(not(feature = "otel"))]
        Self {}
    }

    /// Exports what is pending (at most a few seconds).
    pub(crate) fn finish(self) {
        #[cfg(feature = "otel")]
        if let Some(guard) = self.guard {
            guard.shutdown(FLUSH);
        }
    }
}
