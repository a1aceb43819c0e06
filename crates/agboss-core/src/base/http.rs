//! The TLS setup of a provider's client, and error texts with their causes.

use std::sync::Arc;

/// TLS with ring and the platform's verifier, for this client only (no process-wide provider),
/// HTTP/1.1 only. Without system CA certificates, `https` fails on every certificate, and the
/// second value says why.
pub(crate) fn tls_config() -> Result<(rustls::ClientConfig, Option<String>), String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("could not set up TLS: {e}"))?;
    let (mut config, problem) = match rustls_platform_verifier::Verifier::new(provider) {
        Ok(verifier) => (
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth(),
            None,
        ),
        Err(e) => {
            tracing::warn!("no CA certificates for HTTPS: {e}");
            let config = builder
                .with_root_certificates(rustls::RootCertStore::empty())
                .with_no_client_auth();
            (config, Some(e.to_string()))
        }
    };
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((config, problem))
}

/// An error and its sources, `: `-separated: reqwest's own text names only the URL.
#[cfg_attr(
    not(any(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code, reason = "only the model providers report error chains")
)]
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
