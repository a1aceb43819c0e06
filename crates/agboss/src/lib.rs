//! agboss: LLM agents whose tools are plain Rust structs under attribute macros.
//!
//! A tool is a struct whose fields are its dependencies and whose [`ToolHandler`] impl is its
//! code. `#[tool]` checks its name at compile time, generates the JSON Schemas the model reads
//! from the input and output DTOs, and registers it. Every call goes through one contract:
//! input validated, not started when cancelled, run under its timeout on the application's
//! clock, output validated, and the result a value (never a panic) bounded before the model
//! reads it.
//!
//! ```
//! use std::sync::Arc;
//! use agboss::prelude::*;
//! use agboss::units::seconds;
//!
//! #[dto]
//! pub struct IssueQuery {
//!     /// words to search the issues for
//!     pub query: String,
//! }
//!
//! #[dto]
//! pub struct IssueList {
//!     pub issues: Vec<String>,
//! }
//!
//! pub trait IssuesApi: Send + Sync {
//!     fn search(&self, query: &str) -> Vec<String>;
//! }
//!
//! #[tool(
//!     name = "search-issues-tool",
//!     description = "Search the team's issues",
//!     timeout = seconds(10),
//! )]
//! pub struct SearchIssues {
//!     issues: Arc<dyn IssuesApi>,
//! }
//!
//! impl ToolHandler for SearchIssues {
//!     type Input = IssueQuery;
//!     type Output = IssueList;
//!
//!     async fn run(&self, input: IssueQuery) -> Result<IssueList, ToolError> {
//!         Ok(IssueList { issues: self.issues.search(&input.query) })
//!     }
//! }
//!
//! let definition = agboss::tool::tool_definition_of::<SearchIssues>().unwrap();
//! assert_eq!(definition.name, "search-issues-tool");
//! assert_eq!(
//!     definition.input_schema["properties"]["query"]["description"],
//!     "words to search the issues for"
//! );
//! ```
//!
//! Modules: [`units`] (`seconds(10)`, `kilobytes(256)`, `usd("0.25")`), [`dto`](mod@dto)
//! (framework DTOs), [`tool`](mod@tool) (the call contract), [`agent`](mod@agent), [`app`]
//! (workflows, applications, assembly), [`config`] (TOML), [`describe`], [`context`]
//! (executions, signals, steps), [`deps`], [`time`], [`spend`], [`mcp`](mod@mcp) (MCP servers
//! behind `#[mcp_server]` and `#[mcp_tool]`), `cli` (feature `cli`, on by default: `describe`,
//! `g mcp`) and `testing` (feature `testing`).

// The macros generate `::agboss::__private` paths; this makes them resolve inside this crate's
// own tests too (nothing outside `cfg(test)` uses them yet).
#[allow(unused_extern_crates)]
extern crate self as agboss;

#[doc(inline)]
pub use agboss_macros::{agent, dto, mcp_server, mcp_tool, tool};

pub use agboss_core::agent::Agent;
pub use agboss_core::app::{Application, AssemblyError, ToolDefaults, Workflow};
pub use agboss_core::context::ExecutionContext;
pub use agboss_core::tool::{Tool, ToolError, ToolHandler};

pub use agboss_core::{
    agent, app, config, context, deps, describe, mcp, model, run, spend, store, time, tool, units,
};

/// Marks a type as infrastructure: only the application may provide it, never a workflow
/// (`[di.infrastructure-in-workflow]`).
///
/// ```
/// pub trait MessageQueue: Send + Sync {}
/// agboss::infrastructure!(dyn MessageQueue, "a message queue");
/// ```
pub use agboss_core::infrastructure;

#[cfg(feature = "cli")]
pub mod cli;

/// DTOs the framework defines, and the JSON value type for free-form fields of DTOs.
pub mod dto {
    pub use agboss_core::dto::PlainText;
    /// Any JSON value: the type of a DTO field whose shape is free (what `agboss g mcp`
    /// generates for schema parts it cannot type).
    pub use serde_json::Value;
}

/// What a file of tools needs: `use agboss::prelude::*;`.
pub mod prelude {
    pub use crate::{agent, dto, mcp_server, mcp_tool, tool};
    pub use agboss_core::agent::Agent;
    pub use agboss_core::app::{Application, ToolDefaults, Workflow};
    pub use agboss_core::context::ExecutionContext;
    pub use agboss_core::dto::PlainText;
    pub use agboss_core::mcp::McpClient;
    pub use agboss_core::spend::SpendRecorder;
    pub use agboss_core::time::Clock;
    pub use agboss_core::tool::{Tool, ToolError, ToolHandler};
}

/// Test harnesses: [`test_tool`](testing::test_tool) and the [`ManualClock`](testing::ManualClock).
#[cfg(feature = "testing")]
pub mod testing {
    pub use agboss_testing::*;
}

/// Not public API: what generated code reaches. It may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use agboss_core::__private::*;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// The macros' generated `::agboss::__private` paths resolve inside this crate too.
#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[dto]
    pub struct Ping {
        pub text: String,
    }

    #[tool(name = "echo-tool", description = "Echoes its input")]
    pub struct Echo;

    impl ToolHandler for Echo {
        type Input = Ping;
        type Output = Ping;

        async fn run(&self, input: Ping) -> Result<Ping, ToolError> {
            Ok(input)
        }
    }

    #[test]
    fn the_facade_can_use_its_own_macros() {
        assert_eq!(Echo::DESCRIPTOR.name(), "echo-tool");
        assert!(
            crate::tool::registered_tools()
                .iter()
                .any(|r| r.descriptor().name() == "echo-tool")
        );
    }
}
