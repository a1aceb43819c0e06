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
    /// Its tool choice on every turn: `auto`, `required`, `none`, or one of its tools' names.
    pub tool_choice: Option<String>,
    /// Its tool choice on the first turn only, over `tool_choice`: what a small local model
    /// often needs to call a tool at all (`"required"`, or a tool's name).
    pub first_turn_tool_choice: Option<String>,
    /// Its cap of model turns per run.
    pub max_turns: Option<u32>,
    /// How many invalid structured answers go back to the model before the run fails.
    pub answer_retries: Option<u32>,
    /// The bound on the history of its thread it reads, as written (`"8 KB"`): a number and
    /// its unit, checked when it is applied (`[agent.history-max-size-invalid]`).
    pub history_max_size: Option<String>,
    /// Its time budget per run, in seconds, over its own `max_duration`
    /// (`[agent.max-duration-invalid]` when 0).
    pub max_duration_seconds: Option<u64>,
}
