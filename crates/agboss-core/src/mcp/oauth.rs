//! OAuth for streamable-HTTP servers (MCP's authorization, OAuth 2.1 with rmcp's `auth`
//! feature, behind agboss's `mcp-oauth`): the client-credentials grant with a client secret.
//! Before the session opens, the server's protected-resource metadata and its authorization
//! server's metadata are discovered, a token is asked for with the declared client id and
//! secret, and every request of the session carries it; a token the server refuses later (it
//! expired) is replaced by a new grant (`regrant.rs`).

use std::fmt;

use super::descriptor::{McpOAuth, expand};
use crate::base::Env;

/// A server's client credentials with their variables expanded. The secret shows nowhere:
/// not in `Debug`, not in errors.
#[derive(Clone)]
#[cfg_attr(not(feature = "mcp-oauth"), allow(dead_code))]
pub(crate) struct ClientCredentials {
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl ClientCredentials {
    /// `oauth`'s texts with their `${VAR}`s replaced from `env`; the first variable not set.
    pub(crate) fn expand(oauth: &McpOAuth, env: &Env) -> Result<ClientCredentials, String> {
        Ok(ClientCredentials {
            client_id: expand(oauth.client_id(), env)?,
            client_secret: expand(oauth.client_secret(), env)?,
            scopes: oauth
                .scopes()
                .iter()
                .map(|scope| expand(scope, env))
                .collect::<Result<_, _>>()?,
        })
    }
}

/// The HTTP client of a session whose requests carry a token, granted again when refused.
#[cfg(feature = "mcp-oauth")]
pub(crate) type AuthorizedClient = super::regrant::RegrantingClient;

/// Without `mcp-oauth` there is no authorized client: [`authorize`] always fails.
#[cfg(not(feature = "mcp-oauth"))]
pub(crate) type AuthorizedClient = reqwest::Client;

/// Discovers how the server at `url` is authorized and gets a token with `credentials`; the
/// client whose requests carry it, and which runs the grant again when the server refuses its
/// token (an expired one). The error says which step failed, without the secret.
#[cfg(feature = "mcp-oauth")]
pub(crate) async fn authorize(
    url: &str,
    credentials: &ClientCredentials,
) -> Result<AuthorizedClient, String> {
    let first = grant(url, credentials).await?;
    let (again_url, again_credentials) = (url.to_owned(), credentials.clone());
    let again: super::regrant::Grant = std::sync::Arc::new(move || {
        let (url, credentials) = (again_url.clone(), again_credentials.clone());
        Box::pin(async move { grant(&url, &credentials).await })
    });
    Ok(super::regrant::RegrantingClient::new(url, first, again))
}

/// One client-credentials grant: discovery, then the token; the client whose requests carry it.
#[cfg(feature = "mcp-oauth")]
pub(crate) async fn grant(
    url: &str,
    credentials: &ClientCredentials,
) -> Result<super::regrant::Inner, String> {
    use rmcp::transport::auth::{AuthClient, ClientCredentialsConfig, OAuthState};

    // rmcp's OAuth requests (discovery, the token) go through a client of its own, which
    // keeps discovered URLs off addresses the server's own does not share (link-local, cloud
    // metadata) and stops at redirects where OAuth says to; it takes rustls's process-wide
    // crypto provider, so one is installed when the program has none (ring, as agboss's own
    // clients use).
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = super::http_client()?;
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| format!("OAuth could not start: {e}"))?;
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: credentials.client_id.clone(),
        client_secret: credentials.client_secret.clone(),
        scopes: credentials.scopes.clone(),
        // MCP's authorization names the server the token is for: its URL.
        resource: Some(url.to_owned()),
    };
    state
        .authenticate_client_credentials(config)
        .await
        .map_err(|e| format!("OAuth's client-credentials grant failed: {e}"))?;
    let manager = state
        .into_authorization_manager()
        .ok_or_else(|| "OAuth's client-credentials grant gave no token".to_owned())?;
    Ok(AuthClient::new(client, manager))
}

/// Without `mcp-oauth`: says to build agboss with it.
#[cfg(not(feature = "mcp-oauth"))]
pub(crate) async fn authorize(
    _url: &str,
    _credentials: &ClientCredentials,
) -> Result<AuthorizedClient, String> {
    Err(
        "it declares OAuth, and agboss was built without its `mcp-oauth` feature: enable it"
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_secret_is_expanded_and_never_shown() {
        static SCOPES: [&str; 1] = ["notes:read"];
        static OAUTH: McpOAuth =
            McpOAuth::client_credentials("${NOTES_ID}", "${NOTES_SECRET}", &SCOPES);
        let env = Env::from_pairs([("NOTES_ID", "desk"), ("NOTES_SECRET", "s3cr3t-marker")]);
        let credentials = ClientCredentials::expand(&OAUTH, &env).unwrap();
        assert_eq!(credentials.client_id, "desk");
        assert_eq!(credentials.client_secret, "s3cr3t-marker");
        assert!(!format!("{credentials:?}").contains("s3cr3t-marker"));
        let missing = ClientCredentials::expand(&OAUTH, &Env::from_pairs([("NOTES_ID", "d")]));
        assert_eq!(missing.unwrap_err(), "NOTES_SECRET");
    }
}
