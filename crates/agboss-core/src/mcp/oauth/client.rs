//! [`OAuthClient`]: which grant a server's client authorizes itself with, its variables
//! expanded; [`authorize`], which makes the session's HTTP client with it; and the
//! client-credentials grant, with a client secret or a key (`jwt.rs`).

use std::fmt;

use super::code_grant::{Approval, CodeFlow};
use crate::base::Env;
use crate::mcp::descriptor::expand;
use crate::mcp::{McpGrant, McpOAuth};

/// How a server's client authorizes itself, its variables expanded.
#[cfg_attr(not(feature = "mcp-oauth"), allow(dead_code))]
pub(crate) enum OAuthClient {
    ClientCredentials(ClientCredentials),
    AuthorizationCode(CodeFlow),
}

impl OAuthClient {
    /// `oauth`'s texts with their `${VAR}`s replaced from `env`, a person's approval asked
    /// through `approval` (the authorization code grant); the first variable not set.
    pub(crate) fn expand(
        oauth: &McpOAuth,
        env: &Env,
        approval: Approval,
    ) -> Result<OAuthClient, String> {
        let optional = |text: Option<&str>| text.map(|text| expand(text, env)).transpose();
        let scopes = oauth
            .scopes()
            .iter()
            .map(|scope| expand(scope, env))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match oauth.grant() {
            McpGrant::ClientCredentials => OAuthClient::ClientCredentials(ClientCredentials {
                client_id: optional(oauth.client_id())?.unwrap_or_default(),
                client_secret: optional(oauth.client_secret())?.unwrap_or_default(),
                private_key: optional(oauth.private_key())?,
                scopes,
                clock: approval.clock().clone(),
            }),
            McpGrant::AuthorizationCode { redirect } => OAuthClient::AuthorizationCode(CodeFlow {
                redirect: expand(redirect, env)?,
                client_id: optional(oauth.client_id())?,
                client_secret: optional(oauth.client_secret())?,
                client_metadata_url: optional(oauth.client_metadata_url())?,
                scopes,
                approval,
            }),
        })
    }

    /// Whether a person approves (the authorization code grant): the server's start then
    /// waits for them.
    pub(crate) fn waits_for_a_person(&self) -> bool {
        matches!(self, OAuthClient::AuthorizationCode(_))
    }
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OAuthClient::ClientCredentials(credentials) => credentials.fmt(f),
            OAuthClient::AuthorizationCode(flow) => flow.fmt(f),
        }
    }
}

/// A server's client credentials with their variables expanded. The secret shows nowhere:
/// not in `Debug`, not in errors.
#[derive(Clone)]
#[cfg_attr(not(feature = "mcp-oauth"), allow(dead_code))]
pub(crate) struct ClientCredentials {
    client_id: String,
    client_secret: String,
    /// The PEM of the key a JWT assertion is signed with, instead of the secret.
    private_key: Option<String>,
    scopes: Vec<String>,
    /// The wall time an assertion is issued at.
    clock: crate::time::Clock,
}

impl fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCredentials")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field(
                "private_key",
                &self.private_key.as_ref().map(|_| "<redacted>"),
            )
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// The HTTP client of a session whose requests carry a token, authorized again when refused.
#[cfg(feature = "mcp-oauth")]
pub(crate) type AuthorizedClient = super::regrant::RegrantingClient;

/// Without `mcp-oauth` there is no authorized client: [`authorize`] always fails.
#[cfg(not(feature = "mcp-oauth"))]
pub(crate) type AuthorizedClient = reqwest::Client;

/// The client of a session with the server at `url`, authorized as `oauth` says: with a
/// first token (client credentials), or none until the server asks (authorization code);
/// it authorizes again when the server refuses. The error says which step failed, without
/// the secret.
#[cfg(feature = "mcp-oauth")]
pub(crate) async fn authorize(url: &str, oauth: &OAuthClient) -> Result<AuthorizedClient, String> {
    use std::sync::Arc;

    use super::regrant::{Grant, Refusal, RegrantingClient};

    let credentials = match oauth {
        OAuthClient::AuthorizationCode(flow) => return flow.client(url).await,
        OAuthClient::ClientCredentials(credentials) => credentials,
    };
    let first = grant(url, credentials, &credentials.scopes).await?;
    let (again_url, again_credentials) = (url.to_owned(), credentials.clone());
    let again: Grant = Arc::new(move |refusal, refused| {
        let (url, credentials) = (again_url.clone(), again_credentials.clone());
        Box::pin(async move {
            let scopes = match refusal {
                Refusal::Unauthorized(_) => credentials.scopes.clone(),
                Refusal::InsufficientScope(challenge) => {
                    super::code_grant::wider_scopes(&url, &refused, &challenge).await?
                }
            };
            grant(&url, &credentials, &scopes).await
        })
    });
    Ok(RegrantingClient::new(url, first, again))
}

/// One client-credentials grant asking for `scopes`: discovery, then the token; the client
/// whose requests carry it.
#[cfg(feature = "mcp-oauth")]
async fn grant(
    url: &str,
    credentials: &ClientCredentials,
    scopes: &[String],
) -> Result<super::regrant::Inner, String> {
    use rmcp::transport::auth::{AuthClient, ClientCredentialsConfig, OAuthState};

    if let Some(pem) = &credentials.private_key {
        let now = credentials
            .clock
            .wall_time()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        return super::jwt::grant(url, &credentials.client_id, pem, scopes, now)
            .await
            .map_err(|why| format!("OAuth's client-credentials grant with a JWT failed: {why}"));
    }
    let client = super::code_grant::oauth_http_client()?;
    let mut state = OAuthState::new(url, None)
        .await
        .map_err(|e| format!("OAuth could not start: {e}"))?;
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: credentials.client_id.clone(),
        client_secret: credentials.client_secret.clone(),
        scopes: scopes.to_vec(),
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
    Ok(AuthClient::new(
        crate::mcp::transport::CuttingClient(client),
        manager,
    ))
}

/// Without `mcp-oauth`: says to build agboss with it.
#[cfg(not(feature = "mcp-oauth"))]
pub(crate) async fn authorize(
    _url: &str,
    _oauth: &OAuthClient,
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
        let Ok(OAuthClient::ClientCredentials(credentials)) =
            OAuthClient::expand(&OAUTH, &env, Approval::for_tests())
        else {
            panic!("client credentials expected");
        };
        assert_eq!(credentials.client_id, "desk");
        assert_eq!(credentials.client_secret, "s3cr3t-marker");
        assert!(!format!("{credentials:?}").contains("s3cr3t-marker"));
        let missing = OAuthClient::expand(
            &OAUTH,
            &Env::from_pairs([("NOTES_ID", "d")]),
            Approval::for_tests(),
        );
        assert_eq!(missing.unwrap_err(), "NOTES_SECRET");
    }

    #[test]
    fn a_code_grant_expands_its_redirect_and_hides_its_secret() {
        static SCOPES: [&str; 0] = [];
        static OAUTH: McpOAuth =
            McpOAuth::authorization_code("http://127.0.0.1:${PORT}/cb", &SCOPES)
                .with_client("${ID}", Some("${SECRET}"));
        let env = Env::from_pairs([
            ("PORT", "8765"),
            ("ID", "desk"),
            ("SECRET", "s3cr3t-marker"),
        ]);
        let oauth = OAuthClient::expand(&OAUTH, &env, Approval::for_tests()).unwrap();
        assert!(oauth.waits_for_a_person());
        let shown = format!("{oauth:?}");
        assert!(shown.contains("http://127.0.0.1:8765/cb"), "{shown}");
        assert!(!shown.contains("s3cr3t-marker"), "{shown}");
    }
}
