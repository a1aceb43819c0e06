//! The HTTP client of the APIs agboss calls, its TLS setup, and error texts with their causes.

use std::sync::Arc;

/// The HTTP client of an API agboss calls (a model provider, an embeddings endpoint): TLS as
/// [`tls_config`] sets it up, HTTP/1.1, no redirects followed, agboss's user agent. The second
/// value says why `https` will fail, when no CA certificates were found.
#[cfg_attr(
    not(any(
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "knowledge"
    )),
    allow(dead_code)
)]
pub(crate) fn api_client() -> Result<(reqwest::Client, Option<String>), String> {
    let (tls, problem) = tls_config()?;
    let client = reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .http1_only()
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("agboss/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("could not build the HTTP client: {}", error_chain(&e)))?;
    Ok((client, problem))
}

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
