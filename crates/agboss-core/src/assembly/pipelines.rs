//! Each tool's call pipeline as one agent has it, built once the application's roles and
//! policies are known: the tool's own stages (its arguments, credentials, ceiling, artifacts
//! and bound) and those the agent and the application add (the permission checker, the
//! check-in, the approval, the questions' answerers, the application's middleware, retries, a
//! fatal error, the agent's mask, the notes). And the roles an agent's runs may wait for that
//! the thread's owner answers, whatever makes them wait.

use std::sync::Arc;

use super::AppWorkflow;
use super::declarations::DeclaredMiddleware;
use crate::agent::AppTool;
use crate::channel::{PauseAnswerer, RoleDescriptor};
use crate::masking::MaskingPolicy;
use crate::policy::PermissionChecker;
use crate::tool::contract::own_stages;
use crate::tool::gates::{ApprovalGate, CheckInGate, PermissionGate, QuestionsGate};
use crate::tool::pipeline::MiddlewareStage;
use crate::tool::rules::{FatalRule, MaskRule, NotesRule, RetriesRule};
use crate::tool::{Capability, Pipeline, RepeatedWhen, RoleRef, ToolDescriptor, ToolEnv};

/// What an application adds to its tools' pipelines.
pub(super) struct CallPolicies<'a> {
    pub(super) permissions: Option<&'a Arc<dyn PermissionChecker>>,
    pub(super) check_in_role: Option<&'static RoleDescriptor>,
    pub(super) middleware: &'a [DeclaredMiddleware],
}

/// Sets the pipeline of every tool of every agent of `workflows`, and each agent's roles the
/// thread's owner answers.
pub(super) fn build(workflows: &mut [AppWorkflow], policies: &CallPolicies<'_>) {
    for workflow in workflows {
        let env = workflow.env.clone();
        for agent in &mut workflow.agents {
            let masking = agent.masking().map(|m| m.value.clone());
            let roles = owner_roles(agent.tools(), policies);
            for tool in agent.tools_mut() {
                let pipeline = pipeline_of(tool, &env, masking.as_ref(), policies);
                tool.set_pipeline(pipeline);
            }
            agent.set_owner_roles(roles);
        }
    }
}

/// The pipeline of `tool`, called in `env`, in an agent that masks with `masking`.
fn pipeline_of(
    tool: &AppTool,
    env: &ToolEnv,
    masking: Option<&MaskingPolicy>,
    policies: &CallPolicies<'_>,
) -> Pipeline {
    let descriptor = tool.descriptor();
    let governed = governed(descriptor, policies);
    let (timeout, bound) = (tool.tool().timeout(), tool.bound().value);
    let provider = env.credentials();
    let mut stages = own_stages(descriptor, provider, env.clock(), timeout, bound, masking);
    if let (Some(checker), false) = (policies.permissions, governed.is_empty()) {
        stages.push(Arc::new(PermissionGate {
            checker: checker.clone(),
            governed: governed.clone(),
        }));
    }
    if let Some(check_in) = descriptor.check_in() {
        stages.push(Arc::new(CheckInGate {
            check_in,
            evidence: descriptor.evidence_fn(),
        }));
    }
    if may_ask_a_person(descriptor, &governed) {
        stages.push(Arc::new(ApprovalGate));
    }
    if !descriptor.asks().is_empty() {
        let owner_roles = answered_by_owner(descriptor.asks()).collect();
        stages.push(Arc::new(QuestionsGate { owner_roles }));
    }
    let ours = policies
        .middleware
        .iter()
        .filter(|m| m.tool.is_none_or(|t| std::ptr::eq(t, descriptor)));
    for declared in ours {
        stages.push(Arc::new(MiddlewareStage(declared.middleware.clone())));
    }
    if descriptor.retries() > 0 {
        stages.push(Arc::new(RetriesRule {
            retries: descriptor.retries(),
            backoff: descriptor.retry_backoff(),
        }));
    }
    stages.push(Arc::new(FatalRule));
    if let Some(policy) = masking {
        stages.push(Arc::new(MaskRule(policy.clone())));
    }
    if descriptor.repeated_when() != RepeatedWhen::Never {
        stages.push(Arc::new(NotesRule(descriptor.repeated_when())));
    }
    Pipeline::of(stages)
}

/// The capabilities `tool` declares that the application's checker governs.
fn governed(tool: &ToolDescriptor, policies: &CallPolicies<'_>) -> Vec<Capability> {
    let Some(checker) = policies.permissions else {
        return Vec::new();
    };
    let governs = checker.governs();
    tool.capabilities()
        .iter()
        .filter(|c| governs.contains(c))
        .copied()
        .collect()
}

/// Whether a call of `tool` may wait for a person before it runs: its own role, a check-in, or
/// a capability the checker governs (`governed`).
fn may_ask_a_person(tool: &ToolDescriptor, governed: &[Capability]) -> bool {
    tool.approval().is_some() || tool.check_in().is_some() || !governed.is_empty()
}

/// The names of the roles among `roles` the thread's owner answers.
fn answered_by_owner(roles: &[RoleRef]) -> impl Iterator<Item = &'static str> + '_ {
    roles
        .iter()
        .filter_map(|r| r.declaration::<RoleDescriptor>())
        .filter(|role| role.answered_by() == PauseAnswerer::ThreadOwner)
        .map(|role| role.name())
}

/// The roles `tools` may wait for whose pauses the thread's owner answers, each once, by
/// name: the tools' own approval roles, the roles they ask questions of, and the application's
/// check-in role for a tool that may ask a person and names no role of its own.
pub(super) fn owner_roles(tools: &[AppTool], policies: &CallPolicies<'_>) -> Vec<&'static str> {
    let mut roles: Vec<&'static str> = Vec::new();
    for tool in tools {
        let descriptor = tool.descriptor();
        let own = descriptor.approval().into_iter().chain(descriptor.asks());
        let mut named: Vec<&'static str> =
            answered_by_owner(&own.cloned().collect::<Vec<RoleRef>>()).collect();
        let asks_through_app = descriptor.approval().is_none()
            && may_ask_a_person(descriptor, &governed(descriptor, policies));
        if let (true, Some(role)) = (asks_through_app, policies.check_in_role)
            && role.answered_by() == PauseAnswerer::ThreadOwner
        {
            named.push(role.name());
        }
        for name in named {
            if !roles.contains(&name) {
                roles.push(name);
            }
        }
    }
    roles
}
