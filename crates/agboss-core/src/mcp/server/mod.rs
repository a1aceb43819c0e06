//! A server as the application runs it: where it is, its live session, its connection (started
//! on first use, shared by every execution, started again after a failure, stopped at shutdown).
//! It puts the other rooms together: it opens sessions over the transport (`mcp::transport`),
//! authorizes HTTP sessions with OAuth (`mcp::oauth`), judges listed definitions by the pins
//! (`mcp::pins`), and answers a server's requests through `mcp::elicitation`. No room uses it.
//!
//! - `connection.rs`: [`McpConnection`], one server's connection, and `Session`, what a call
//!   needs of a live session ([`START_TIMEOUT`]);
//! - `endpoint.rs`: `Endpoint`, where a server is, its variables expanded, with its credential
//!   and OAuth client;
//! - `live.rs`: `Live`, a session with a running server, opened over stdio or streamable HTTP,
//!   and why one could not be opened or ended, in the server's own words;
//! - `restarts.rs`: how soon a failing server is started again ([`FIRST_BACKOFF`],
//!   [`MAX_BACKOFF`]).

mod connection;
mod endpoint;
mod live;
mod restarts;

pub use connection::{McpConnection, START_TIMEOUT};
pub use restarts::{FIRST_BACKOFF, MAX_BACKOFF};

pub(crate) use connection::Session;
pub(crate) use endpoint::Endpoint;
pub(crate) use live::{Live, without_type_names};
