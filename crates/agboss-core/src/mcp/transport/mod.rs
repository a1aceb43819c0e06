//! How messages reach a server and come back: a stdio server's process and its pipes, the HTTP
//! client of a streamable-HTTP server, what a session says of itself in `initialize`, and a
//! message longer than [`MESSAGE_CAP`] read as far as it came. It knows nothing of OAuth, pins
//! or the connection that uses it; the other rooms of `mcp` use it.
//!
//! - `stdio.rs`: starting a stdio server in its own process group, its stdout checked line by
//!   line, the tail of its stderr kept (`spawn`, `Diagnostics`);
//! - `process.rs`: `ServerProcess`, the process group, which never outlives its owner;
//! - `http_client.rs`: the HTTP client of a streamable-HTTP server (TLS, credential headers);
//! - `http_answers.rs`: `CuttingClient`, the client tool calls are posted through, which cuts an
//!   answer at the cap instead of failing the call;
//! - `sse_cut.rs`: an SSE body read an event at a time, an event past the cap cut;
//! - `cut_answer.rs`: [`MESSAGE_CAP`], and what is read of a message cut there;
//! - `session.rs`: the protocol revision and client name a session asks for
//!   ([`PROTOCOL_VERSION`], [`CLIENT_NAME`], [`CLIENT_VERSION`]).

mod cut_answer;
mod http_answers;
mod http_client;
mod process;
mod session;
mod sse_cut;
mod stdio;

pub use cut_answer::MESSAGE_CAP;
pub use session::{CLIENT_NAME, CLIENT_VERSION, PROTOCOL_VERSION};

pub(crate) use cut_answer::CUT_META;
pub(crate) use http_answers::CuttingClient;
#[cfg(feature = "mcp-oauth")]
pub(crate) use http_client::http_client;
pub(crate) use http_client::http_client_with;
pub(crate) use process::ServerProcess;
pub(crate) use session::client_config;
pub(crate) use stdio::{Diagnostics, spawn};
