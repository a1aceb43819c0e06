//! [`SchemaError`]: a tool's schema that is not a usable JSON Schema.

use agboss_rules::codes;

/// A tool's schema that is not a usable JSON Schema (a hand-written `JsonSchema` impl gone
/// wrong), or an input schema whose root is not an object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "[{}] {}",
    codes::TOOL_SCHEMA_INVALID.id(),
    codes::TOOL_SCHEMA_INVALID.fill(&[("tool", tool), ("which", which), ("reason", reason)])
)]
pub struct SchemaError {
    /// The tool.
    pub tool: &'static str,
    /// `"input"` or `"output"`.
    pub which: &'static str,
    /// What is wrong with it.
    pub reason: String,
}
