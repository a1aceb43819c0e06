//! The call contract: one call from the model's JSON arguments to what the model reads, each
//! failure a value.
//!
//! - `invoke.rs`: [`Invoker`] (a tool's calls, typed); its steps, which do not depend on a
//!   tool's types, are compiled once in `steps.rs`, and what touches the types (reading the
//!   input, building the tool, writing the output) in `typed.rs`.
//! - `dyn_tool.rs`: [`DynTool`] (a tool of any type, as an agent holds it).
//! - `frame.rs`: [`CallFrame`] and [`ToolEnv`] (what a call runs in).
//! - `handler.rs`: [`ToolHandler`] (what a user writes) and [`Tool`] (what `#[tool]` adds).
//! - `own.rs`: the stages a tool's calls pass on their own (outside an agent's run).

mod dyn_tool;
mod frame;
mod handler;
mod invoke;
mod own;

pub use dyn_tool::DynTool;
pub use frame::{CallFrame, CallWatch, ToolEnv};
pub use handler::{Tool, ToolHandler, tool_input_schema, tool_output_schema};
pub use invoke::Invoker;
pub(crate) use invoke::erase;
pub(crate) use own::own_stages;
