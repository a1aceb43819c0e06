//! [`ComponentKind`]: tool, agent, channel role, channel, MCP server, knowledge base.

use std::fmt;

/// What kind of component a descriptor describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ComponentKind {
    /// `#[tool]` and `#[mcp_tool]`.
    Tool,
    /// `#[agent]`.
    Agent,
    /// `#[channel_role]`.
    ChannelRole,
    /// `#[channel]` and the built-in channels.
    Channel,
    /// `#[mcp_server]`.
    McpServer,
    /// `#[knowledge]`.
    Knowledge,
}

impl ComponentKind {
    /// The kind as messages name it: `tool`, `agent`, `channel role`, `channel`, `MCP server`, `knowledge base`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ComponentKind::Tool => "tool",
            ComponentKind::Agent => "agent",
            ComponentKind::ChannelRole => "channel role",
            ComponentKind::Channel => "channel",
            ComponentKind::McpServer => "MCP server",
            ComponentKind::Knowledge => "knowledge base",
        }
    }
}

impl fmt::Display for ComponentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
