//! The base layer: what every other part of the runtime may use and which uses nothing of it.
//!
//! [`Env`] (environment variables by name), [`canonical_json`] and [`sha256_tagged`] (one
//! written form of a JSON value, and its hash), [`Problem`] and [`AssemblyError`] (problems found
//! at assembly, each with its code from [`agboss_rules::codes`]), [`Setting`] (a value in effect
//! and where it came from) and the HTTP client's TLS setup shared by model providers and MCP.
//!
//! Files: `env.rs`, `problem.rs`, `setting.rs`, `http.rs`; `canonical.rs` (the one writer MCP
//! pins and configuration hashes share); `sse.rs` (server-sent events, for providers' streams and
//! MCP answers); `telemetry.rs` (the names of a run's spans and fields); `random.rs` (ids that
//! must not be guessed); `failpoint.rs` (the fault tests' failpoints, feature `failpoints`).

mod canonical;
mod env;
mod failpoint;
#[cfg(feature = "http")]
pub(crate) mod http;
mod problem;
pub(crate) mod random;
mod setting;
#[cfg(any(
    feature = "openai",
    feature = "anthropic",
    feature = "gemini",
    feature = "mcp"
))]
pub(crate) mod sse;
pub mod telemetry;

pub use canonical::{canonical_json, sha256_tagged};
pub use env::{Env, FromEnv};
pub use failpoint::failpoint;
pub use problem::{AssemblyError, Problem, UnknownAgentToolError};
pub use setting::{Setting, Source};
