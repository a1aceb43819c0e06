//! Applying a [`Config`] to an application being built: the file's values over what the code
//! declares. The configuration is plain data; only this file knows how it lands.

use std::collections::{BTreeMap, HashMap};

use agboss_rules::codes;

use super::{AgentDefaults, Declarations, ToolDefaults};
use crate::agent::AgentSettings;
use crate::base::Problem;
use crate::config::{AgentDefaultSettings, Config, ToolSettings};
use crate::model::ModelSettings;

/// Applies `config` to `builder`, reporting its problems into `problems`; returns what it sets
/// per agent and its model providers' sections, for assembly to use.
pub(super) fn apply(
    config: Config,
    builder: &mut Declarations,
    problems: &mut Vec<Problem>,
) -> (
    HashMap<String, AgentSettings>,
    BTreeMap<String, ModelSettings>,
) {
    problems.extend(config.problems().iter().cloned());
    if let Some(name) = config.name() {
        builder.name = name.to_owned();
    }
    if let Some(tools) = config.tool_defaults() {
        apply_tools(tools, &mut builder.defaults);
    }
    if let Some(agents) = config.agent_defaults() {
        apply_agents(agents, &mut builder.agent_defaults);
    }
    for (name, agents) in config.workflow_agent_defaults() {
        if let (Some(workflow), Some(agents)) = (
            builder.workflows.iter_mut().find(|w| w.name == name),
            agents,
        ) {
            apply_agents(agents, &mut workflow.agent_defaults);
        }
    }
    for (name, tools) in config.workflows() {
        match builder.workflows.iter_mut().find(|w| w.name == name) {
            Some(workflow) => {
                if let Some(tools) = tools {
                    apply_tools(tools, &mut workflow.defaults);
                }
            }
            None => problems.push(
                codes::CONFIG_UNKNOWN_WORKFLOW
                    .finding(&[("origin", &config.origin()), ("workflow", &name)])
                    .into(),
            ),
        }
    }
    let agents = config
        .agents()
        .iter()
        .map(|(name, settings)| (name.clone(), settings.clone()))
        .collect();
    (agents, config.models().clone())
}

fn apply_agents(settings: &AgentDefaultSettings, defaults: &mut AgentDefaults) {
    if let Some(n) = settings.max_turns {
        defaults.max_turns = Some(n);
    }
    if let Some(n) = settings.answer_retries {
        defaults.answer_retries = Some(n);
    }
}

fn apply_tools(settings: &ToolSettings, defaults: &mut ToolDefaults) {
    if let Some(size) = &settings.max_result_size {
        defaults.set_size_from_text(size);
    }
    if let Some(n) = settings.max_tool_calls {
        defaults.max_tool_calls = Some(n);
    }
}
