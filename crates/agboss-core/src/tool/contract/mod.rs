//! The call contract: one call from the model's JSON arguments to what the model reads, each
//! failure a value.
//!
//! - `invoke.rs`: [`Invoker`] (a tool's calls, typed), [`DynTool`] (a tool of any type, as an
//!   agent holds it), [`CallFrame`] and [`ToolEnv`] (what a call runs in); its steps, which do
//!   not depend on a tool's types, are compiled once in `steps.rs`, and what touches the types
//!   (reading the input, building the tool, writing the output) in `typed.rs`.
//! - `race.rs`: `run` against its timeout on the application's clock and the call's signal, a
//!   panic caught; [`TIMEOUT_GRACE`].
//! - `handler.rs`: [`ToolHandler`] (what a user writes) and [`Tool`] (what `#[tool]` adds).
//! - `error.rs`: [`ToolError`] (what a tool raises) and [`ToolFailure`] (why a call failed).
//! - `outcome.rs`: [`CallOutcome`], what the model reads of one call.

mod error;
mod handler;
mod invoke;
mod outcome;
pub(crate) mod race;

pub use error::{ToolError, ToolFailure, ToolResult};
pub use handler::{Tool, ToolHandler, tool_input_schema, tool_output_schema};
pub(crate) use invoke::erase;
pub use invoke::{CallFrame, CallWatch, DynTool, Invoker, ToolEnv};
pub use outcome::CallOutcome;
pub use race::TIMEOUT_GRACE;
