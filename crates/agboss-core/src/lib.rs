//! The runtime of [agboss](https://docs.rs/agboss): the tool call contract, the clock, signals,
//! dependencies, spend and bounded results.
//!
//! Applications depend on the `agboss` facade, which re-exports what is public here; this
//! crate is what the facade and its macros are built on.
//!
//! ```
//! use agboss_core::tool::bound_text;
//! use agboss_core::units::{kilobytes, seconds};
//!
//! assert_eq!(seconds(10).to_string(), "10 s");
//! let page = "word ".repeat(100_000);
//! let read = bound_text(page, kilobytes(128));
//! assert!(read.truncated);
//! assert!(read.text.ends_with("[result truncated: 500,000 bytes, the first 131,069 kept]"));
//! ```

pub mod agent;
pub mod app;
pub mod config;
pub mod context;
pub mod deps;
pub mod describe;
pub mod dto;
pub mod mcp;
pub mod model;
pub mod run;
pub mod spend;
pub mod store;
pub mod time;
pub mod tool;
pub mod units;

/// Items generated code needs. Not public API: reach them through `agboss::__private`.
#[doc(hidden)]
pub mod __private {
    pub use crate::agent::{
        Agent, AgentDescriptor, AgentRegistration, AnswerSpec, History, PromptFile, Thinking,
    };
    pub use crate::deps::{Dependency, DependencyError, DependencySpec, Scope};
    pub use crate::mcp::{
        McpBinding, McpServer, McpServerDescriptor, McpServerRegistration, McpTransport,
        declares as mcp_declares,
    };
    pub use crate::tool::{
        SourceLocation, Tool, ToolDescriptor, ToolHandler, ToolRegistration, tool_input_schema,
        tool_output_schema,
    };
    pub use crate::units::{ByteSize, TimeSpan, TimeUnit, bytes};
    // The handler `#[mcp_tool(.., input, output)]` writes calls the server through these.
    pub use crate::mcp::McpClient;
    pub use crate::tool::ToolError;
    pub use inventory;
}
