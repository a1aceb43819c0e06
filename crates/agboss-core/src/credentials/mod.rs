//! Credentials a tool declares it needs (`#[tool(needs = ["github"])]`) and an MCP server
//! authorizes with: the values, who resolves them, and where OAuth tokens are kept.
//!
//! - `secret.rs`: [`Secret`], a value that redacts itself.
//! - `provider.rs`: [`CredentialProvider`] (how an application resolves a credential for a
//!   call or a server), its request and errors.
//! - `static_credentials.rs`: [`StaticCredentials`], a provider of fixed values by name.
//! - `oauth_tokens.rs`: [`TokenKeeper`], where a provider keeps MCP sessions' OAuth tokens,
//!   and [`FileTokens`].
//!
//! A credential is resolved for a call after every gate and just before `run`
//! (`tool::gates::needs`), into the tool's `Credentials` field; its value reaches that field
//! and nothing else.

mod oauth_tokens;
mod provider;
mod secret;
mod static_credentials;

pub use oauth_tokens::{FileTokens, KeeperFuture, TokenKeeper, TokenKey};
pub use provider::{
    CredentialError, CredentialFuture, CredentialProvider, CredentialRequest, CredentialUse,
};
pub use secret::Secret;
pub use static_credentials::StaticCredentials;
