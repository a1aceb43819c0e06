//! The runtime of [agboss](https://docs.rs/agboss): the tool call contract, agents and their
//! loop, model providers, MCP servers, journals and stores, assembly and `describe`.
//!
//! Applications depend on the `agboss` facade, which re-exports what users name from here;
//! this crate is what the facade and its macros are built on. Its modules are layers, each
//! importing only from those below it (docs/architecture.md has the floor plan, and
//! `tests/tidy.rs` checks it): `base`, `dto`, `masking`, `time`, `units` at the bottom, then `spend`,
//! `context`, `deps`, `tool`, `model` and `mcp`, `agent`, `journal`, `store`, `run`, `config`,
//! `assembly`, `app`, and `describe` at the top.
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

// The layers, bottom to top (docs/architecture.md); a module imports only from layers below it,
// which tests/tidy.rs checks.
pub mod base;
pub mod dto;
pub mod masking;
pub mod time;
pub mod units;

pub mod spend;

pub mod context;

pub mod credentials;
pub mod deps;

pub mod component;

pub mod tool;

pub mod knowledge;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod model;

pub mod agent;
pub mod channel;
pub mod policy;

pub mod journal;

pub mod store;

pub mod run;

#[cfg(feature = "config")]
pub mod config;

pub mod assembly;

pub mod app;

pub mod describe;

#[cfg(feature = "otel")]
pub mod otel;

/// Items generated code needs. Not public API: reach them through `agboss::__private`.
#[doc(hidden)]
pub mod __private {
    pub use crate::agent::{
        Agent, AgentDescriptor, AgentRegistration, AnswerSpec, History, PromptFile,
    };
    #[cfg(feature = "mcp")]
    pub use crate::channel::elicitation_of as mcp_elicitation_of;
    pub use crate::channel::{
        Approves, Asked, Channel, ChannelDescriptor, ChannelHandler, ChannelRole, InterpreterSpec,
        PauseAnswerer, RoleDescriptor, ToolCallApprovalAsk, ToolCallApprovalDecision, approval_for,
        approval_of, ask_of, channel_descriptor,
    };
    pub use crate::component::{
        Component, ComponentKind, DependencyError, DependencySpec, SourceLocation,
    };
    pub use crate::context::ExecutionContext;
    pub use crate::deps::InfrastructureType;
    pub use crate::knowledge::{
        FolderBase, FolderSource, Knowledge, KnowledgeBase, KnowledgeDescriptor, KnowledgeError,
        KnowledgeMode, KnowledgeQuery, KnowledgeRegistration, KnowledgeSource, Passage,
        SearchKnowledge,
    };
    #[cfg(feature = "mcp")]
    pub use crate::mcp::{
        McpClient, McpCredential, McpCredentialCarrier, McpOAuth, McpServer, McpServerDescriptor,
        McpServerRegistration, McpTransport, declares as mcp_declares,
        remote_tool as mcp_remote_tool,
    };
    pub use crate::model::Thinking;
    pub use crate::tool::conform;
    pub use crate::tool::{
        AllowList, Capability, CheckIn, Dependency, OnCrash, RepeatedWhen, RoleRef, Scope, Tool,
        ToolDescriptor, ToolError, ToolHandler, ToolRegistration, check_in_with, evidence_with,
        tool_input_schema, tool_output_schema,
    };
    pub use crate::tool::{WantedArgument, wants_field};
    pub use crate::units::{ByteSize, TimeSpan, TimeUnit, bytes};
    pub use inventory;
}
