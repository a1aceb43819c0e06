//! MCP: tools of other programs, reached through the Model Context Protocol with the official
//! Rust SDK (`rmcp`).
//!
//! A server is declared once with `#[mcp_server]`: a program speaking MCP on stdio, or a
//! streamable-HTTP endpoint, with the server's tools the application uses and the NAMES of the
//! environment variables it needs. An `#[mcp_tool]` is a tool like any other (its own kebab
//! name, its own DTOs, the same contract) bound to one of the server's tools, which it calls
//! through its [`McpClient`] field. The model sees only the `#[mcp_tool]`; the server's own
//! tool names stay inside.
//!
//! Servers start on first use and are shared by every execution. A stdio server that dies is
//! started again by the next call; the call that saw it die gets a tool error saying how.
//! [`Application::shutdown`](crate::app::Application::shutdown) stops them all (a stdio
//! server's whole process group). A tool's definition (description, schemas, annotations) is
//! pinned at first sight and a call is sent only while the server's definition is the approved
//! one ([`PinKeeper`]). docs/mcp.md has the details.
//!
//! # Rooms
//!
//! The module's face is its top files; four rooms hold the rest, each with a `mod.rs` that lists
//! its files:
//!
//! - `transport/`: how messages reach a server and come back: a stdio server's process and
//!   pipes, the HTTP client of a streamable-HTTP server, what a session says in `initialize`
//!   ([`PROTOCOL_VERSION`]), and a message past [`MESSAGE_CAP`] read as far as it came (over
//!   stdio, and over HTTP by the client that posts tool calls, SSE events cut too);
//! - `oauth/`: OAuth for HTTP servers (feature `mcp-oauth`): the client-credentials grant (with
//!   a secret or a signed JWT), the authorization code grant with PKCE, a session per owner,
//!   approved through an [`Authorizer`] (the [`LoopbackAuthorizer`] by default), authorizing
//!   again inside a session when a token is refused or lacks a scope, and tokens kept across
//!   restarts;
//! - `pins/`: tools' definitions hashed and judged by a [`PinKeeper`] before each call, listed
//!   again when the server says they changed (`list_changed`);
//! - `server/`: a server as the application runs it: where it is, its live session, its
//!   [`McpConnection`], and failing servers started again with a bounded backoff.
//!
//! At the top: `descriptor.rs` (what `#[mcp_server]` declares: [`McpServerDescriptor`], its
//! transport and OAuth), `credential.rs` (a server's own credential, as a header or a
//! variable), `error.rs` ([`McpError`]), `elicitation.rs` (a server's requests for input during
//! a call, asked through the call's `Asker`; the session's handler, which also hears
//! `list_changed`), `hub.rs` ([`McpHub`], every server of an application), `client.rs`
//! ([`McpClient`], what an `#[mcp_tool]` calls through) and `list.rs` ([`list_tools`], for
//! `agboss g mcp`).
//!
//! Imports point one way: `transport` uses nothing else of `mcp`; `pins` uses the declaration
//! and `McpError`; `oauth` uses `transport` and the declaration; `elicitation.rs` uses `pins`
//! and `transport`; `server` uses all of these; `hub.rs`, `list.rs` and `client.rs` stand on
//! `server`, and nothing below uses them. `tests/tidy.rs` fails on two rooms or top files that
//! reach each other.

mod client;
mod credential;
mod descriptor;
mod elicitation;
mod error;
mod hub;
mod list;
mod oauth;
mod pins;
mod server;
mod transport;

pub use client::McpClient;
pub use credential::{McpCredential, McpCredentialCarrier};
pub use descriptor::{
    McpGrant, McpOAuth, McpServer, McpServerDescriptor, McpServerRegistration, McpTransport,
    declares, registered_mcp_servers, remote_tool,
};
pub use elicitation::{ElicitationAnswer, ElicitationQuestion, ElicitationTypes};
pub use error::McpError;
pub use hub::McpHub;
pub use list::{ListError, ListedTool, ServerAddress, list_tools};
pub use oauth::{
    AUTHORIZATION_TIMEOUT, AuthorizationPrompt, Authorizer, AuthorizerFuture, LoopbackAuthorizer,
    MOST_STEP_UPS,
};
pub use pins::{Definition, MemoryPins, PinFuture, PinKeeper, Verdict, canonical_json};
pub use server::{FIRST_BACKOFF, MAX_BACKOFF, McpConnection, START_TIMEOUT};
pub use transport::{CLIENT_NAME, CLIENT_VERSION, MESSAGE_CAP, PROTOCOL_VERSION};
