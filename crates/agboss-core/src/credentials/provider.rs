//! [`CredentialProvider`]: how an application resolves a credential by name, for one call of a
//! tool that `needs` it or for an MCP server as it starts; what it is asked and how it fails.
//!
//! A credential is resolved for each call after every gate (permission, check-in, approval)
//! and just before `run`, from the call's execution (owner, tenant, thread); its value goes to
//! the tool's field and nowhere else: not the schema, the journal, a trace, a log line, an error
//! text or `describe`, which show names only.

use std::future::Future;
use std::pin::Pin;

use crate::context::{Execution, Tenant};
use crate::credentials::Secret;

/// Who a credential is asked for: one call of a tool in an execution, or an MCP server as it
/// starts (its own credential, the same for every execution).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum CredentialUse<'a> {
    /// A call of tool `tool` in `execution`.
    Call {
        /// The tool's name.
        tool: &'a str,
        /// The execution the call runs in: its owner, tenant and thread.
        execution: &'a Execution,
    },
    /// MCP server `server`, starting: one session serves every execution, so its credential is
    /// the application's for that server, never a user's.
    McpServer {
        /// The server's name.
        server: &'a str,
    },
}

/// What a [`CredentialProvider`] is asked: one credential, by name, for one use.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct CredentialRequest<'a> {
    /// The credential's name, as `needs` (or the server's `credential`) declares it.
    pub name: &'a str,
    /// Who it is for.
    pub used_by: CredentialUse<'a>,
}

impl<'a> CredentialRequest<'a> {
    /// The execution of a call (none for an MCP server).
    pub fn execution(&self) -> Option<&'a Execution> {
        match self.used_by {
            CredentialUse::Call { execution, .. } => Some(execution),
            CredentialUse::McpServer { .. } => None,
        }
    }

    /// The owner of the call's execution, if it has one.
    pub fn owner_id(&self) -> Option<&'a str> {
        self.execution().and_then(Execution::owner_id)
    }

    /// The tenant of the call's execution, if it has one.
    pub fn tenant(&self) -> Option<&'a Tenant> {
        self.execution().and_then(Execution::tenant)
    }
}

/// Why a provider could not answer (its store is out of reach, a token could not be
/// refreshed). Its text goes to the `tracing` warning of the failed call, never to the model:
/// write no credential value in it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CredentialError {
    message: String,
}

impl CredentialError {
    /// An error saying `message`.
    pub fn new(message: impl Into<String>) -> CredentialError {
        CredentialError {
            message: message.into(),
        }
    }
}

/// What [`CredentialProvider::resolve`] returns: the value, none (this use has no such
/// credential), or why the provider could not say.
pub type CredentialFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Option<Secret>, CredentialError>> + Send + 'a>>;

/// Resolves credentials by name for each use: set one on the application
/// (`ApplicationBuilder::credentials`) when a tool `needs` a credential or an MCP server
/// declares one. Object-safe; [`StaticCredentials`](crate::credentials::StaticCredentials) is a ready one.
///
/// ```
/// use agboss_core::tool::{CredentialFuture, CredentialProvider, CredentialRequest, Secret};
///
/// /// One GitHub token per owner, from the program's own table.
/// struct Tokens(std::collections::HashMap<String, String>);
///
/// impl CredentialProvider for Tokens {
///     fn names(&self) -> Vec<String> {
///         vec!["github".to_owned()]
///     }
///
///     fn resolve<'a>(&'a self, request: CredentialRequest<'a>) -> CredentialFuture<'a> {
///         let found = request.owner_id().and_then(|owner| self.0.get(owner));
///         let value = found.map(|token| Secret::new(token.as_str()));
///         Box::pin(async move { Ok(value) })
///     }
/// }
/// ```
pub trait CredentialProvider: Send + Sync + 'static {
    /// The names it can resolve; assembly refuses a tool or server that needs another
    /// (`[credentials.unknown]`), listing these.
    fn names(&self) -> Vec<String>;

    /// Whether it can resolve `name`: by default, whether [`names`](Self::names) lists it. A
    /// provider that passes any name on (a vault) answers `true`.
    fn knows(&self, name: &str) -> bool {
        self.names().iter().any(|known| known == name)
    }

    /// The value of `request.name` for `request.used_by`, `None` when that use has none. Asked
    /// once per needed credential per call, just before the call runs.
    fn resolve<'a>(&'a self, request: CredentialRequest<'a>) -> CredentialFuture<'a>;

    /// Where the OAuth tokens a person's approval got are kept, per MCP server and owner (the
    /// authorization code grant), so a restarted application uses them, refreshed when they
    /// expire, instead of asking again. `None` by default: tokens live with their session.
    fn oauth_tokens(&self) -> Option<std::sync::Arc<dyn crate::credentials::TokenKeeper>> {
        None
    }
}
