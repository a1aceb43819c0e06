//! [`Assembly`]: an application as assembly left it, every declaration checked.

use std::sync::Arc;

use crate::agent::AppAgent;
use crate::base::Setting;
use crate::deps::Providers;
use crate::run::Approvals;
use crate::time::Clock;
use crate::tool::{CredentialProvider, ToolDescriptor, ToolEnv};
use crate::units::ByteSize;

/// An application whose declarations passed every check: its workflows with their agents and
/// tools as they will run, its providers, its bound for results and the roles its tools wait for.
pub struct Assembly {
    pub(crate) name: String,
    pub(crate) clock: Clock,
    pub(crate) workflows: Vec<AppWorkflow>,
    pub(crate) providers: Providers,
    pub(crate) max_result_size: Setting<ByteSize>,
    pub(crate) approvals: Arc<Approvals>,
    pub(crate) channels: Vec<crate::channel::ChannelRegistration>,
    pub(crate) lease_ttl: std::time::Duration,
    /// What resolves the credentials its tools and MCP servers need.
    pub(crate) credentials: Option<Arc<dyn CredentialProvider>>,
}

impl Assembly {
    /// The application's name (as configuration left it).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its clock.
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// Its workflows, in declaration order, each included workflow once, after the first
    /// workflow that includes it.
    pub fn workflows(&self) -> &[AppWorkflow] {
        &self.workflows
    }

    /// The workflow named `name`.
    pub fn workflow(&self, name: &str) -> Option<&AppWorkflow> {
        self.workflows.iter().find(|w| w.name == name)
    }

    /// The channels the application was given, used or not, in declaration order.
    pub fn channels(&self) -> &[crate::channel::ChannelRegistration] {
        &self.channels
    }

    /// The application's bound for results, and where it came from.
    pub fn max_result_size(&self) -> &Setting<ByteSize> {
        &self.max_result_size
    }

    /// What the application itself provides (its workflows' own come first for their tools).
    pub fn providers(&self) -> &Providers {
        &self.providers
    }

    /// The roles its tools wait for, with their channels.
    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }

    /// What resolves the credentials its tools and MCP servers need, if it has one.
    pub fn credentials(&self) -> Option<&Arc<dyn CredentialProvider>> {
        self.credentials.as_ref()
    }

    /// How long a lease on one of its executions lasts without a renewal.
    pub fn lease_ttl(&self) -> std::time::Duration {
        self.lease_ttl
    }
}

/// A checked workflow.
pub struct AppWorkflow {
    pub(crate) name: String,
    pub(crate) includes: Vec<String>,
    pub(crate) included_by: Vec<String>,
    pub(crate) agents: Vec<AppAgent>,
    pub(crate) unassigned: Vec<&'static ToolDescriptor>,
    #[cfg(feature = "mcp")]
    pub(crate) mcp_servers: Vec<&'static crate::mcp::McpServerDescriptor>,
    pub(crate) env: ToolEnv,
    pub(crate) own_providers: Providers,
    pub(crate) max_result_size: Setting<ByteSize>,
    pub(crate) max_tool_calls: Setting<u32>,
    /// Its configuration hash, filled once the application's roles are known.
    pub(crate) config_hash: super::ConfigHash,
    /// What a resume under another hash does (its own setting, else the application's).
    pub(crate) on_config_change: super::OnConfigChange,
}

impl AppWorkflow {
    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The names of the workflows it includes (`Workflow::include`), in declaration order; each
    /// is a workflow of the application too.
    pub fn includes(&self) -> &[String] {
        &self.includes
    }

    /// The names of the workflows that include it; empty for a workflow only the application
    /// lists.
    pub fn included_by(&self) -> &[String] {
        &self.included_by
    }

    /// Its agents, in declaration order.
    pub fn agents(&self) -> &[AppAgent] {
        &self.agents
    }

    /// The agent named `name`.
    pub fn agent(&self, name: &str) -> Option<&AppAgent> {
        self.agents.iter().find(|a| a.name() == name)
    }

    /// The MCP servers its tools call.
    #[cfg(feature = "mcp")]
    pub fn mcp_servers(&self) -> &[&'static crate::mcp::McpServerDescriptor] {
        &self.mcp_servers
    }

    /// The workflow's own tools no agent of it uses.
    pub fn unassigned_tools(&self) -> &[&'static ToolDescriptor] {
        &self.unassigned
    }

    /// What its tools are called in: its providers over the application's, and the clock.
    pub fn tool_env(&self) -> &ToolEnv {
        &self.env
    }

    /// What the workflow itself provides, without the application's.
    pub fn own_providers(&self) -> &Providers {
        &self.own_providers
    }

    /// The bound of its tools without their own, and where it came from.
    pub fn max_result_size(&self) -> &Setting<ByteSize> {
        &self.max_result_size
    }

    /// Its configuration hash, `sha256:<64 hex digits>`: SHA-256 over a canonical JSON document
    /// of everything that changes what its agents' models read or what their runs do (prompts,
    /// tools with their descriptions and schemas, bounds and where they came from, the
    /// truncation marker, limits, models, policies; docs/durability.md, "Configuration hash").
    /// The same declarations give the same hash in every process and on every platform. A run
    /// of it journals the hash in its `started` event.
    pub fn config_hash(&self) -> &str {
        &self.config_hash.hash
    }

    /// The canonical JSON document [`config_hash`](Self::config_hash) hashes: to see what two
    /// hashes differ in.
    pub fn config_document(&self) -> &str {
        &self.config_hash.document
    }

    /// What resuming one of its executions does when the journal's hash is not
    /// [`config_hash`](Self::config_hash).
    pub fn on_config_change(&self) -> super::OnConfigChange {
        self.on_config_change
    }

    /// The limit of tool calls of its agents without their own.
    pub fn max_tool_calls(&self) -> &Setting<u32> {
        &self.max_tool_calls
    }
}
