//! Layering two configurations, value by value: what the upper one sets wins.

use std::collections::BTreeMap;

use super::{AgentDefaultSettings, ConfigFile, DefaultsSection, ToolSettings, WorkflowSection};
use crate::agent::AgentSettings;
use crate::model::ModelSettings;

/// `over` layered over `below`.
pub(super) fn file(over: ConfigFile, below: ConfigFile) -> ConfigFile {
    ConfigFile {
        name: over.name.or(below.name),
        defaults: defaults(over.defaults, below.defaults),
        workflows: maps(over.workflows, below.workflows, |over, below| {
            WorkflowSection {
                defaults: defaults(over.defaults, below.defaults),
            }
        }),
        agents: maps(over.agents, below.agents, agent),
        models: maps(over.models, below.models, model),
    }
}

/// The keys of both; a key in both is `join`ed.
fn maps<T>(
    over: BTreeMap<String, T>,
    mut below: BTreeMap<String, T>,
    join: fn(T, T) -> T,
) -> BTreeMap<String, T> {
    for (key, value) in over {
        let value = match below.remove(&key) {
            Some(under) => join(value, under),
            None => value,
        };
        below.insert(key, value);
    }
    below
}

fn defaults(over: DefaultsSection, below: DefaultsSection) -> DefaultsSection {
    DefaultsSection {
        tools: both(over.tools, below.tools, |over, below| ToolSettings {
            max_result_size: over.max_result_size.or(below.max_result_size),
            max_tool_calls: over.max_tool_calls.or(below.max_tool_calls),
        }),
        agents: both(over.agents, below.agents, |over, below| {
            AgentDefaultSettings {
                max_turns: over.max_turns.or(below.max_turns),
                answer_retries: over.answer_retries.or(below.answer_retries),
            }
        }),
    }
}

/// Either, or both `join`ed.
fn both<T>(over: Option<T>, below: Option<T>, join: fn(T, T) -> T) -> Option<T> {
    match (over, below) {
        (Some(over), Some(below)) => Some(join(over, below)),
        (over, below) => over.or(below),
    }
}

fn agent(over: AgentSettings, below: AgentSettings) -> AgentSettings {
    let mut tools = below.tools;
    for tool in over.tools {
        if !tools.contains(&tool) {
            tools.push(tool);
        }
    }
    AgentSettings {
        model: over.model.or(below.model),
        max_tool_calls: over.max_tool_calls.or(below.max_tool_calls),
        tools,
        tool_choice: over.tool_choice.or(below.tool_choice),
        first_turn_tool_choice: over.first_turn_tool_choice.or(below.first_turn_tool_choice),
        max_turns: over.max_turns.or(below.max_turns),
        answer_retries: over.answer_retries.or(below.answer_retries),
        history_max_size: over.history_max_size.or(below.history_max_size),
        max_duration_seconds: over.max_duration_seconds.or(below.max_duration_seconds),
    }
}

fn model(over: ModelSettings, below: ModelSettings) -> ModelSettings {
    let mut prices = below.prices;
    prices.extend(over.prices);
    ModelSettings {
        kind: over.kind.or(below.kind),
        vendors: if over.vendors.is_empty() {
            below.vendors
        } else {
            over.vendors
        },
        strip_vendor: over.strip_vendor.or(below.strip_vendor),
        base_url: over.base_url.or(below.base_url),
        api_key_env: over.api_key_env.or(below.api_key_env),
        context_window: over.context_window.or(below.context_window),
        strict_tools: over.strict_tools.or(below.strict_tools),
        prices,
    }
}
