//! Running agents: the loop, its limits and the errors a run ends with.
//!
//! The loop is a state machine over serializable state ([`LoopState`](crate::journal::LoopState))
//! advanced one step at a time; every step is a [`LoopEvent`](crate::journal::LoopEvent)
//! appended to the [`Store`](crate::store::Store) before the next begins, so an execution can
//! be resumed from its journal. It needs only a [`RunEnv`] (store, model router, budgets) and
//! an assembled agent ([`AppAgent`](crate::agent::AppAgent)): nothing of the application above.
//!
//! Each model call is preceded by the budget checks; each answer's tool calls run concurrently,
//! each as its own task under the tool's timeout and the execution's cancellation; results go
//! back in the model's order. docs/agents.md describes the state layout.
//!
//! Files: `driver.rs` (a run from its state to its end) and `agent_loop.rs` (the steps in turn)
//! over `cx.rs` (`Cx`, what the steps share and the one way to journal); `model_turn.rs`
//! (the checks, the call, the answer); `gatekeeper.rs` (the gates before a call's intent) with
//! `approve.rs`, `asks.rs` and `pause_send.rs` (pauses for approvals and questions);
//! `tool_step.rs` with `calls.rs`, `results.rs` (a result through its rules), `overdue.rs`,
//! `watch.rs`, `history.rs`; `answers.rs`, `limits.rs`, `time_budget.rs` (how a run ends);
//! `lease.rs`; `sealing.rs` and `mask.rs` (masking); `knowledge.rs` (context mode);
//! `artifacts.rs`, `retention.rs`; `events.rs`, `telemetry.rs`, `ids.rs`, `spent.rs`,
//! `outcome.rs`, `approvals.rs`, `env.rs`.

mod agent_loop;
mod answers;
mod approvals;
mod approve;
mod artifacts;
mod asks;
mod calls;
mod cx;
mod driver;
mod env;
mod events;
mod gatekeeper;
mod history;
mod ids;
mod knowledge;
mod lease;
mod limits;
mod mask;
mod model_turn;
mod outcome;
mod overdue;
mod pause_send;
mod results;
mod retention;
mod sealing;
mod spent;
mod telemetry;
mod time_budget;
mod tool_step;
mod watch;

pub use approvals::Approvals;
pub(crate) use artifacts::run_ended;
pub(crate) use driver::{drive, outcome};
pub use env::RunEnv;
pub use events::RunEvent;
pub(crate) use events::{EventSink, Events};
pub use ids::assign_call_ids;
pub(crate) use lease::LeaseKeeper;
pub use lease::{ExecutionLeaseLostError, LeaseLoss};
pub use limits::{DurationLimitError, LimitExceededError, RunError, TurnLimitError};
pub use outcome::{Completed, Elsewhere, Paused, PendingPause, RunOutcome};
pub(crate) use pause_send::millis_since_epoch;
pub use retention::ArtifactRetention;
pub(crate) use spent::restore_spend;

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
    pub(crate) budgets: Option<crate::spend::Budgets>,
    pub(crate) on_tool_end: Option<ToolEndHook>,
    pub(crate) tool_choice: Option<ToolChoiceFn>,
    /// Where a watched run's events go.
    pub(crate) events: Option<EventSink>,
}
