//! The OTLP exporters, as the standard variables choose them: HTTP with protobuf (the default)
//! on a blocking reqwest client with agboss's TLS setup (the SDK's batch threads call it), or
//! gRPC with tonic (`OTEL_EXPORTER_OTLP_PROTOCOL=grpc`, or the per-signal variable), over TLS
//! to an `https` endpoint (`grpc_tls`).

use opentelemetry_otlp::{MetricExporter, SpanExporter, WithHttpConfig, WithTonicConfig};

use super::{OtelError, variable};

/// How a signal is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Transport {
    HttpProtobuf,
    Grpc,
}

/// The transport of `signal` (`TRACES`, `METRICS`): its own variable, else the shared one,
/// else HTTP with protobuf, as the OTLP exporter specification says.
pub(super) fn transport(signal: &'static str) -> Result<Transport, OtelError> {
    let said = variable(signal, "PROTOCOL");
    match said {
        None => Ok(Transport::HttpProtobuf),
        Some((variable, value)) => match value.trim().to_ascii_lowercase().as_str() {
            "http/protobuf" => Ok(Transport::HttpProtobuf),
            "grpc" => Ok(Transport::Grpc),
            _ => Err(OtelError::Protocol { variable, value }),
        },
    }
}

/// The span exporter.
pub(super) fn spans(http: &reqwest::blocking::Client) -> Result<SpanExporter, OtelError> {
    let built = match transport("TRACES")? {
        Transport::HttpProtobuf => SpanExporter::builder()
            .with_http()
            .with_http_client(http.clone())
            .build(),
        Transport::Grpc => {
            let mut builder = SpanExporter::builder().with_tonic();
            if let Some(tls) = super::grpc_tls::tls_config("TRACES")? {
                builder = builder.with_tls_config(tls);
            }
            builder.build()
        }
    };
    built.map_err(|e| super::exporter("traces", e))
}

/// The metric exporter.
pub(super) fn metrics(http: &reqwest::blocking::Client) -> Result<MetricExporter, OtelError> {
    let built = match transport("METRICS")? {
        Transport::HttpProtobuf => MetricExporter::builder()
            .with_http()
            .with_http_client(http.clone())
            .build(),
        Transport::Grpc => {
            let mut builder = MetricExporter::builder().with_tonic();
            if let Some(tls) = super::grpc_tls::tls_config("METRICS")? {
                builder = builder.with_tls_config(tls);
            }
            builder.build()
        }
    };
    built.map_err(|e| super::exporter("metrics", e))
}

/// The blocking client, with the TLS setup of agboss's other clients (ring, the platform's
/// roots). Built on a thread of its own: a blocking client runs a runtime of its own, which
/// cannot start inside the caller's.
pub(super) fn blocking_client() -> Result<reqwest::blocking::Client, OtelError> {
    let made = std::thread::spawn(|| {
        let (tls, _) = crate::base::http::tls_config()?;
        reqwest::blocking::Client::builder()
            .tls_backend_preconfigured(tls)
            .build()
            .map_err(|e| e.to_string())
    })
    .join()
    .map_err(|_| "the thread building the HTTP client panicked".to_owned())
    .and_then(|built| built);
    made.map_err(|reason| OtelError::Exporter {
        signal: "traces and metrics",
        reason: format!("the HTTP client could not be built: {reason}"),
    })
}
