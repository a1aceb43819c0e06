//! [`PinStore`]: the pinned MCP definitions a store keeps, per application, server and tool.

use super::{McpApproval, McpDefinitionSeen, McpPin, StoreFuture};

/// Pinned MCP definitions (fault plan T20; [`McpPin`], docs/mcp.md "Pinned definitions"): what
/// an application approved of each MCP server tool it uses, and what the server gave last. Pins
/// are kept per application, server and tool. A store hands its pins out with
/// [`Store::pins`](super::Store::pins).
pub trait PinStore: Send + Sync {
    /// The pin of tool `tool` of server `server` in application `application` (`None`: the
    /// application never saw that tool).
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>>;

    /// Every pin of application `application`, by server, then tool.
    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>>;

    /// Records that an application saw definition `seen` of a server tool, by the rule of
    /// [`pin_after_seen`](super::pin_after_seen), in one atomic step (applications racing to
    /// pin a tool's first definition leave one pin); the pin as it is after.
    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin>;

    /// Records a person's `approval` of a tool's definition, by the rule of
    /// [`pin_after_approval`](super::pin_after_approval), in one atomic step: the pin as it is
    /// after, or `None` when the application has no pin of that tool;
    /// [`StoreErrorKind::Conflict`](super::StoreErrorKind::Conflict) when the server gave
    /// another definition since the one approved.
    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>>;
}
