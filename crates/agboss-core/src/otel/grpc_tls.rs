//! TLS for OTLP over gRPC to an `https` endpoint: the platform's roots (as agboss's HTTP
//! clients trust them; `SSL_CERT_FILE` and `SSL_CERT_DIR` are read), plus the CA certificate of
//! `OTEL_EXPORTER_OTLP_CERTIFICATE`, and the client certificate and key of
//! `OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE` and `OTEL_EXPORTER_OTLP_CLIENT_KEY` for a collector
//! that asks for one; each also per signal (`OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`, ...), which
//! wins, as the OTLP exporter specification says. A plain `http` endpoint gets none of it.

use opentelemetry_otlp::tonic_types::transport::{Certificate, ClientTlsConfig, Identity};

use super::{OtelError, variable};

/// The TLS setup of `signal`'s (`TRACES`, `METRICS`) gRPC exporter; `None` when its endpoint is
/// not `https` (or is left to the exporter's default, `http://localhost:4317`).
pub(super) fn tls_config(signal: &'static str) -> Result<Option<ClientTlsConfig>, OtelError> {
    let https = variable(signal, "ENDPOINT")
        .is_some_and(|(_, endpoint)| endpoint.trim().to_ascii_lowercase().starts_with("https://"));
    if !https {
        return Ok(None);
    }
    let mut config = ClientTlsConfig::new().with_native_roots();
    if let Some(pem) = file(signal, "CERTIFICATE")? {
        config = config.ca_certificate(Certificate::from_pem(pem));
    }
    match (
        file(signal, "CLIENT_CERTIFICATE")?,
        file(signal, "CLIENT_KEY")?,
    ) {
        (Some(certificate), Some(key)) => {
            config = config.identity(Identity::from_pem(certificate, key));
        }
        (None, None) => {}
        (certificate, _) => {
            let (given, missing) = match certificate {
                Some(_) => ("CLIENT_CERTIFICATE", "CLIENT_KEY"),
                None => ("CLIENT_KEY", "CLIENT_CERTIFICATE"),
            };
            return Err(OtelError::Exporter {
                signal: signal_name(signal),
                reason: format!(
                    "OTEL_EXPORTER_OTLP_{given} is set without OTEL_EXPORTER_OTLP_{missing}: a client certificate needs both"
                ),
            });
        }
    }
    Ok(Some(config))
}

/// The contents of the file a `name` variable names, if one does.
fn file(signal: &'static str, name: &str) -> Result<Option<Vec<u8>>, OtelError> {
    let Some((variable, path)) = variable(signal, name) else {
        return Ok(None);
    };
    std::fs::read(path.trim())
        .map(Some)
        .map_err(|e| OtelError::Exporter {
            signal: signal_name(signal),
            reason: format!("{variable}={path:?} cannot be read: {e}"),
        })
}

fn signal_name(signal: &str) -> &'static str {
    match signal {
        "METRICS" => "metrics",
        _ => "traces",
    }
}
