//! Applications: workflows of agents and tools, their providers and defaults, checked as one
//! at assembly, before any model is called.
//!
//! [`ApplicationBuilder::build`] reports every problem at once, each with its code:
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
//! | `agent.duplicate-name`, `workflow.duplicate-name` | two of them share a name |
//! | `agent.max-tool-calls-invalid`, `agent.max-turns-invalid`, `agent.model-invalid` | an agent's limit or model as configured is not usable |
//! | `agent.tool-choice-unknown` | an agent's `tool_choice` or `first_turn_tool_choice` names a tool it does not have |
//! | `config.*` | the configuration file: syntax, secrets where names belong, unknown sections |
//! | `app.lease-ttl-invalid` | a lease ttl too short to be renewed before it runs out |

mod application;
mod assemble;
#[cfg(feature = "config")]
mod configure;
mod defaults;
mod drive;
mod history;
mod ids;
#[cfg(feature = "mcp")]
mod mcp;
mod provided;
mod resume;
mod run;
mod tool_slice;
mod worker;
mod workflow;

pub use application::{AppWorkflow, Application, ApplicationBuilder};
pub use defaults::{
    AgentDefaults, DEFAULT_ANSWER_RETRIES, DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS, ToolDefaults,
};
pub use resume::{Resume, ResumeError};
pub use run::RunBuilder;
pub use tool_slice::ToolSlice;
pub use worker::{WorkEnd, WorkReport, Worker};
pub use workflow::Workflow;

#[cfg(test)]
mod pause_tests;
#[cfg(test)]
mod tests;
