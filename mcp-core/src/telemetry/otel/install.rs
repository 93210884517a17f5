//! The OpenTelemetry SDK with the OTLP/HTTP (protobuf) exporter, set up from
//! the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT` (or its
//! `_TRACES_` / `_METRICS_` forms), `OTEL_EXPORTER_OTLP_PROTOCOL`
//! (`http/protobuf`, the only one built in), `OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS` and
//! `OTEL_EXPORTER_OTLP_TIMEOUT` (read by the exporter itself).
//!
//! Spans are exported in batches from a thread of the SDK's own, through a
//! bounded queue: a request never waits for the collector, and when the
//! collector is unreachable the queue fills and spans are dropped (the SDK
//! counts them). Metrics are exported periodically (`OTEL_METRIC_EXPORT_INTERVAL`).

use std::time::Duration;

use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;

use crate::{Error, Result};

/// The instrumentation scope of libmcp's spans and metrics.
const SCOPE: &str = "libmcp";

/// What [`install_from_env`] installed. Dropping it (or
/// [`shutdown`](Self::shutdown)) flushes what is pending, waiting at most
/// the given time.
#[derive(Debug)]
pub struct OtelGuard {
    tracer: Option<SdkTracerProvider>,
    meter: Option<SdkMeterProvider>,
    done: bool,
}

fn set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The protocol a signal is exported with; only `http/protobuf` is built in.
fn check_protocol(signal: &str) -> Result<()> {
    for name in [
        format!("OTEL_EXPORTER_OTLP_{signal}_PROTOCOL"),
        "OTEL_EXPORTER_OTLP_PROTOCOL".to_string(),
    ] {
        if let Ok(protocol) = std::env::var(&name)
            && !protocol.is_empty()
        {
            if protocol == "http/protobuf" {
                return Ok(());
            }
            return Err(Error::Config(format!(
                "{name}={protocol}: only http/protobuf is supported"
            )));
        }
    }
    Ok(())
}

/// The resource: the SDK's detectors (`OTEL_SERVICE_NAME`,
/// `OTEL_RESOURCE_ATTRIBUTES`, the SDK's own attributes), with
/// `default_service` as `service.name` when neither names one.
fn resource(default_service: &str) -> Resource {
    let named = set("OTEL_SERVICE_NAME")
        || std::env::var("OTEL_RESOURCE_ATTRIBUTES").is_ok_and(|a| {
            a.split(',')
                .any(|kv| kv.trim().starts_with("service.name="))
        });
    let builder = Resource::builder();
    if named {
        builder.build()
    } else {
        builder
            .with_service_name(default_service.to_string())
            .build()
    }
}

/// Installs the OpenTelemetry SDK with the OTLP/HTTP (protobuf) exporter
/// when `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
/// or `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` is set, and returns the guard
/// that flushes it; `Ok(None)` (and nothing installed) when none is.
///
/// Traces: the global `tracing` subscriber becomes a registry with an
/// OpenTelemetry layer (spans at INFO and above), so call this before any
/// other subscriber is set (an error otherwise). Metrics: the operation
/// durations are recorded (see [`record_durations`](super::record_durations)).
/// `default_service` is the `service.name` when the variables name none.
///
/// Call it outside an async context (the HTTP client it builds has its own
/// runtime), for example before building the Tokio runtime.
pub fn install_from_env(default_service: &str) -> Result<Option<OtelGuard>> {
    let any = set("OTEL_EXPORTER_OTLP_ENDPOINT");
    let traces = any || set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
    let metrics = any || set("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT");
    if !traces && !metrics {
        return Ok(None);
    }
    let resource = resource(default_service);
    let mut guard = OtelGuard {
        tracer: None,
        meter: None,
        done: false,
    };
    if traces {
        check_protocol("TRACES")?;
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(|e| Error::Config(format!("the OTLP span exporter: {e}")))?;
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.clone())
            .build();
        let layer = tracing_opentelemetry::layer()
            .with_tracer(provider.tracer(SCOPE))
            .with_filter(LevelFilter::INFO);
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(layer))
            .map_err(|e| Error::Config(format!("a tracing subscriber is already set: {e}")))?;
        guard.tracer = Some(provider);
    }
    if metrics {
        check_protocol("METRICS")?;
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .build()
            .map_err(|e| Error::Config(format!("the OTLP metric exporter: {e}")))?;
        let provider = SdkMeterProvider::builder()
            .with_periodic_exporter(exporter)
            .with_resource(resource)
            .build();
        super::record_durations(&provider.meter(SCOPE));
        guard.meter = Some(provider);
    }
    Ok(Some(guard))
}

impl OtelGuard {
    /// Exports what is pending and stops the exporters, waiting at most
    /// `timeout` (an unreachable collector does not hold the process up).
    pub fn shutdown(mut self, timeout: Duration) {
        self.stop(timeout);
    }

    fn stop(&mut self, timeout: Duration) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        let tracer = self.tracer.take();
        let meter = self.meter.take();
        // On a thread of its own: the exporter's blocking client must not
        // be used from an async context, and a stuck export is left behind.
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned = std::thread::Builder::new()
            .name("otel-shutdown".into())
            .spawn(move || {
                if let Some(tracer) = tracer {
                    let _ = tracer.shutdown_with_timeout(timeout);
                }
                if let Some(meter) = meter {
                    let _ = meter.shutdown_with_timeout(timeout);
                }
                let _ = tx.send(());
            });
        if spawned.is_ok() {
            let _ = rx.recv_timeout(timeout + timeout);
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        self.stop(Duration::from_secs(5));
    }
}
