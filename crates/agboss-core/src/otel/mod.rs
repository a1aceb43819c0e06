//! OpenTelemetry (feature `otel`): a run's spans and the metrics made from them, exported over
//! OTLP.
//!
//! The loop names its spans and fields once ([`telemetry`](crate::base::telemetry)), after the
//! semantic conventions for generative AI: an `invoke_agent` span per execution, a `chat` span per
//! model call and an `execute_tool` span per tool call beneath it. [`Otel`] turns them into
//! OpenTelemetry spans (with `tracing-opentelemetry`) and into metrics ([`metrics`]: calls,
//! errors, cut results, tokens and cost by model, agent and tool), and exports both with
//! `opentelemetry-otlp`. Where they go is read from the standard variables:
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal `.._TRACES_ENDPOINT`, `.._METRICS_ENDPOINT`),
//! `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf` by default, or `grpc`), `OTEL_EXPORTER_OTLP_HEADERS`,
//! `OTEL_EXPORTER_OTLP_TIMEOUT`, and `OTEL_SERVICE_NAME`. An `https` endpoint is reached over
//! TLS trusting the platform's roots; over gRPC also the CA of `OTEL_EXPORTER_OTLP_CERTIFICATE`
//! and, for a collector that asks for one, the client certificate and key of
//! `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE` and `OTEL_EXPORTER_OTLP_CLIENT_KEY`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), agboss_core::otel::OtelError> {
//! use agboss_core::otel::Otel;
//!
//! // Inside the tokio runtime (the gRPC exporter needs it); keep the guard until the end.
//! let otel = Otel::from_env().service_name("desk").install()?;
//! // ... run the application ...
//! otel.shutdown(); // flushes what is left
//! # Ok(())
//! # }
//! ```
//!
//! The texts themselves (messages, arguments, results) are on spans only when the application
//! asks (`ApplicationBuilder::trace_content`), masked by the agent's policy.

mod export;
mod grpc_tls;
pub mod metrics;

use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::{Layer, Registry};

use self::metrics::RunMetrics;

/// Why OpenTelemetry could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum OtelError {
    /// An exporter could not be built (a bad endpoint or header in the variables, say).
    #[error("the OTLP {signal} exporter could not be built: {reason}")]
    Exporter {
        /// `traces` or `metrics`.
        signal: &'static str,
        /// The exporter's words.
        reason: String,
    },
    /// A protocol variable names a protocol agboss does not export with.
    #[error(
        "{variable}={value:?} is not a protocol agboss exports with: use `http/protobuf` (the default) or `grpc`"
    )]
    Protocol {
        /// `OTEL_EXPORTER_OTLP_PROTOCOL` or a per-signal one.
        variable: String,
        /// What it said.
        value: String,
    },
    /// Another subscriber is already the global default.
    #[error(
        "a tracing subscriber is already installed: add `Otel::layer` to it instead of `install`"
    )]
    SubscriberTaken,
}

/// How runs are exported: from the standard variables, with a few settings of one's own.
#[derive(Clone, Debug)]
pub struct Otel {
    service_name: Option<String>,
    metrics_interval: Duration,
}

impl Otel {
    /// Everything from the `OTEL_*` variables (the module's documentation lists them).
    pub fn from_env() -> Otel {
        Otel {
            service_name: None,
            metrics_interval: Duration::from_secs(60),
        }
    }

    /// The service's name (`service.name`), unless `OTEL_SERVICE_NAME` says another.
    pub fn service_name(mut self, name: impl Into<String>) -> Otel {
        self.service_name = Some(name.into());
        self
    }

    /// How often metrics are exported (60 s unless set); [`OtelGuard::shutdown`] exports what
    /// is left.
    pub fn metrics_interval(mut self, every: Duration) -> Otel {
        self.metrics_interval = every;
        self
    }

    /// The providers, and the layer that feeds them, for a subscriber of one's own
    /// (`tracing_subscriber::registry().with(layer).with(fmt_layer)`).
    pub fn layer<S>(&self) -> Result<(impl Layer<S> + use<S>, OtelGuard), OtelError>
    where
        S: tracing::Subscriber + for<'a> LookupSpan<'a> + Send + Sync,
    {
        let resource = self.resource();
        let http = export::blocking_client()?;
        let spans = export::spans(&http)?;
        let tracer_provider = SdkTracerProvider::builder()
            .with_resource(resource.clone())
            .with_batch_exporter(spans)
            .build();
        let numbers = export::metrics(&http)?;
        let reader = PeriodicReader::builder(numbers)
            .with_interval(self.metrics_interval)
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_resource(resource)
            .with_reader(reader)
            .build();
        let tracer = tracer_provider.tracer("agboss");
        let layer = tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .and_then(RunMetrics::new(&meter_provider));
        let guard = OtelGuard {
            tracer_provider,
            meter_provider,
            done: false,
        };
        Ok((layer, guard))
    }

    /// Installs a global subscriber that exports runs (and nothing else: add
    /// [`layer`](Self::layer) to a subscriber of one's own to log as well).
    pub fn install(&self) -> Result<OtelGuard, OtelError> {
        let (layer, guard) = self.layer::<Registry>()?;
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|_| OtelError::SubscriberTaken)?;
        Ok(guard)
    }

    fn resource(&self) -> Resource {
        let mut resource = Resource::builder();
        // The variable wins over the code, as the SDK's own detector says.
        if let Some(name) = &self.service_name
            && std::env::var_os("OTEL_SERVICE_NAME").is_none()
        {
            resource = resource.with_service_name(name.clone());
        }
        resource.build()
    }
}

fn exporter(signal: &'static str, e: impl std::fmt::Display) -> OtelError {
    OtelError::Exporter {
        signal,
        reason: e.to_string(),
    }
}

/// The exporting providers: [`shutdown`](Self::shutdown) (or dropping it) exports what is
/// left and stops them.
#[must_use = "dropping the guard stops exporting"]
pub struct OtelGuard {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    done: bool,
}

impl OtelGuard {
    /// Exports what is buffered, spans and metrics, now.
    pub fn flush(&self) {
        if let Err(e) = self.tracer_provider.force_flush() {
            tracing::warn!(error = %e, "spans could not be exported");
        }
        if let Err(e) = self.meter_provider.force_flush() {
            tracing::warn!(error = %e, "metrics could not be exported");
        }
    }

    /// Exports what is left and stops the providers.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        // Each exports what it holds before it stops.
        if let Err(e) = self.tracer_provider.shutdown() {
            tracing::warn!(error = %e, "spans could not be exported");
        }
        if let Err(e) = self.meter_provider.shutdown() {
            tracing::warn!(error = %e, "metrics could not be exported");
        }
    }
}

impl Drop for OtelGuard {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for OtelGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtelGuard")
            .field("done", &self.done)
            .finish()
    }
}

/// The value of `OTEL_EXPORTER_OTLP_<signal>_<name>`, else of `OTEL_EXPORTER_OTLP_<name>`, with
/// the variable it came from: the per-signal variable wins, as the OTLP exporter specification
/// says. Blank values count as unset.
fn variable(signal: &str, name: &str) -> Option<(String, String)> {
    [
        format!("OTEL_EXPORTER_OTLP_{signal}_{name}"),
        format!("OTEL_EXPORTER_OTLP_{name}"),
    ]
    .into_iter()
    .find_map(|variable| {
        let value = std::env::var(&variable).ok()?;
        (!value.trim().is_empty()).then_some((variable, value))
    })
}
