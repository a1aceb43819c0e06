//! The checks before a call whose tool may have to ask a person, in the peer's order: after its
//! input is checked, the permission checker (once per declared, governed capability, each
//! decision journaled so a resumed run does not ask again), then the tool's check-in. What
//! comes out: run it, refuse it (the model reads why), or ask a person through the tool's role
//! or the application's check-in role.

use std::borrow::Cow;
use std::sync::{Arc, PoisonError};

use super::agent_loop::AgentLoop;
use super::approvals::ApprovalRole;
use crate::context::{ExecutionContext, Step};
use crate::journal::{CallPermission, LoopState};
use crate::policy::{Permission, PermissionChecker, PermissionKind, PermissionRequest};
use crate::tool::{Capability, ToolDescriptor};

/// What the checks say about one call.
pub(super) enum Consent {
    /// Nothing asks a person: it runs.
    Run,
    /// It does not run; the model reads this.
    Refuse(String),
    /// A person is asked first, through `role`, told `why` (none when the tool's role asks
    /// about every call) with the tool's `evidence`.
    Ask {
        role: Arc<ApprovalRole>,
        why: Option<String>,
        evidence: Option<String>,
    },
}

impl AgentLoop<'_> {
    /// The checks before call `index`, whose tool names a role, checks in, or declares a
    /// capability the checker governs. The checker's new decisions go to `decided`, for the
    /// caller to journal before acting on them.
    pub(super) fn consent(
        &self,
        state: &LoopState,
        index: usize,
        decided: &mut Vec<CallPermission>,
    ) -> Consent {
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Consent::Run;
        };
        let descriptor = tool.descriptor();
        let mut why = Vec::new();
        if let Some(checker) = self.env.approvals.permissions() {
            let governs = checker.governs();
            for capability in descriptor.capabilities() {
                if !governs.contains(capability) {
                    continue;
                }
                let permission = self.permission(
                    state,
                    index,
                    descriptor,
                    checker.as_ref(),
                    *capability,
                    decided,
                );
                match permission.kind {
                    PermissionKind::Allow => {}
                    PermissionKind::Deny => {
                        return Consent::Refuse(format!(
                            "Tool error: not permitted: {} (rule `{}`)",
                            permission.reason, permission.rule
                        ));
                    }
                    PermissionKind::Ask => why.push(format!(
                        "{} (rule `{}`)",
                        permission.reason, permission.rule
                    )),
                }
            }
        }
        if let Some(check_in) = descriptor.check_in() {
            let step = Step::new(
                Arc::from(self.agent.name()),
                state.visit,
                pending.call_id.as_str(),
            );
            let signal = self.execution.signal().child();
            let context = ExecutionContext::new(self.execution.clone(), step, signal);
            match check_in.trips(&pending.call.arguments, &context) {
                Ok(true) => why.push("the tool checks in with a person before this call".into()),
                Ok(false) => {}
                // Input its tool cannot read: the call fails on it when it runs, before any
                // effect, so nobody is asked about it.
                Err(_) => return Consent::Run,
            }
        }
        // A tool's own role without a check-in asks about every call.
        let every_call = descriptor.approval().is_some() && descriptor.check_in().is_none();
        if why.is_empty() && !every_call {
            return Consent::Run;
        }
        let role_name = descriptor
            .approval()
            .map(|r| r.role())
            .or(self.env.approvals.check_in_role());
        let Some(role_name) = role_name else {
            return Consent::Refuse(
                "Tool error: this call needs a person's approval, and no role of this application can ask for it".into(),
            );
        };
        let Some(role) = self.env.approvals.get(role_name).cloned() else {
            return Consent::Refuse(format!(
                "Tool error: no channel of this application answers role `{role_name}`, so the call cannot be approved"
            ));
        };
        let evidence = match descriptor.evidence(&pending.call.arguments) {
            Some(Ok(text)) => Some(text),
            Some(Err(e)) => Some(format!("(the evidence could not be built: {e})")),
            None => None,
        };
        Consent::Ask {
            role,
            why: (!why.is_empty()).then(|| why.join("; ")),
            evidence,
        }
    }

    /// The checker's decision about `capability` of call `index`: the journaled one, or a new
    /// one, asked now, traced and added to `decided` (for the caller to journal before acting
    /// on it).
    fn permission<'a>(
        &self,
        state: &'a LoopState,
        index: usize,
        descriptor: &'static ToolDescriptor,
        checker: &dyn PermissionChecker,
        capability: Capability,
        decided: &'a mut Vec<CallPermission>,
    ) -> &'a Permission {
        let pending = &state.pending[index];
        if let Some(permission) = state.permission(index, capability.as_str()) {
            return permission;
        }
        let mut seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        seen.catch_up(&state.messages, |name| {
            self.agent.tool(name).map(|t| t.descriptor())
        });
        let request = PermissionRequest {
            capability,
            tool: descriptor.name(),
            origin: descriptor.origin(),
            arguments_text: &pending.call.arguments,
            execution: &self.execution,
            calls: &seen.calls,
            untrusted_since_person: seen.untrusted,
        };
        let permission = checker.check(&request);
        drop(seen);
        tracing::info!(
            execution_id = %self.execution.execution_id(),
            call_id = %pending.call_id,
            tool = descriptor.name(),
            capability = capability.as_str(),
            checker = checker.name(),
            decision = ?permission.kind,
            rule = %permission.rule,
            "agboss.permission"
        );
        decided.push(CallPermission {
            call: index,
            capability: Cow::Borrowed(capability.as_str()),
            checker: Arc::clone(self.env.approvals.checker_name()),
            permission,
        });
        &decided[decided.len() - 1].permission
    }
}
