//! Running agents: the loop, its journal, its limits.
//!
//! `app.run("desk", "What did I save about the dentist?").thread("t-1").owner("u-1").await`
//! runs the workflow's first agent (or `.agent("scout")`) until it answers. The loop is a state
//! machine over serializable state ([`LoopState`]) advanced one step at a time; every step is a
//! [`LoopEvent`] appended to the application's [`Store`](crate::store::Store) before the next
//! begins, so an execution can be resumed from its journal ([`Application::resume`](crate::app::Application::resume)).
//!
//! Each model call is preceded by the budget checks; each answer's tool calls run concurrently,
//! each as its own task under the tool's timeout and the execution's cancellation; results go
//! back in the model's order. docs/agents.md describes the state layout.

mod agent_loop;
mod driver;
mod ids;
mod limits;
mod state;
mod tools_step;

pub use driver::{RunBuilder, RunOutcome};
pub use ids::assign_call_ids;
pub use limits::{BudgetExceededError, Budgets, LimitExceededError, RunError};
pub use state::{
    Answer, CallResult, LoopEvent, LoopState, Next, PendingCall, STATE_VERSION, Spent,
};

use std::sync::Arc;

use crate::model::ToolChoice;

/// What the `on_tool_end` hook is told of each finished call.
#[derive(Clone, Copy, Debug)]
pub struct ToolEnd<'a> {
    /// The agent.
    pub agent: &'a str,
    /// The tool's name.
    pub tool: &'a str,
    /// `local`, or the MCP server's name.
    pub source: &'a str,
    /// The call's id.
    pub call_id: &'a str,
    /// Whether it failed.
    pub is_error: bool,
    /// Whether what the model reads was cut to the bound.
    pub is_result_truncated: bool,
    /// What the model reads (ending with the truncation marker when cut).
    pub content: &'a str,
}

/// A hook called as each tool call ends.
pub type ToolEndHook = Arc<dyn Fn(&ToolEnd<'_>) + Send + Sync>;

/// Chooses the tool choice of a turn (from 1); `None` keeps the agent's.
pub type ToolChoiceFn = Arc<dyn Fn(u32) -> Option<ToolChoice> + Send + Sync>;

/// Options of one run.
#[derive(Clone, Default)]
pub struct RunOptions {
    pub(crate) budgets: Option<Budgets>,
    pub(crate) on_tool_end: Option<ToolEndHook>,
    pub(crate) tool_choice: Option<ToolChoiceFn>,
}
