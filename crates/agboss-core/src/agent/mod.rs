//! Agents: a model, a prompt and the tools it may call, as `#[agent]` declares them.

mod assembled;
mod descriptor;
mod settings;

pub(crate) use assembled::RunRules;
pub use assembled::{AppAgent, AppTool};
pub use descriptor::{
    Agent, AgentDescriptor, AgentRegistration, AnswerSpec, History, PromptFile, registered_agents,
};
pub use settings::AgentSettings;
