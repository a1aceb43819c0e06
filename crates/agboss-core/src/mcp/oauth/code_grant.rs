//! OAuth's authorization code grant with PKCE, for an MCP server a person lets the application
//! use. The session opens without a token; the server's first `401` starts the authorization
//! from its challenge (the resource's metadata it points at, the scope it names): discovery of
//! the authorization server, the client (pre-registered, its metadata document, or registered
//! dynamically), the page a person approves on through the application's [`Authorizer`], and
//! the code exchanged for a token (rmcp's `auth` does the protocol). A later `403` with
//! `insufficient_scope` asks the person again for the wider scope, at most
//! [`MOST_STEP_UPS`] times a session, and never for a scope the token already has.

use std::fmt;
use std::sync::Arc;

use super::authorizer::{
    AUTHORIZATION_TIMEOUT, AuthorizationPrompt, Authorizer, LoopbackAuthorizer,
};
use crate::time::Clock;
use crate::tool::TokenKeeper;

/// How many times a session asks a person for a wider scope after the first approval.
pub const MOST_STEP_UPS: u32 = 2;

/// Who approves, for which server and owner, on which clock their wait is bounded.
#[derive(Clone)]
pub(crate) struct Approval {
    server: &'static str,
    owner: Option<String>,
    authorizer: Arc<dyn Authorizer>,
    clock: Clock,
    /// Where the tokens are kept across restarts, if anywhere.
    keeper: Option<Arc<dyn TokenKeeper>>,
}

impl Approval {
    /// `authorizer` (else a [`LoopbackAuthorizer`]) approves for `server` on behalf of `owner`,
    /// waited for on the system clock until [`on`](Self::on) names another.
    pub(crate) fn new(
        server: &'static str,
        owner: Option<String>,
        authorizer: Option<Arc<dyn Authorizer>>,
    ) -> Approval {
        Approval {
            server,
            owner,
            authorizer: authorizer.unwrap_or_else(|| Arc::new(LoopbackAuthorizer::new())),
            clock: Clock::system(),
            keeper: None,
        }
    }

    /// The same, its tokens kept by `keeper` (the credential provider's).
    pub(crate) fn keeping(mut self, keeper: Option<Arc<dyn TokenKeeper>>) -> Approval {
        self.keeper = keeper;
        self
    }

    /// rmcp's store of the session's tokens: the keeper's, else none (rmcp keeps them in
    /// memory).
    #[cfg(feature = "mcp-oauth")]
    fn kept(&self) -> Option<super::kept_tokens::KeptTokens> {
        let key = crate::tool::TokenKey::new(self.server, self.owner.as_deref());
        Some(super::kept_tokens::KeptTokens::new(
            self.keeper.clone()?,
            key,
        ))
    }

    /// The clock its waits are bounded on.
    pub(crate) fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The same, the wait bounded on `clock`.
    pub(crate) fn on(mut self, clock: Clock) -> Approval {
        self.clock = clock;
        self
    }

    #[cfg(test)]
    pub(crate) fn for_tests() -> Approval {
        Approval::new("tests", None, None)
    }

    /// The address the browser came back to after a person approved on `page`.
    #[cfg_attr(not(feature = "mcp-oauth"), allow(dead_code))]
    async fn ask(&self, page: String, redirect: &str) -> Result<String, String> {
        let prompt = AuthorizationPrompt::new(self.server, page, redirect.to_owned())
            .for_owner(self.owner.clone());
        tokio::select! {
            back = self.authorizer.authorize(&prompt) => back.map_err(|why| format!("the approval failed: {why}")),
            () = self.clock.sleep(AUTHORIZATION_TIMEOUT) => Err(format!(
                "nobody approved within {} s (OAuth's authorization code grant)",
                AUTHORIZATION_TIMEOUT.as_secs()
            )),
        }
    }
}

/// The authorization code grant of one server, its variables expanded. The secret shows
/// nowhere: not in `Debug`, not in errors.
#[derive(Clone)]
#[cfg_attr(not(feature = "mcp-oauth"), allow(dead_code))]
pub(crate) struct CodeFlow {
    pub(crate) redirect: String,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) approval: Approval,
}

impl fmt::Debug for CodeFlow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CodeFlow")
            .field("redirect", &self.redirect)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .finish()
    }
}

#[cfg(feature = "mcp-oauth")]
mod grant {
    use std::sync::Arc;

    use rmcp::transport::auth::{
        AuthClient, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, OAuthState,
        ScopeUpgradeConfig, WWWAuthenticateParams,
    };

    use super::{CodeFlow, MOST_STEP_UPS};
    use crate::mcp::oauth::regrant::{Grant, Inner, Refusal, RegrantingClient};

    /// The HTTP client rmcp's OAuth requests and the session's go through. rmcp's own
    /// (discovery, registration, the token) keeps discovered URLs off addresses the server's
    /// does not share (link-local, cloud metadata) and stops at redirects where OAuth says
    /// to; it takes rustls's process-wide crypto provider, so one is installed when the
    /// program has none (ring, as agboss's own clients use).
    pub(crate) fn oauth_http_client() -> Result<reqwest::Client, String> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        crate::mcp::transport::http_client()
    }

    impl CodeFlow {
        /// The session's client for the server at `url`: no token until the server asks for
        /// one, then the person's approval.
        pub(crate) async fn client(&self, url: &str) -> Result<RegrantingClient, String> {
            // First: it installs the crypto provider rmcp's own client needs.
            let http = oauth_http_client()?;
            let mut manager = self.manager(url).await?;
            if self.approval.keeper.is_some() {
                match manager.initialize_from_store().await {
                    Ok(true) => tracing::info!(
                        server = self.approval.server,
                        owner = self.approval.owner.as_deref(),
                        "using kept OAuth tokens"
                    ),
                    Ok(false) => {}
                    Err(e) => {
                        tracing::warn!(server = self.approval.server, error = %e, "kept OAuth tokens could not be used; a person approves again")
                    }
                }
            }
            let first = AuthClient::new(crate::mcp::transport::CuttingClient(http), manager);
            let flow = Arc::new(self.clone());
            let url_again = url.to_owned();
            let grant: Grant = Arc::new(move |refusal, refused| {
                let (flow, url) = (flow.clone(), url_again.clone());
                Box::pin(async move {
                    match refusal {
                        Refusal::Unauthorized(challenge) => flow.approve(&url, &challenge).await,
                        Refusal::InsufficientScope(challenge) => {
                            flow.step_up(&url, refused, &challenge).await
                        }
                    }
                })
            });
            Ok(RegrantingClient::new(url, first, grant))
        }

        /// A manager for the server at `url`, its tokens kept where the approval says.
        async fn manager(&self, url: &str) -> Result<AuthorizationManager, String> {
            let mut manager = AuthorizationManager::new(url)
                .await
                .map_err(|e| format!("OAuth could not start: {e}"))?;
            if let Some(store) = self.approval.kept() {
                manager.set_credential_store(store);
            }
            Ok(manager)
        }

        /// A whole authorization after the server's `challenge`: discovery from it, the
        /// client, the person's approval, the token.
        async fn approve(&self, url: &str, challenge: &str) -> Result<Inner, String> {
            let mut state = OAuthState::Unauthorized(self.manager(url).await?);
            let mut request = AuthorizationRequest::new(self.redirect.clone())
                .with_client_name(format!("agboss ({})", self.approval.server))
                .with_challenge(challenge);
            if !self.scopes.is_empty() {
                request = request.with_scopes(self.scopes.clone());
            }
            if let Some(id) = &self.client_id {
                request = request.with_preregistered_client(id.clone());
                if let Some(secret) = &self.client_secret {
                    request = request.with_client_secret(secret.clone());
                }
            }
            if let Some(document) = &self.client_metadata_url {
                request = request.with_client_metadata_url(document.clone());
            }
            state
                .start_authorization(request)
                .await
                .map_err(|e| format!("OAuth's authorization could not start: {e}"))?;
            let page = state
                .get_authorization_url()
                .await
                .map_err(|e| format!("OAuth gave no page to approve on: {e}"))?;
            let back = self.approval.ask(page, &self.redirect).await?;
            state
                .handle_callback_url(&back)
                .await
                .map_err(|e| format!("the approval could not be exchanged for a token: {e}"))?;
            let mut manager = state
                .into_authorization_manager()
                .ok_or_else(|| "the approval gave no token".to_owned())?;
            let mut step_ups = ScopeUpgradeConfig::default();
            step_ups.max_upgrade_attempts = MOST_STEP_UPS;
            manager.set_scope_upgrade_config(step_ups);
            Ok(AuthClient::new(
                crate::mcp::transport::CuttingClient(oauth_http_client()?),
                manager,
            ))
        }

        /// The person approves the wider scope `challenge` names, for the client `refused`
        /// (its token replaced in place).
        async fn step_up(
            &self,
            url: &str,
            refused: Inner,
            challenge: &str,
        ) -> Result<Inner, String> {
            let (required, _) = scopes_after(url, &refused, challenge).await?;
            let page = {
                let manager = refused.auth_manager.lock().await;
                manager
                    .request_scope_upgrade(&required.join(" "))
                    .await
                    .map_err(|e| format!("a wider scope could not be asked for: {e}"))?
            };
            let back = self.approval.ask(page, &self.redirect).await?;
            let callback = AuthorizationCallback::from_redirect_url(&back)
                .map_err(|e| format!("the approval came back without a code: {e}"))?;
            refused
                .auth_manager
                .lock()
                .await
                .exchange_code_for_token_with_issuer(
                    &callback.code,
                    &callback.csrf_token,
                    callback.issuer.as_deref(),
                )
                .await
                .map_err(|e| format!("the approval could not be exchanged for a token: {e}"))?;
            Ok(refused)
        }
    }

    /// The scopes `challenge` (a `403 insufficient_scope`) names, and those the token of
    /// `refused` has; an error when the token has every one named: asking again would change
    /// nothing.
    async fn scopes_after(
        url: &str,
        refused: &Inner,
        challenge: &str,
    ) -> Result<(Vec<String>, Vec<String>), String> {
        let base = reqwest::Url::parse(url).map_err(|e| format!("`{url}`: {e}"))?;
        let named = WWWAuthenticateParams::parse(challenge, &base)
            .scope
            .unwrap_or_default();
        let granted = refused.auth_manager.lock().await.get_current_scopes().await;
        let required: Vec<String> = named.split_whitespace().map(str::to_owned).collect();
        if required.iter().all(|scope| granted.contains(scope)) {
            return Err(format!(
                "the server refused for want of the scope `{named}`, which the token already has: asking again would change nothing"
            ));
        }
        Ok((required, granted))
    }

    /// The scopes to ask for after `challenge` (a `403 insufficient_scope`): those of the
    /// token of `refused` and those the challenge names; an error when the token has them all.
    pub(crate) async fn wider_scopes(
        url: &str,
        refused: &Inner,
        challenge: &str,
    ) -> Result<Vec<String>, String> {
        let (required, mut scopes) = scopes_after(url, refused, challenge).await?;
        for scope in required {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        Ok(scopes)
    }
}

#[cfg(feature = "mcp-oauth")]
pub(crate) use grant::{oauth_http_client, wider_scopes};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::AuthorizerFuture;
    use crate::time::ManualClock;

    /// A person who never comes back.
    struct NeverAnswers;

    impl Authorizer for NeverAnswers {
        fn authorize<'a>(&'a self, _prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
            Box::pin(std::future::pending())
        }
    }

    #[tokio::test]
    async fn the_wait_for_an_approval_ends_at_the_authorization_timeout() {
        let manual = ManualClock::new();
        let approval = Approval::new(
            "tickets",
            Some("alice".to_owned()),
            Some(Arc::new(NeverAnswers)),
        )
        .on(Clock::from(&manual));
        let waiting = tokio::spawn(async move {
            approval
                .ask(
                    "https://auth.example/authorize".to_owned(),
                    "http://127.0.0.1:8765/cb",
                )
                .await
        });
        manual.wait_for_timers(1).await;
        manual.advance(AUTHORIZATION_TIMEOUT - std::time::Duration::from_millis(1));
        tokio::task::yield_now().await;
        assert!(
            !waiting.is_finished(),
            "it waited less than {AUTHORIZATION_TIMEOUT:?}"
        );
        manual.advance(std::time::Duration::from_millis(1));
        let ended = waiting.await.unwrap();
        assert_eq!(
            ended.unwrap_err(),
            "nobody approved within 300 s (OAuth's authorization code grant)"
        );
    }
}
