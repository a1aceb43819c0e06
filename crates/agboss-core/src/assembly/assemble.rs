//! [`assemble`]: every check of an application, all problems collected before any is reported.
//!
//! It flattens the workflows included by others into the application's list (`includes.rs`),
//! then walks the application, then each workflow ([`Context::workflow`]), then each agent and
//! tool ([`WorkflowScope`], in `agent_checks.rs`); the checks that do not depend on where they
//! are asked live in `checks.rs`, the roles and their channels in `channel_checks.rs`.

use std::collections::HashMap;
use std::sync::Arc;

use agboss_rules::codes;

use super::agent_checks::WorkflowScope;
use super::channel_checks;
use super::checks::{calls_of, check_defaults, check_provided, levels, size_of};
use super::history_checks::ContextWindows;
use super::includes::{self, Placement};
use super::{
    AgentDefaults, AppWorkflow, Assembly, ConfigHash, DEFAULT_MAX_TOOL_CALLS, Declarations,
    ToolDefaults, Workflow,
};
use crate::agent::{AgentSettings, AppAgent};
use crate::base::{AssemblyError, Problem, Setting, Source};
use crate::deps::Providers;
use crate::masking::MaskingPolicy;
use crate::tool::{ToolDescriptor, ToolEnv};
use crate::units::ByteSize;

/// Checks everything `builder` declares (names, bounds, limits, providers, channels,
/// configuration) and reports every problem at once. Pure: it reads no environment variable,
/// starts nothing and calls no model; providers that need the environment are made on first use.
pub fn assemble(mut builder: Declarations) -> Result<Assembly, AssemblyError> {
    let mut problems = Vec::new();
    // The workflows included by others are assembled as the application's own: configuration
    // and replacements reach them by name like the others.
    let mut tree_problems = Vec::new();
    let (flat, placements) =
        includes::flatten(std::mem::take(&mut builder.workflows), &mut tree_problems);
    builder.workflows = flat;
    replace_provided(&mut builder);
    #[cfg(feature = "config")]
    let (settings, models) = match builder.config.take() {
        Some(config) => super::configure::apply(config, &mut builder, &mut problems),
        None => Default::default(),
    };
    #[cfg(not(feature = "config"))]
    let (settings, models): (
        HashMap<String, AgentSettings>,
        std::collections::BTreeMap<String, crate::model::ModelSettings>,
    ) = Default::default();
    // The router reaches tools through the providers (`ModelClient`); made on first use, so
    // assembly reads no key. What it knows of the models' context windows sizes history.
    let knowledge_dir = builder
        .knowledge_dir
        .clone()
        .unwrap_or_else(|| crate::knowledge::DEFAULT_KNOWLEDGE_DIR.into());
    let folders = std::mem::take(&mut builder.knowledge_folders);
    let windows = match builder.router.take() {
        Some(router) => {
            let router = Arc::new(router);
            builder.provided.push_ready(router.clone());
            builder.provided.push_knowledge_shelf(
                knowledge_dir,
                folders,
                Some(router.clone()),
                models,
            );
            ContextWindows::Router(router)
        }
        None => {
            builder.provided.push_router(models.clone());
            builder
                .provided
                .push_knowledge_shelf(knowledge_dir, folders, None, models.clone());
            ContextWindows::Configured(models)
        }
    };
    #[cfg(feature = "mcp")]
    builder
        .provided
        .push_mcp_hub(builder.credentials.clone(), builder.authorizer.clone());
    let app = builder.name.clone();
    let app_source = Source::Application(app.clone());
    check_defaults(
        &builder.defaults,
        &format!("application `{app}`"),
        &mut problems,
    );
    check_provided(&builder.provided, None, &mut problems);
    let app_providers = builder.provided.to_providers(&builder.env, &builder.clock);
    let app_bound = Setting::first_of(
        None,
        levels(&[(&builder.defaults, app_source.clone())], size_of),
        ByteSize::DEFAULT_RESULT_BOUND,
    );

    let mut workflows = Vec::with_capacity(builder.workflows.len());
    let mut agents_seen = Vec::new();
    problems.append(&mut tree_problems);
    for (workflow, placement) in builder.workflows.iter().zip(placements) {
        let context = Context {
            builder: &builder,
            settings: &settings,
            app_providers: &app_providers,
            app_source: &app_source,
            windows: &windows,
        };
        workflows.push(context.workflow(workflow, placement, &mut problems, &mut agents_seen));
    }
    for name in settings.keys() {
        if !agents_seen.contains(&name.as_str()) {
            problems.push(
                codes::CONFIG_UNKNOWN_AGENT
                    .finding(&[("agent", name)])
                    .into(),
            );
        }
    }
    super::artifact_checks::check_wants(&workflows, &mut problems);
    // Renewals go every third of the ttl: under 3 ms, a lease would be lost between two.
    if builder.lease_ttl.as_duration() < std::time::Duration::from_millis(3) {
        problems.push(
            codes::APP_LEASE_TTL_INVALID
                .finding(&[("ttl", &builder.lease_ttl)])
                .into(),
        );
    }
    let channel_env = ToolEnv::new(Arc::new(app_providers.clone()), builder.clock.clone());
    let consent = channel_checks::Consent {
        permissions: builder.permissions.clone(),
        check_in_role: builder.check_in_role,
    };
    let approvals = channel_checks::approvals(
        &builder.channels,
        &workflows,
        channel_env,
        consent,
        &mut problems,
    );
    super::credential_checks::check(builder.credentials.as_deref(), &workflows, &mut problems);
    let policies = super::pipelines::CallPolicies {
        permissions: builder.permissions.as_ref(),
        check_in_role: builder.check_in_role,
        middleware: &builder.middleware,
    };
    super::pipelines::build(&mut workflows, &policies);
    if !problems.is_empty() {
        return Err(AssemblyError::new(app, problems));
    }
    let marker = crate::tool::bound::truncation_marker();
    for workflow in &mut workflows {
        workflow.config_hash =
            ConfigHash::of(&workflow.name, &workflow.agents, &approvals, &marker);
    }
    Ok(Assembly {
        name: app,
        clock: builder.clock.clone(),
        workflows,
        providers: app_providers,
        max_result_size: app_bound,
        approvals: Arc::new(approvals),
        channels: builder.channels.clone(),
        lease_ttl: builder.lease_ttl.as_duration(),
        credentials: builder.credentials.clone(),
    })
}

/// What every workflow of one application is checked against.
struct Context<'a> {
    builder: &'a Declarations,
    settings: &'a HashMap<String, AgentSettings>,
    app_providers: &'a Providers,
    app_source: &'a Source,
    windows: &'a ContextWindows,
}

impl Context<'_> {
    fn workflow(
        &self,
        workflow: &Workflow,
        placement: Placement,
        problems: &mut Vec<Problem>,
        agents_seen: &mut Vec<&'static str>,
    ) -> AppWorkflow {
        let name = &workflow.name;
        let source = Source::Workflow(name.clone());
        let defaults: [(&ToolDefaults, Source); 2] = [
            (&workflow.defaults, source.clone()),
            (&self.builder.defaults, self.app_source.clone()),
        ];
        let agent_defaults: [(&AgentDefaults, Source); 2] = [
            (&workflow.agent_defaults, source),
            (&self.builder.agent_defaults, self.app_source.clone()),
        ];
        check_defaults(&workflow.defaults, &format!("workflow `{name}`"), problems);
        check_provided(&workflow.provided, Some(name), problems);
        let own_providers = workflow
            .provided
            .to_providers(&self.builder.env, &self.builder.clock);
        let mut providers = self.app_providers.clone();
        providers.extend(&own_providers);
        let env = ToolEnv::new(Arc::new(providers), self.builder.clock.clone())
            .with_credentials(self.builder.credentials.clone());
        let max_result_size = Setting::first_of(
            None,
            levels(&defaults, size_of),
            ByteSize::DEFAULT_RESULT_BOUND,
        );
        let max_tool_calls =
            Setting::first_of(None, levels(&defaults, calls_of), DEFAULT_MAX_TOOL_CALLS);

        let mut scope = WorkflowScope::new(
            name,
            placement.suffix(),
            [&workflow.provided, &self.builder.provided],
            &env,
            &defaults,
            &agent_defaults,
            self.windows,
        );
        let mut agent_names: Vec<&str> = Vec::new();
        let mut agents = Vec::with_capacity(workflow.agents.len());
        for descriptor in &workflow.agents {
            if agent_names.contains(&descriptor.name()) {
                problems.push(
                    codes::AGENT_DUPLICATE_NAME
                        .finding(&[("workflow", name), ("agent", &descriptor.name())])
                        .into(),
                );
            }
            agent_names.push(descriptor.name());
            agents_seen.push(descriptor.name());
            let settings = self.settings.get(descriptor.name());
            let mut agent = scope.agent(descriptor, settings, &max_result_size, problems);
            agent.set_masking(masking_for(
                workflow,
                self.builder.masking.as_ref(),
                self.app_source,
                descriptor.name(),
            ));
            agents.push(agent);
        }
        let mut unassigned: Vec<&'static ToolDescriptor> = Vec::new();
        for registration in &workflow.tools {
            scope.tool_checks(registration.descriptor(), problems);
            let used = agents.iter().any(|a: &AppAgent| {
                a.tools()
                    .iter()
                    .any(|t| std::ptr::eq(t.descriptor(), registration.descriptor()))
            });
            if !used
                && !unassigned
                    .iter()
                    .any(|d| std::ptr::eq(*d, registration.descriptor()))
            {
                unassigned.push(registration.descriptor());
            }
        }
        AppWorkflow {
            name: name.clone(),
            includes: placement.includes,
            included_by: placement.included_by,
            agents,
            unassigned,
            #[cfg(feature = "mcp")]
            mcp_servers: scope.into_servers(),
            env,
            own_providers,
            max_result_size,
            max_tool_calls,
            config_hash: ConfigHash::default(),
            on_config_change: workflow
                .on_config_change
                .unwrap_or(self.builder.on_config_change),
        }
    }
}

/// Puts each replacement (`ApplicationBuilder::replace`) in the place of every provider of its
/// type, the application's and each workflow's; one that replaces nothing is provided by the
/// application.
fn replace_provided(builder: &mut Declarations) {
    for replacement in std::mem::take(&mut builder.replacements.entries) {
        let mut replaced = builder.provided.replace(&replacement);
        for workflow in &mut builder.workflows {
            replaced |= workflow.provided.replace(&replacement);
        }
        if !replaced {
            builder.provided.entries.push(replacement);
        }
    }
}

/// The masking in effect for agent `agent` of `workflow`: its own there, else the workflow's,
/// else the application's (`app`), whole; with where it was set.
fn masking_for(
    workflow: &Workflow,
    app: Option<&MaskingPolicy>,
    app_source: &Source,
    agent: &str,
) -> Option<Setting<MaskingPolicy>> {
    let own = workflow
        .agent_masking
        .iter()
        .find(|(name, _)| *name == agent)
        .map(|(_, policy)| (policy, Source::Own));
    let workflow_level = || {
        let source = Source::Workflow(workflow.name.clone());
        workflow.masking.as_ref().map(|policy| (policy, source))
    };
    let app_level = || app.map(|policy| (policy, app_source.clone()));
    let (value, source) = own.or_else(workflow_level).or_else(app_level)?;
    Some(Setting {
        value: value.clone(),
        source,
    })
}
