//! The checks of one workflow's agents and tools: names the model sees, limits, models, tool
//! choices, answers, bounds and dependencies.

use std::collections::HashMap;

use agboss_rules::{codes, model_id, names};

use super::checks::{calls_of, find_registered, levels};
use super::history_checks::{ContextWindows, HistoryBound};
use super::provided::ProvidedList;
use super::time_budget::time_budget;
use super::{AgentDefaults, DEFAULT_ANSWER_RETRIES, DEFAULT_MAX_TURNS, ToolDefaults};
use crate::agent::{AgentDescriptor, AgentSettings, AppAgent, AppTool, RunRules};
use crate::base::{Problem, Setting, Source, UnknownAgentToolError};
use crate::component::Requirement;
use crate::knowledge::{KnowledgeDescriptor, KnowledgeMode};
use crate::model::ToolChoice;
use crate::tool::bound::effective_bound;
use crate::tool::{ToolDescriptor, ToolEnv, ToolRegistration};
use crate::units::{ByteSize, bytes};

use super::DEFAULT_MAX_TOOL_CALLS;

mod tool_checks;

/// One workflow as its agents and tools are checked: what it provides, what its tools are
/// called in, and what was checked already.
pub(super) struct WorkflowScope<'a> {
    name: &'a str,
    /// ` (included by `support`)` for a workflow others include, else empty: where messages
    /// about its tools say it sits.
    place: String,
    /// The workflow's providers, then the application's.
    provided: [&'a ProvidedList; 2],
    env: &'a ToolEnv,
    defaults: &'a [(&'a ToolDefaults, Source); 2],
    agent_defaults: &'a [(&'a AgentDefaults, Source); 2],
    /// The context windows of the models its agents use, where known.
    windows: &'a ContextWindows,
    /// Tools whose own bound and dependencies were checked in this workflow.
    checked: Vec<&'static ToolDescriptor>,
    /// The MCP servers its tools call.
    #[cfg(feature = "mcp")]
    servers: Vec<&'static crate::mcp::McpServerDescriptor>,
}

impl<'a> WorkflowScope<'a> {
    pub(super) fn new(
        name: &'a str,
        place: String,
        provided: [&'a ProvidedList; 2],
        env: &'a ToolEnv,
        defaults: &'a [(&'a ToolDefaults, Source); 2],
        agent_defaults: &'a [(&'a AgentDefaults, Source); 2],
        windows: &'a ContextWindows,
    ) -> WorkflowScope<'a> {
        WorkflowScope {
            name,
            place,
            provided,
            env,
            defaults,
            agent_defaults,
            windows,
            checked: Vec::new(),
            #[cfg(feature = "mcp")]
            servers: Vec::new(),
        }
    }

    /// The MCP servers the workflow's tools call, each once.
    #[cfg(feature = "mcp")]
    pub(super) fn into_servers(mut self) -> Vec<&'static crate::mcp::McpServerDescriptor> {
        self.servers
            .sort_by_key(|s| std::ptr::from_ref(*s) as usize);
        self.servers
            .dedup_by_key(|s| std::ptr::from_ref(*s) as usize);
        self.servers
    }

    pub(super) fn agent(
        &mut self,
        descriptor: &'static AgentDescriptor,
        settings: Option<&AgentSettings>,
        workflow_bound: &Setting<ByteSize>,
        problems: &mut Vec<Problem>,
    ) -> AppAgent {
        let agent = descriptor.name();
        let mut registrations: Vec<ToolRegistration> = descriptor.tools().to_vec();
        // A knowledge base in tool mode is one more tool, under every check of a tool's.
        let (in_context, as_tools): (Vec<&'static KnowledgeDescriptor>, Vec<_>) = descriptor
            .knowledge()
            .iter()
            .map(|k| k.descriptor())
            .partition(|k| k.mode() == KnowledgeMode::Context);
        registrations.extend(as_tools.iter().map(|k| *k.search_tool()));
        for tool in settings.iter().flat_map(|s| &s.tools) {
            match find_registered(tool) {
                Ok(registration) => registrations.push(registration),
                Err(suggestion) => problems.push(
                    UnknownAgentToolError {
                        workflow: self.name.to_owned(),
                        agent: agent.to_owned(),
                        tool: tool.clone(),
                        suggestion,
                    }
                    .into(),
                ),
            }
        }
        let model = settings
            .and_then(|s| s.model.clone())
            .unwrap_or_else(|| descriptor.model().to_owned());
        if let Err(finding) = model_id::check(&model) {
            problems.push(finding.about(&format!("agent `{agent}`")).into());
        }
        let own_calls = settings
            .and_then(|s| s.max_tool_calls)
            .or(descriptor.max_tool_calls());
        let max_tool_calls = Setting::first_of(
            own_calls,
            levels(self.defaults, calls_of),
            DEFAULT_MAX_TOOL_CALLS,
        );
        if max_tool_calls.value == 0 {
            problems.push(
                codes::AGENT_MAX_TOOL_CALLS_INVALID
                    .finding(&[
                        (
                            "subject",
                            &format!("agent `{agent}` (workflow `{}`)", self.name),
                        ),
                        ("from", &format!(" ({})", max_tool_calls.source)),
                    ])
                    .into(),
            );
        }

        // Every name the model sees must be unique over the agent's tools.
        let mut names: HashMap<&str, String> = HashMap::with_capacity(registrations.len() + 1);
        let mut tools = Vec::with_capacity(registrations.len());
        for registration in &registrations {
            let tool = registration.descriptor();
            let site = format!("{} ({})", tool.rust_type(), tool.location());
            model_facing(tool.name(), &format!("tool `{}`", tool.name()), problems);
            if let Some(first) = names.insert(tool.name(), site.clone()) {
                problems.push(duplicate(self.name, agent, tool.name(), &first, &site));
            }
            self.tool_checks(tool, problems);
            let bound = effective_bound(tool.max_result_size(), workflow_bound.clone());
            let env_vars = self.env_vars(tool);
            tools.push(AppTool::new(
                tool,
                bound.clone(),
                env_vars,
                registration.instantiate(self.env.clone(), bound.value),
            ));
        }
        if let Some(answer) = descriptor.answer() {
            let name = answer.tool_name();
            let site = format!("the answer tool of agent `{agent}`");
            model_facing(name, &site, problems);
            if let Some(first) = names.insert(name, site.clone()) {
                problems.push(duplicate(self.name, agent, name, &first, &site));
            }
            if let Err(why) = answer.compile() {
                problems.push(
                    codes::AGENT_ANSWER_SCHEMA_INVALID
                        .finding(&[("agent", &agent), ("name", &name), ("why", &why)])
                        .into(),
                );
            }
        }
        // The roles its runs may wait for are set with its tools' pipelines (`pipelines.rs`),
        // once the application's check-in role and checker are known.
        let rules = self.rules(descriptor, settings, &model, &names, problems);
        let in_context = in_context
            .iter()
            .map(|base| self.context_search(base, problems))
            .collect();
        AppAgent::new(
            descriptor,
            model,
            max_tool_calls,
            workflow_bound.clone(),
            tools,
            rules,
        )
        .with_context_knowledge(in_context)
    }

    /// The search tool of knowledge base `base` in context mode: checked as a tool is (its
    /// fields' providers), not offered to the model, and bounded by nothing, since the block
    /// it makes is bounded whole by the agent's bound.
    fn context_search(
        &mut self,
        base: &'static KnowledgeDescriptor,
        problems: &mut Vec<Problem>,
    ) -> AppTool {
        let registration = base.search_tool();
        let tool = registration.descriptor();
        self.tool_checks(tool, problems);
        let whole = bytes(u64::MAX);
        let env_vars = self.env_vars(tool);
        AppTool::new(
            tool,
            Setting::built_in(whole),
            env_vars,
            registration.instantiate(self.env.clone(), whole),
        )
    }

    /// The agent's tool choices (configuration's over the declared ones), each naming one of its
    /// tools (`names`, the answer tool among them), its turn cap and answer retries from the
    /// first level that sets them, and the bound on the history it reads (its `model`'s window
    /// may set that).
    fn rules(
        &self,
        descriptor: &'static AgentDescriptor,
        settings: Option<&AgentSettings>,
        model: &str,
        names: &HashMap<&str, String>,
        problems: &mut Vec<Problem>,
    ) -> RunRules {
        let agent = descriptor.name();
        let mut choice = |key: &str, configured: Option<&String>, declared: Option<ToolChoice>| {
            let (choice, from) = match configured {
                Some(text) => (Some(ToolChoice::named(text)), " (from configuration)"),
                None => (declared, ""),
            };
            if let Some(ToolChoice::Tool(chosen)) = &choice
                && !names.contains_key(chosen.as_str())
            {
                let mut tools: Vec<String> = names.keys().map(|n| format!("`{n}`")).collect();
                tools.sort();
                let tools = if tools.is_empty() {
                    "its tools (it has none)".to_owned()
                } else {
                    tools.join(", ")
                };
                problems.push(
                    codes::AGENT_TOOL_CHOICE_UNKNOWN
                        .finding(&[
                            ("agent", &agent),
                            ("key", &key),
                            ("tool", chosen),
                            ("from", &from),
                            ("tools", &tools),
                        ])
                        .into(),
                );
            }
            choice
        };
        let tool_choice = choice(
            "tool_choice",
            settings.and_then(|s| s.tool_choice.as_ref()),
            descriptor.tool_choice(),
        );
        let first_turn_tool_choice = choice(
            "first_turn_tool_choice",
            settings.and_then(|s| s.first_turn_tool_choice.as_ref()),
            descriptor.first_turn_tool_choice(),
        );
        let level = |read: fn(&AgentDefaults) -> Option<u32>| {
            self.agent_defaults
                .iter()
                .map(move |(defaults, source)| (read(defaults), source.clone()))
        };
        let max_turns = Setting::first_of(
            settings
                .and_then(|s| s.max_turns)
                .or(descriptor.max_turns()),
            level(|d| d.max_turns),
            DEFAULT_MAX_TURNS,
        );
        if max_turns.value == 0 {
            problems.push(
                codes::AGENT_MAX_TURNS_INVALID
                    .finding(&[
                        (
                            "subject",
                            &format!("agent `{agent}` (workflow `{}`)", self.name),
                        ),
                        ("from", &format!(" ({})", max_turns.source)),
                    ])
                    .into(),
            );
        }
        let answer_retries = Setting::first_of(
            settings
                .and_then(|s| s.answer_retries)
                .or(descriptor.answer_retries()),
            level(|d| d.answer_retries),
            DEFAULT_ANSWER_RETRIES,
        );
        let history_max_size = HistoryBound {
            subject: &format!("agent `{agent}` (workflow `{}`)", self.name),
            agent,
            configured: settings.and_then(|s| s.history_max_size.as_deref()),
            own: descriptor.history_max_size(),
            model,
        }
        .resolve(self.windows, problems);
        let max_duration = time_budget(self.name, descriptor, settings, problems);
        RunRules {
            tool_choice,
            first_turn_tool_choice,
            max_turns,
            answer_retries,
            history_max_size,
            owner_roles: Vec::new(),
            max_duration,
            masking: None,
        }
    }

    /// The environment variables the providers of `tool`'s fields are made from.
    fn env_vars(&self, tool: &'static ToolDescriptor) -> Vec<&'static str> {
        let mut vars = Vec::new();
        for dep in tool.dependencies() {
            if let Requirement::Provided { type_id, .. } = dep.requirement() {
                let env = self.provided.iter().find_map(|list| list.env_of(type_id));
                for var in env.unwrap_or(&[]) {
                    if !vars.contains(var) {
                        vars.push(*var);
                    }
                }
            }
        }
        vars
    }
}

/// `[tool.name-invalid]` and `[tool.name-too-long]` for a name a model sees that was made at run
/// time or read from configuration (the compiler has checked the others already).
fn model_facing(name: &str, what: &str, problems: &mut Vec<Problem>) {
    problems.extend(
        names::check_model_facing(name)
            .into_iter()
            .map(|finding| finding.about(what).into()),
    );
}

fn duplicate(workflow: &str, agent: &str, name: &str, first: &str, second: &str) -> Problem {
    codes::TOOL_DUPLICATE_NAME
        .finding(&[
            ("agent", &agent),
            ("workflow", &workflow),
            ("name", &name),
            ("first", &first),
            ("second", &second),
        ])
        .into()
}
