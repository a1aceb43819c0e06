//! Assembly: every check of an application, all problems collected before any is reported.

use std::collections::HashMap;
use std::sync::Arc;

use super::defaults::{DEFAULT_MAX_TOOL_CALLS, SizeSetting};
use super::problem::missing_implementation;
use super::provided::ProvidedList;
use super::{
    AppAgent, AppTool, AppWorkflow, Application, ApplicationBuilder, AssemblyError, Problem,
    Setting, Source, ToolDefaults, UnknownAgentToolError, infrastructure_type,
};
use crate::agent::AgentDescriptor;
use crate::config::AgentOverride;
use crate::deps::{Providers, missing_dependencies};
use crate::tool::{ToolDescriptor, ToolEnv, ToolRegistration, registered_tools};
use crate::units::ByteSize;

/// The longest name every model provider accepts (`#[tool]` checks the same when compiling).
pub(crate) const MAX_NAME_LEN: usize = 64;

pub(crate) fn assemble(mut builder: ApplicationBuilder) -> Result<Application, AssemblyError> {
    let mut problems = Vec::new();
    let models = builder
        .config
        .as_ref()
        .map(|c| c.models().clone())
        .unwrap_or_default();
    let overrides = match builder.config.take() {
        Some(config) => config.apply(&mut builder, &mut problems),
        None => HashMap::new(),
    };
    // The router reaches tools through the providers (`ModelClient`); made on first use, so
    // assembly reads no key.
    match builder.router.take() {
        Some(router) => builder.provided.push_ready(Arc::new(router)),
        None => builder.provided.push_router(models),
    }
    builder.provided.push_mcp_hub();
    let app = builder.name.clone();
    let app_source = Source::Application(app.clone());
    check_defaults(
        &builder.defaults,
        &format!("application `{app}`"),
        &mut problems,
    );
    check_provided(&builder.provided, None, &mut problems);
    let app_providers = builder.provided.to_providers(&builder.env, &builder.clock);
    let app_bound = setting(
        None,
        [(&builder.defaults, app_source.clone())],
        ByteSize::DEFAULT_RESULT_BOUND,
        size_of,
    );

    let mut workflows = Vec::with_capacity(builder.workflows.len());
    let mut workflow_names = Vec::new();
    let mut agents_seen = Vec::new();
    for workflow in &builder.workflows {
        if workflow_names.contains(&workflow.name.as_str()) {
            problems.push(Problem::new(
                "workflow.duplicate-name",
                format!(
                    "two workflows are named `{}`: give each its own name",
                    workflow.name
                ),
            ));
        }
        workflow_names.push(&workflow.name);
        let context = Context {
            builder: &builder,
            overrides: &overrides,
            app_providers: &app_providers,
            app_source: &app_source,
        };
        workflows.push(context.workflow(workflow, &mut problems, &mut agents_seen));
    }
    for name in overrides.keys() {
        if !agents_seen.contains(&name.as_str()) {
            problems.push(Problem::new(
                "config.unknown-agent",
                format!("the configuration sets agent `{name}`, which no workflow has"),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(AssemblyError::new(app, problems));
    }
    Ok(Application {
        name: app,
        clock: builder.clock.clone(),
        workflows,
        providers: app_providers,
        max_result_size: app_bound,
        store: builder
            .store
            .clone()
            .unwrap_or_else(|| Arc::new(crate::store::MemoryStore::new())),
        budgets: builder.budgets,
    })
}

struct Context<'a> {
    builder: &'a ApplicationBuilder,
    overrides: &'a HashMap<String, AgentOverride>,
    app_providers: &'a Providers,
    app_source: &'a Source,
}

impl Context<'_> {
    fn workflow(
        &self,
        workflow: &super::Workflow,
        problems: &mut Vec<Problem>,
        agents_seen: &mut Vec<&'static str>,
    ) -> AppWorkflow {
        let name = &workflow.name;
        let source = Source::Workflow(name.clone());
        let defaults = [
            (&workflow.defaults, source),
            (&self.builder.defaults, self.app_source.clone()),
        ];
        check_defaults(&workflow.defaults, &format!("workflow `{name}`"), problems);
        check_provided(&workflow.provided, Some(name), problems);
        let own_providers = workflow
            .provided
            .to_providers(&self.builder.env, &self.builder.clock);
        let mut providers = self.app_providers.clone();
        providers.extend(&own_providers);
        let env = ToolEnv::new(Arc::new(providers), self.builder.clock.clone());
        let max_result_size = setting(
            None,
            defaults.clone(),
            ByteSize::DEFAULT_RESULT_BOUND,
            size_of,
        );
        let max_tool_calls = setting(None, defaults.clone(), DEFAULT_MAX_TOOL_CALLS, calls_of);

        let mut scope = WorkflowScope {
            name,
            provided: [&workflow.provided, &self.builder.provided],
            env: &env,
            defaults: &defaults,
            checked: Vec::new(),
            servers: Vec::new(),
        };
        let mut agent_names: Vec<&str> = Vec::new();
        let mut agents = Vec::with_capacity(workflow.agents.len());
        for descriptor in &workflow.agents {
            if agent_names.contains(&descriptor.name()) {
                problems.push(Problem::new(
                    "agent.duplicate-name",
                    format!(
                        "workflow `{name}` has two agents named `{}`: give each its own name",
                        descriptor.name()
                    ),
                ));
            }
            agent_names.push(descriptor.name());
            agents_seen.push(descriptor.name());
            let overrides = self.overrides.get(descriptor.name());
            agents.push(scope.agent(descriptor, overrides, &max_result_size, problems));
        }
        let mut unassigned: Vec<&'static ToolDescriptor> = Vec::new();
        for registration in &workflow.tools {
            scope.tool_checks(registration.descriptor(), problems);
            let used = agents.iter().any(|a: &AppAgent| {
                a.tools
                    .iter()
                    .any(|t| std::ptr::eq(t.descriptor, registration.descriptor()))
            });
            if !used
                && !unassigned
                    .iter()
                    .any(|d| std::ptr::eq(*d, registration.descriptor()))
            {
                unassigned.push(registration.descriptor());
            }
        }
        let mut servers = scope.servers;
        servers.sort_by_key(|s| std::ptr::from_ref(*s) as usize);
        servers.dedup_by_key(|s| std::ptr::from_ref(*s) as usize);
        AppWorkflow {
            name: name.clone(),
            agents,
            unassigned,
            mcp_servers: servers,
            env,
            own_providers,
            max_result_size,
            max_tool_calls,
        }
    }
}

struct WorkflowScope<'a> {
    name: &'a str,
    /// The workflow's providers, then the application's.
    provided: [&'a ProvidedList; 2],
    env: &'a ToolEnv,
    defaults: &'a [(&'a ToolDefaults, Source); 2],
    /// Tools whose own bound and dependencies were checked in this workflow.
    checked: Vec<&'static ToolDescriptor>,
    /// The MCP servers its tools call.
    servers: Vec<&'static crate::mcp::McpServerDescriptor>,
}

impl WorkflowScope<'_> {
    fn agent(
        &mut self,
        descriptor: &'static AgentDescriptor,
        overrides: Option<&AgentOverride>,
        workflow_bound: &Setting<ByteSize>,
        problems: &mut Vec<Problem>,
    ) -> AppAgent {
        let agent = descriptor.name();
        let mut registrations: Vec<ToolRegistration> = descriptor.tools().to_vec();
        if let Some(overrides) = overrides {
            for tool in &overrides.tools {
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
        }
        let model = overrides
            .and_then(|o| o.model.clone())
            .unwrap_or_else(|| descriptor.model().to_owned());
        if !model
            .split_once('/')
            .is_some_and(|(v, m)| !v.is_empty() && !m.is_empty())
        {
            problems.push(Problem::new(
                "agent.model-invalid",
                format!("agent `{agent}`: model {model:?} is not `vendor/model`, such as \"openai/gpt-5-mini\""),
            ));
        }
        let own_calls = overrides
            .and_then(|o| o.max_tool_calls)
            .or(descriptor.max_tool_calls());
        let max_tool_calls = setting(
            own_calls,
            self.defaults.clone(),
            DEFAULT_MAX_TOOL_CALLS,
            calls_of,
        );
        if max_tool_calls.value == 0 {
            problems.push(Problem::new(
                "agent.max-tool-calls-invalid",
                format!(
                    "agent `{agent}` (workflow `{}`): max tool calls of 0 ({}) would stop it before its first call: give at least 1",
                    self.name, max_tool_calls.source
                ),
            ));
        }

        // Every name the model sees must be unique over the agent's tools.
        let mut names: HashMap<&str, String> = HashMap::with_capacity(registrations.len() + 1);
        let mut tools = Vec::with_capacity(registrations.len());
        for registration in &registrations {
            let tool = registration.descriptor();
            let site = format!("{} ({})", tool.rust_type(), tool.location());
            check_model_facing_name(tool.name(), &format!("tool `{}`", tool.name()), problems);
            if let Some(first) = names.insert(tool.name(), site.clone()) {
                problems.push(duplicate(self.name, agent, tool.name(), &first, &site));
            }
            self.tool_checks(tool, problems);
            let bound = match tool.max_result_size() {
                Some(own) if own.get() > 0 => Setting {
                    value: own,
                    source: Source::Own,
                },
                _ => workflow_bound.clone(),
            };
            let env_vars = self.env_vars(tool);
            tools.push(AppTool {
                descriptor: tool,
                tool: registration.instantiate(self.env.clone(), bound.value),
                bound,
                env_vars,
            });
        }
        if let Some(crate::model::ToolChoice::Tool(chosen)) = descriptor.tool_choice()
            && !names.contains_key(chosen.as_str())
            && descriptor.answer().is_none_or(|a| a.tool_name() != chosen)
        {
            problems.push(Problem::new(
                "agent.tool-choice-unknown",
                format!(
                    "agent `{agent}`: tool_choice names `{chosen}`, which is not one of its tools"
                ),
            ));
        }
        if let Some(answer) = descriptor.answer() {
            let name = answer.tool_name();
            check_model_facing_name(
                name,
                &format!("the answer tool of agent `{agent}`"),
                problems,
            );
            let site = format!("the answer tool of agent `{agent}`");
            if let Some(first) = names.insert(name, site.clone()) {
                problems.push(duplicate(self.name, agent, name, &first, &site));
            }
            if let Err(why) = answer.compile() {
                problems.push(Problem::new(
                    "agent.answer-schema-invalid",
                    format!(
                        "agent `{agent}`: the schema of its answer `{name}` does not compile: {why}"
                    ),
                ));
            }
        }
        AppAgent {
            descriptor,
            model,
            max_tool_calls,
            max_result_size: workflow_bound.clone(),
            tools,
        }
    }

    /// The checks of one tool that do not depend on the agent: its own bound and its
    /// dependencies, once per workflow.
    fn tool_checks(&mut self, tool: &'static ToolDescriptor, problems: &mut Vec<Problem>) {
        if self.checked.iter().any(|t| std::ptr::eq(*t, tool)) {
            return;
        }
        self.checked.push(tool);
        if let Some(binding) = tool.mcp() {
            if !binding.server().declares(binding.tool()) {
                problems.push(Problem::new(
                    "mcp.undeclared-tool",
                    format!(
                        "tool `{}` calls `{}` of server `{}`, which its #[mcp_server] does not declare: add it to `tools = [..]`",
                        tool.name(),
                        binding.tool(),
                        binding.server().name()
                    ),
                ));
            }
            self.servers.push(binding.server());
        }
        if tool.max_result_size().is_some_and(|b| b.get() == 0) {
            problems.push(Problem::new(
                "tools.max-result-size-invalid",
                format!(
                    "tool `{}`: max_result_size 0 bytes keeps nothing: give at least 1 byte",
                    tool.name()
                ),
            ));
        }
        for missing in missing_dependencies(tool, self.env.providers()) {
            problems.push(missing_implementation(self.name, &missing));
        }
    }

    fn env_vars(&self, tool: &'static ToolDescriptor) -> Vec<&'static str> {
        let mut vars = Vec::new();
        for dep in tool.dependencies() {
            if let crate::deps::Requirement::Provided { type_id, .. } = dep.requirement() {
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

fn duplicate(workflow: &str, agent: &str, name: &str, first: &str, second: &str) -> Problem {
    Problem::new(
        "tool.duplicate-name",
        format!(
            "agent `{agent}` (workflow `{workflow}`) has two tools named `{name}`: {first} and {second}; rename one"
        ),
    )
}

/// The checks every name a model sees must pass (names made at run time, or read from
/// configuration, have not met the compiler).
fn check_model_facing_name(name: &str, what: &str, problems: &mut Vec<Problem>) {
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars() {
        let allowed = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if !allowed && !bad.contains(&c) {
            bad.push(c);
        }
    }
    if !bad.is_empty() || name.is_empty() {
        problems.push(Problem::new(
            "tool.name-invalid",
            format!(
                "{what}: name {name:?} has characters model providers refuse ({}): use only letters, digits, `_` and `-`",
                bad.iter().map(|c| format!("{c:?}")).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    let len = name.chars().count();
    if len > MAX_NAME_LEN {
        problems.push(Problem::new(
            "tool.name-too-long",
            format!("{what}: name {name:?} is {len} characters long: model providers accept at most {MAX_NAME_LEN}"),
        ));
    }
}

fn check_defaults(defaults: &ToolDefaults, owner: &str, problems: &mut Vec<Problem>) {
    if let Some(SizeSetting { written, value }) = &defaults.max_result_size {
        let reason = match value {
            Ok(bound) if bound.get() == 0 => Some(format!(
                "{written} keeps nothing: a bound keeps at least 1 byte"
            )),
            Ok(_) => None,
            Err(reason) => Some(reason.clone()),
        };
        if let Some(reason) = reason {
            problems.push(Problem::new(
                "tools.max-result-size-invalid",
                format!("{owner}: defaults.tools.max_result_size: {reason}"),
            ));
        }
    }
}

/// A type provided twice in one scope is ambiguous; infrastructure belongs to the application.
fn check_provided(provided: &ProvidedList, workflow: Option<&str>, problems: &mut Vec<Problem>) {
    let scope = workflow.map_or_else(
        || "the application".to_owned(),
        |w| format!("workflow `{w}`"),
    );
    for (i, entry) in provided.entries.iter().enumerate() {
        let earlier = provided.entries[..i]
            .iter()
            .filter(|e| e.type_id == entry.type_id)
            .count();
        if earlier == 1 {
            problems.push(Problem::new(
                "di.ambiguous-implementation",
                format!(
                    "{scope} provides `{}` more than once: keep one, or give a workflow its own",
                    entry.type_name
                ),
            ));
        }
        if let (Some(workflow), Some(infrastructure)) =
            (workflow, infrastructure_type(entry.type_id))
        {
            problems.push(Problem::new(
                "di.infrastructure-in-workflow",
                format!(
                    "workflow `{workflow}` provides `{}`, {}: infrastructure serves every workflow, so provide it on the application",
                    entry.type_name,
                    infrastructure.what()
                ),
            ));
        }
    }
}

/// The registered tool named `name`, or a registered name close to it.
fn find_registered(name: &str) -> Result<ToolRegistration, Option<String>> {
    let all = registered_tools();
    match all.binary_search_by(|r| r.descriptor().name().cmp(name)) {
        Ok(i) => Ok(*all[i]),
        Err(_) => Err(all
            .iter()
            .map(|r| r.descriptor().name())
            .min_by_key(|candidate| edit_distance(candidate, name))
            .filter(|candidate| edit_distance(candidate, name) <= 3)
            .map(str::to_owned)),
    }
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous + usize::from(ca != *cb);
            previous = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

fn size_of(defaults: &ToolDefaults) -> Option<ByteSize> {
    defaults
        .max_result_size
        .as_ref()
        .and_then(|s| s.value.clone().ok())
        .filter(|b| b.get() > 0)
}

fn calls_of(defaults: &ToolDefaults) -> Option<u32> {
    defaults.max_tool_calls
}

/// The first of: the thing's own value, each level's default, the built-in default.
fn setting<T, const N: usize>(
    own: Option<T>,
    levels: [(&ToolDefaults, Source); N],
    built_in: T,
    read: fn(&ToolDefaults) -> Option<T>,
) -> Setting<T> {
    if let Some(value) = own {
        return Setting {
            value,
            source: Source::Own,
        };
    }
    for (defaults, source) in levels {
        if let Some(value) = read(defaults) {
            return Setting { value, source };
        }
    }
    Setting {
        value: built_in,
        source: Source::BuiltIn,
    }
}
