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
//! | `agent.unknown-tool` | configuration lists a tool by a name no `#[tool]` has ([`UnknownAgentToolError`]) |
//! | `di.missing-implementation` | a tool's field that neither its workflow nor the application provides |
//! | `di.ambiguous-implementation` | one scope provides a type twice |
//! | `di.infrastructure-in-workflow` | a workflow provides what only the application may ([`InfrastructureType`]) |
//! | `agent.duplicate-name`, `workflow.duplicate-name` | two of them share a name |
//! | `agent.max-tool-calls-invalid`, `agent.model-invalid` | an agent's limit or model as configured is not usable |
//! | `config.*` | the configuration file: syntax, secrets where names belong, unknown sections |

mod application;
mod assemble;
mod defaults;
mod env;
mod infrastructure;
mod problem;
mod provided;
mod workflow;

pub use application::{AppAgent, AppTool, AppWorkflow, Application, ApplicationBuilder};
pub(crate) use assemble::MAX_NAME_LEN;
pub use defaults::{DEFAULT_MAX_TOOL_CALLS, Setting, Source, ToolDefaults};
pub use env::{Env, FromEnv};
pub use infrastructure::{InfrastructureType, infrastructure_type};
pub use problem::{AssemblyError, Problem, UnknownAgentToolError};
pub use workflow::Workflow;

#[cfg(test)]
mod tests;
