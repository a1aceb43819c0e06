//! [`McpCredential`]: the one credential an MCP server declares (`#[mcp_server(credential =
//! "tickets-api", ..)]`), resolved through the application's
//! [`CredentialProvider`](crate::tool::CredentialProvider) as the server starts and handed to
//! it alone: an HTTP header of its requests, or a variable of its child process.

use std::sync::Arc;

use crate::tool::{CredentialProvider, CredentialRequest, CredentialUse, Secret};

/// How a server's credential reaches it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpCredentialCarrier {
    /// An HTTP header of every request to a streamable-HTTP server; `Authorization` carries
    /// `Bearer <value>`, any other header the value as it is.
    Header(&'static str),
    /// A variable of a stdio server's process.
    Env(&'static str),
}

/// A server's credential: its name for the provider, and how it reaches the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct McpCredential {
    name: &'static str,
    carrier: McpCredentialCarrier,
}

impl McpCredential {
    /// The credential `name`, carried by `carrier`.
    pub const fn new(name: &'static str, carrier: McpCredentialCarrier) -> McpCredential {
        McpCredential { name, carrier }
    }

    /// Its name, as the provider knows it.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// How it reaches the server.
    pub fn carrier(&self) -> McpCredentialCarrier {
        self.carrier
    }

    /// Its value for server `server`, asked of `provider` as the server starts (one session
    /// serves every execution, so the request names no owner); why not, in words without the
    /// value.
    pub(crate) async fn resolve(
        &self,
        provider: Option<&Arc<dyn CredentialProvider>>,
        server: &str,
    ) -> Result<Secret, String> {
        let missing = |why: &str| format!("its credential `{}` is not available: {why}", self.name);
        let Some(provider) = provider else {
            return Err(missing("the application has no credential provider"));
        };
        let request = CredentialRequest {
            name: self.name,
            used_by: CredentialUse::McpServer { server },
        };
        match provider.resolve(request).await {
            Ok(Some(secret)) => Ok(secret),
            Ok(None) => Err(missing("the provider has none for this server")),
            Err(error) => Err(missing(&format!("the provider failed: {error}"))),
        }
    }
}

/// The headers that carry `secret` by `header`, marked sensitive (never printed by the HTTP
/// client's own logs).
pub(crate) fn headers_for(
    header: &str,
    secret: &Secret,
) -> Result<reqwest::header::HeaderMap, String> {
    use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
    let name = HeaderName::from_bytes(header.as_bytes())
        .map_err(|_| format!("`{header}` cannot name an HTTP header"))?;
    let text = if name == AUTHORIZATION {
        format!("Bearer {}", secret.expose())
    } else {
        secret.expose().to_owned()
    };
    let mut value = HeaderValue::from_str(&text)
        .map_err(|_| "its credential's value cannot be sent in an HTTP header".to_owned())?;
    value.set_sensitive(true);
    let mut headers = HeaderMap::new();
    headers.insert(name, value);
    Ok(headers)
}
