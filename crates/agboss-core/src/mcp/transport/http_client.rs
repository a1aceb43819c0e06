//! The HTTP client streamable-HTTP servers are reached with: the same TLS setup as the model
//! providers, and the server's credential sent as headers on every request.

/// The HTTP client for streamable-HTTP servers: the same TLS setup as the model providers.
#[cfg(feature = "mcp-oauth")]
pub(crate) fn http_client() -> Result<reqwest::Client, String> {
    http_client_with(reqwest::header::HeaderMap::new())
}

/// The HTTP client for a streamable-HTTP server, sending `headers` (its credential) on every
/// request.
pub(crate) fn http_client_with(
    headers: reqwest::header::HeaderMap,
) -> Result<reqwest::Client, String> {
    let (tls, _) = crate::base::http::tls_config()?;
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .default_headers(headers)
        .build()
        .map_err(|e| format!("could not build the HTTP client: {e}"))
}
