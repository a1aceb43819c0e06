//! The roles an application's tools wait for or ask: each must have exactly one channel, and each
//! reply interpreter serves one role.

use std::any::TypeId;

use agboss_rules::codes;

use super::AppWorkflow;
use crate::base::Problem;
use crate::channel::{ChannelRegistration, RoleDescriptor};
use crate::run::Approvals;
use crate::tool::{ToolDescriptor, ToolEnv};

/// The roles the tools of `workflows` name (their approval, the questions they ask), each with its channel among `channels` (or its
/// built-in one); every problem into `problems`.
pub(super) fn approvals(
    channels: &[ChannelRegistration],
    workflows: &[AppWorkflow],
    env: ToolEnv,
    consent: Consent,
    problems: &mut Vec<Problem>,
) -> Approvals {
    let mut approvals = Approvals::new(env).with_consent(
        consent.permissions.clone(),
        consent.check_in_role.map(|role| role.name()),
    );
    // Each role with the first tool that names it, and how messages name that tool.
    let mut roles: Vec<(&'static RoleDescriptor, &'static str, String)> = Vec::new();
    if let Some(role) = consent.check_in_role {
        let subject = "the application's check-in role";
        roles.push((role, subject, subject.to_owned()));
    }
    for (workflow, tool) in tools_of(workflows) {
        consent.check(tool, problems);
        // The role its calls wait for, and those it asks while it runs.
        let named = tool.approval().into_iter().chain(tool.asks());
        for role in named.filter_map(|r| r.declaration::<RoleDescriptor>()) {
            if !roles.iter().any(|(r, _, _)| std::ptr::eq(*r, role)) {
                roles.push((role, tool.name(), subject(workflow, tool)));
            }
        }
    }
    let mut interpreters: Vec<(TypeId, &'static str, &'static str)> = Vec::new();
    for (role, tool, subject) in roles {
        let mut found: Vec<ChannelRegistration> = channels
            .iter()
            .filter(|c| std::ptr::eq(c.descriptor().role(), role))
            .copied()
            .collect();
        found.extend(role.builtin());
        match found.as_slice() {
            [] => problems.push(
                codes::DI_MISSING_IMPLEMENTATION
                    .finding(&[
                        ("subject", &subject),
                        (
                            "needed",
                            &format!("a channel for role `{}`", role.name()),
                        ),
                        ("scope", &"no channel listed on the application"),
                        (
                            "fix",
                            &format!(
                                "list a `#[channel]` whose role is `{}` with `.channel::<YourChannel>()`",
                                role.rust_type()
                            ),
                        ),
                    ])
                    .into(),
            ),
            [channel] => {
                if let Err(why) = approvals.insert(role, *channel) {
                    problems.push(
                        codes::TOOL_SCHEMA_INVALID
                            .finding(&[
                                ("tool", &tool),
                                ("which", &format!("answer (role `{}`)", role.name())),
                                ("reason", &why),
                            ])
                            .into(),
                    );
                }
            }
            several => {
                let names: Vec<&str> = several.iter().map(|c| c.descriptor().name()).collect();
                problems.push(
                    codes::DI_AMBIGUOUS_IMPLEMENTATION
                        .finding(&[
                            ("scope", &"the application"),
                            (
                                "what",
                                &format!(
                                    "a channel for role `{}` ({})",
                                    role.name(),
                                    names.join(", ")
                                ),
                            ),
                            ("fix", &"keep one: one channel answers a role in an application"),
                        ])
                        .into(),
                );
            }
        }
        if let Some(interpreter) = role.interpreter() {
            match interpreters
                .iter()
                .find(|(id, _, _)| *id == interpreter.type_id())
            {
                Some((_, first, _)) => problems.push(
                    codes::CHANNEL_SHARED_INTERPRETER
                        .finding(&[
                            ("interpreter", &interpreter.rust_type()),
                            ("first", first),
                            ("second", &role.name()),
                        ])
                        .into(),
                ),
                None => {
                    interpreters.push((interpreter.type_id(), role.name(), interpreter.rust_type()))
                }
            }
        }
    }
    approvals
}

/// What decides about calls before they run, beside the tools' own roles.
pub(super) struct Consent {
    pub(super) permissions: Option<std::sync::Arc<dyn crate::policy::PermissionChecker>>,
    pub(super) check_in_role: Option<&'static RoleDescriptor>,
}

impl Consent {
    /// A tool that may have to ask a person (a check-in, or a capability the checker governs)
    /// needs a role to ask: its own, or the application's check-in role.
    fn check(&self, tool: &'static ToolDescriptor, problems: &mut Vec<Problem>) {
        if tool.approval().is_some() || self.check_in_role.is_some() {
            return;
        }
        let governed = self.permissions.as_ref().and_then(|checker| {
            let governs = checker.governs();
            tool.capabilities().iter().find(|c| governs.contains(c))
        });
        let why = match (tool.check_in(), governed) {
            (Some(_), _) => "it checks in with a person (`check_in`)".to_owned(),
            (None, Some(capability)) => format!(
                "it declares `{capability}`, which the permission checker governs and may ask a person about"
            ),
            (None, None) => return,
        };
        problems.push(
            codes::TOOL_CHECK_IN_WITHOUT_ROLE
                .finding(&[("tool", &tool.name()), ("why", &why)])
                .into(),
        );
    }
}

/// Every tool of the workflows' agents and of their own tools, with its workflow.
fn tools_of(
    workflows: &[AppWorkflow],
) -> impl Iterator<Item = (&AppWorkflow, &'static ToolDescriptor)> + '_ {
    workflows.iter().flat_map(|w| {
        w.agents()
            .iter()
            .flat_map(|a| a.tools().iter().map(|t| t.descriptor()))
            .chain(w.unassigned_tools().iter().copied())
            .map(move |t| (w, t))
    })
}

/// `tool `x``, and for a tool of a workflow others include, which workflow and who includes it.
fn subject(workflow: &AppWorkflow, tool: &ToolDescriptor) -> String {
    match workflow.included_by() {
        [] => format!("tool `{}`", tool.name()),
        parents => {
            let parents: Vec<String> = parents.iter().map(|p| format!("`{p}`")).collect();
            format!(
                "tool `{}` of workflow `{}` (included by {})",
                tool.name(),
                workflow.name(),
                parents.join(", ")
            )
        }
    }
}
