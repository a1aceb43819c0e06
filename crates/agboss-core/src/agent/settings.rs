//! [`AgentSettings`]: what a deployment's configuration sets for one agent, over what its
//! `#[agent]` declares.

use serde::Deserialize;

/// What configuration sets for one agent (`[agents.<name>]`).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// Its model, `vendor/model`.
    pub model: Option<String>,
    /// Its limit of tool calls per run.
    pub max_tool_calls: Option<u32>,
    /// Tools added to its declared ones, by name.
    #[serde(default)]
    pub tools: Vec<String>,
}
