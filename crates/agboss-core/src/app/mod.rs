//! Applications hosting executions: the [`Application`] an [`ApplicationBuilder`] assembles
//! (see [`assembly`](crate::assembly) for what is checked, and its codes), and what users do
//! with it. Each file is named by what a user does:
//!
//! | file | methods |
//! |---|---|
//! | `builder.rs` | [`Application::builder`], the [`ApplicationBuilder`] and its `build` |
//! | `application.rs` | what an application is: its name, clock, workflows, store, router; `check_environment`, `shutdown` |
//! | `runs.rs` | starting runs: [`Application::run`], [`Application::run_agent`], [`RunBuilder::submit`] |
//! | `pauses/` | answering pauses: [`Application::resume`], [`Application::answer`] ([`Resume`], [`ResumeError`]) |
//! | `executions.rs` | one execution by its id: [`Application::resume_execution`], [`Application::cancel`] |
//! | `workers.rs` | taking up what a shared store has to go on: [`Application::worker`], [`Application::recover`] |
//! | `threads.rs` | what a run remembers of its thread (history and its summaries) |
//! | `tool_slice.rs` | one tool on its own: [`Application::tool`] |
//! | `mcp_servers.rs` | MCP servers: `mcp_server`, `start_mcp_servers` |
//! | `mcp_pins.rs` | MCP tools' pinned definitions: [`Application::mcp_pins`], [`Application::approve_mcp_definition`] |
//! | `hosting.rs` | how executions are driven here: one driver per execution, under its lease |
//! | `config_change.rs` | what a resume under another configuration hash of its workflow does (`OnConfigChange`) |
//! | `identifiers.rs` | the ids an application makes: its instance's, its executions' |
//! | `in_flight.rs` | what this process drives now: one lock per execution, the signals of runs under way |
//! | `stream.rs` | [`RunStream`]: `app.run(..).stream()`, polling it drives the run |
//! | `knowledge_bases.rs` | the knowledge bases its agents read, and its `KnowledgeShelf` |

mod application;
mod builder;
mod config_change;
mod executions;
mod hosting;
mod identifiers;
mod in_flight;
mod knowledge_bases;
#[cfg(feature = "mcp")]
mod mcp_pins;
#[cfg(feature = "mcp")]
mod mcp_servers;
mod pauses;
mod runs;
mod stream;
mod threads;
mod tool_slice;
mod workers;

pub use application::Application;
pub use builder::ApplicationBuilder;
pub use pauses::{Resume, ResumeError};
pub use runs::RunBuilder;
pub use stream::RunStream;
pub use tool_slice::ToolSlice;
pub use workers::{WorkEnd, WorkReport, Worker};

#[cfg(test)]
mod answer_tests;
#[cfg(test)]
mod pause_tests;
#[cfg(test)]
mod tests;
