//! OAuth for streamable-HTTP servers (MCP's authorization, OAuth 2.1 with rmcp's `auth`
//! feature, behind agboss's `mcp-oauth`). Two grants:
//!
//! - the client-credentials grant with a client secret: before the session opens, the
//!   server's protected-resource metadata and its authorization server's metadata are
//!   discovered and a token is asked for with the declared client id and secret (or a JWT
//!   signed with the client's key);
//! - the authorization code grant with PKCE: the session opens without a token, and the
//!   server's first refusal starts the authorization, a person approving through the
//!   application's [`Authorizer`].
//!
//! Every request of the session carries the token; a refusal later (an expired token, a scope
//! the token lacks) authorizes again. The session's requests go through the transport's
//! cutting HTTP client (`mcp::transport`), which is all this room uses of `mcp` besides the
//! server's declaration; the connection (`mcp::server`) uses it, never the other way.
//!
//! - `client.rs`: `OAuthClient` (which grant, its variables expanded), `authorize` (the
//!   session's HTTP client), and the client-credentials grant with a secret;
//! - `jwt.rs`: the client-credentials grant with a signed JWT assertion (`private_key_jwt`);
//! - `code_grant.rs`: the authorization code grant with PKCE, `Approval` (who approves, for
//!   which owner, on which clock) and the step-ups to a wider scope ([`MOST_STEP_UPS`]);
//! - `authorizer.rs`: [`Authorizer`], how a person approves, and [`LoopbackAuthorizer`];
//! - `regrant.rs`: `RegrantingClient`, the session's HTTP client that authorizes again when the
//!   server refuses;
//! - `kept_tokens.rs`: a person's tokens kept by the application's `TokenKeeper` across
//!   restarts.
//!
//! Without `mcp-oauth`, `client.rs`, `code_grant.rs` and `authorizer.rs` are still built (a
//! server may declare OAuth, and its start then says to enable the feature); the others are not.

mod authorizer;
mod client;
mod code_grant;
#[cfg(feature = "mcp-oauth")]
mod jwt;
#[cfg(feature = "mcp-oauth")]
mod kept_tokens;
#[cfg(feature = "mcp-oauth")]
mod regrant;

pub use authorizer::{
    AUTHORIZATION_TIMEOUT, AuthorizationPrompt, Authorizer, AuthorizerFuture, LoopbackAuthorizer,
};
pub use code_grant::MOST_STEP_UPS;

pub(crate) use client::{OAuthClient, authorize};
pub(crate) use code_grant::Approval;
