//! Assembly: an application's declarations in, an assembled application or every problem out.
//!
//! [`assemble`] is a pure, one-time check: it reads the workflows, agents, tools, channels,
//! providers, defaults and configuration as declared ([`Declarations`]), reads no environment
//! variable, starts nothing and calls no model, and reports every problem at once, each with
//! its code (from [`agboss_rules::codes`]):
//!
//! | code | what |
//! |---|---|
//! | `tool.duplicate-name` | two tools of one agent share a name (its answer tool `answer-<dto>` included) |
//! | `tool.name-invalid`, `tool.name-too-long` | a name made at run time or read from configuration breaks the providers' rules |
//! | `tools.max-result-size-invalid` | a configured bound is zero or not a whole number of bytes |
//! | `agent.unknown-tool` | configuration lists a tool by a name no `#[tool]` has ([`UnknownAgentToolError`](crate::base::UnknownAgentToolError)) |
//! | `di.missing-implementation` | a tool's field that neither its workflow nor the application provides |
//! | `di.ambiguous-implementation` | one scope provides a type twice |
//! | `di.infrastructure-in-workflow` | a workflow provides what only the application may ([`InfrastructureType`](crate::deps::InfrastructureType)) |
//! | `agent.duplicate-name`, `workflow.duplicate-name` | two of them share a name (a workflow reached again through an include is the same one when it declares the same things) |
//! | `workflow.include-cycle` | a workflow includes itself, directly or through the workflows it includes |
//! | `agent.max-tool-calls-invalid`, `agent.max-turns-invalid`, `agent.model-invalid` | an agent's limit or model as configured is not usable |
//! | `agent.tool-choice-unknown` | an agent's `tool_choice` or `first_turn_tool_choice` names a tool it does not have |
//! | `agent.history-max-size-invalid` | an agent's bound on the history it reads keeps nothing or is not a size (configuration's `history_max_size`, or a context window of 0 tokens) |
//! | `config.*` | the configuration file: syntax, secrets where names belong, unknown sections |
//! | `app.lease-ttl-invalid` | a lease ttl too short to be renewed before it runs out |
//! | `agent.wants-unproduced` | an agent's tool `wants` a kind of artifact that no tool of the application declares as its `result_kind` |
//! | `credentials.no-provider`, `credentials.unknown` | tools or MCP servers need credentials and the application has no provider, or one the provider does not know |
//!
//! Each workflow gets its configuration hash here (`config_hash.rs`: SHA-256 over a canonical
//! document of what its agents' models read and what bounds their runs).
//!
//! Other files: `workflow.rs`, `declarations.rs`, `assemble.rs`, `assembled.rs`; `includes.rs`
//! (included workflows, flattened, cycles refused); `defaults.rs`, `provided.rs`, `configure.rs`;
//! the checks: `checks.rs`, `agent_checks.rs` (and `agent_checks/tool_checks.rs`),
//! `channel_checks.rs`, `credential_checks.rs`, `artifact_checks.rs`, `history_checks.rs`,
//! `time_budget.rs`; `pipelines.rs` (each tool's call pipeline).
//!
//! The application that hosts executions (`app`) is built on what this returns, an
//! [`Assembly`]; `describe` reads it.

mod agent_checks;
mod artifact_checks;
mod assemble;
mod assembled;
mod channel_checks;
mod checks;
mod config_hash;
#[cfg(feature = "config")]
mod configure;
mod credential_checks;
mod declarations;
mod defaults;
mod history_checks;
mod includes;
mod pipelines;
mod provided;
mod time_budget;
mod workflow;

pub use assemble::assemble;
pub use assembled::{AppWorkflow, Assembly};
pub(crate) use config_hash::ConfigHash;
pub use config_hash::{CONFIG_DOCUMENT_VERSION, OnConfigChange};
pub use declarations::Declarations;
pub(crate) use declarations::DeclaredMiddleware;
pub use defaults::{
    AgentDefaults, DEFAULT_ANSWER_RETRIES, DEFAULT_HISTORY_MAX_SIZE, DEFAULT_MAX_TOOL_CALLS,
    DEFAULT_MAX_TURNS, ToolDefaults,
};
pub(crate) use defaults::{tokens_in, window_bytes_below};
pub use workflow::Workflow;
