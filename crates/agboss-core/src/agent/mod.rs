//! Agents: a model, a prompt and the tools it may call, as `#[agent]` declares them.

mod descriptor;

pub use descriptor::{
    Agent, AgentDescriptor, AgentRegistration, AnswerSpec, History, PromptFile, Thinking,
    registered_agents,
};
