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

mod client;
mod connection;
mod credential;
mod descriptor;
mod elicitation;
mod endpoint;
mod error;
mod hub;
mod list;
mod live;
mod oauth;
mod pins;
mod restarts;
mod transport;

pub use client::McpClient;
pub use connection::{McpConnection, START_TIMEOUT};
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
pub use restarts::{FIRST_BACKOFF, MAX_BACKOFF};
pub use transport::{CLIENT_NAME, CLIENT_VERSION, MESSAGE_CAP, PROTOCOL_VERSION};
