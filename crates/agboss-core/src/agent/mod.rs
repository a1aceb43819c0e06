//! Agents: a model, a prompt and the tools it may call, as `#[agent]` declares them.
//!
//! Files: `descriptor.rs` ([`AgentDescriptor`] and the registry), `settings.rs`
//! ([`AgentSettings`]), `assembled.rs` ([`AppAgent`], [`AppTool`]: as assembly left them),
//! `history.rs` (what an agent reads of its thread, within its bound).

mod assembled;
mod descriptor;
mod history;
mod settings;

pub(crate) use assembled::RunRules;
pub use assembled::{AppAgent, AppTool};
pub use descriptor::{
    Agent, AgentDescriptor, AgentRegistration, AnswerSpec, History, PromptFile, registered_agents,
};
pub(crate) use history::{PastTurn, fit_history, fit_turn};
pub use settings::AgentSettings;
