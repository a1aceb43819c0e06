//! [`Endpoint`]: where a server is, its `${VAR}`s expanded from the application's `Env`.

use super::McpOAuth;
use super::descriptor::expand;
use super::oauth::ClientCredentials;
use crate::base::Env;

/// Where a server is, its `${VAR}`s expanded: a program and its arguments, or a URL (and
/// the credentials its client authorizes itself with, if it must).
pub(crate) enum Endpoint {
    Stdio {
        command: String,
        args: Vec<String>,
    },
    Http {
        url: String,
        oauth: Option<ClientCredentials>,
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
    /// from `env`; the first variable that is not set.
    pub(crate) fn with_oauth(
        self,
        oauth: Option<&McpOAuth>,
        env: &Env,
    ) -> Result<Endpoint, String> {
        match (self, oauth) {
            (Endpoint::Http { url, headers, .. }, Some(oauth)) => Ok(Endpoint::Http {
                url,
                oauth: Some(ClientCredentials::expand(oauth, env)?),
                headers,
            }),
            (endpoint, _) => Ok(endpoint),
        }
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
