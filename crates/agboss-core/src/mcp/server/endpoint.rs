//! [`Endpoint`]: where a server is, its `${VAR}`s expanded from the application's `Env`.

use std::sync::Arc;

use crate::base::Env;
use crate::mcp::McpOAuth;
use crate::mcp::credential::{McpCredential, McpCredentialCarrier, headers_for};
use crate::mcp::descriptor::expand;
use crate::mcp::oauth::{Approval, OAuthClient};
use crate::tool::CredentialProvider;

/// Where a server is, its `${VAR}`s expanded: a program and its arguments, or a URL (and
/// the credentials its client authorizes itself with, if it must).
pub(crate) enum Endpoint {
    Stdio {
        command: String,
        args: Vec<String>,
    },
    Http {
        url: String,
        oauth: Option<Box<OAuthClient>>,
        /// The server's credential, as the headers that carry it.
        headers: reqwest::header::HeaderMap,
    },
}

impl Endpoint {
    /// `command args`, each `${VAR}` replaced from `env`; the first variable that is not set.
    pub(crate) fn stdio<A: AsRef<str>>(
        command: &str,
        args: &[A],
        env: &Env,
    ) -> Result<Endpoint, String> {
        Ok(Endpoint::Stdio {
            command: expand(command, env)?,
            args: args
                .iter()
                .map(|a| expand(a.as_ref(), env))
                .collect::<Result<_, _>>()?,
        })
    }

    /// `url`, each `${VAR}` replaced from `env`; the first variable that is not set.
    pub(crate) fn http(url: &str, env: &Env) -> Result<Endpoint, String> {
        Ok(Endpoint::Http {
            url: expand(url, env)?,
            oauth: None,
            headers: reqwest::header::HeaderMap::new(),
        })
    }

    /// An HTTP endpoint whose client authorizes itself with `oauth`, its `${VAR}`s replaced
    /// from `env`, a person approving through `approval` where the grant needs one; the first
    /// variable that is not set.
    pub(crate) fn with_oauth(
        self,
        oauth: Option<&McpOAuth>,
        env: &Env,
        approval: Approval,
    ) -> Result<Endpoint, String> {
        match (self, oauth) {
            (Endpoint::Http { url, headers, .. }, Some(oauth)) => Ok(Endpoint::Http {
                url,
                oauth: Some(Box::new(OAuthClient::expand(oauth, env, approval)?)),
                headers,
            }),
            (endpoint, _) => Ok(endpoint),
        }
    }

    /// Whether its start may wait for a person's approval (OAuth's authorization code grant).
    pub(crate) fn waits_for_a_person(&self) -> bool {
        matches!(self, Endpoint::Http { oauth: Some(oauth), .. } if oauth.waits_for_a_person())
    }
}

impl std::fmt::Display for Endpoint {
    /// The command line, or the URL.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Endpoint::Stdio { command, args } => {
                f.write_str(command)?;
                args.iter().try_for_each(|arg| write!(f, " {arg}"))
            }
            Endpoint::Http { url, .. } => f.write_str(url),
        }
    }
}

/// `endpoint` and `env` with the `credential` of server `server`, if it declares one, resolved
/// through `provider` and put where it goes: a variable of a stdio server's process (in `env`),
/// or a header of an HTTP server's requests (in the endpoint). Why not, without the value.
pub(crate) async fn with_credential(
    credential: Option<&McpCredential>,
    server: &str,
    provider: Option<&Arc<dyn CredentialProvider>>,
    endpoint: Endpoint,
    env: &mut Vec<(String, String)>,
) -> Result<Endpoint, String> {
    let Some(credential) = credential else {
        return Ok(endpoint);
    };
    let secret = credential.resolve(provider, server).await?;
    match (credential.carrier(), endpoint) {
        (McpCredentialCarrier::Env(variable), endpoint @ Endpoint::Stdio { .. }) => {
            env.retain(|(name, _)| name != variable);
            env.push((variable.to_owned(), secret.expose().to_owned()));
            Ok(endpoint)
        }
        (McpCredentialCarrier::Header(header), Endpoint::Http { url, oauth, .. }) => {
            Ok(Endpoint::Http {
                url,
                oauth,
                headers: headers_for(header, &secret)?,
            })
        }
        _ => Err(format!(
            "its credential `{}` is declared for the other transport",
            credential.name()
        )),
    }
}
