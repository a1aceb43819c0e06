//! The checks before a call whose tool may have to ask a person, in the peer's order: after its
//! input is checked, the permission checker (once per declared, governed capability, each
//! decision journaled so a resumed run does not ask again), then the tool's check-in. What
//! comes out: run it, refuse it (the model reads why), or ask a person through the tool's role
//! or the application's check-in role.

use std::sync::Arc;

use serde_json::Value;

use super::RunError;
use super::agent_loop::AgentLoop;
use super::approvals::ApprovalRole;
use crate::context::{ExecutionContext, Step};
use crate::journal::{LoopEvent, LoopState};
use crate::model::Message;
use crate::policy::{CallSeen, Permission, PermissionKind, PermissionRequest};

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
    /// The checks before call `index` (its input already checked: `arguments`), whose tool
    /// names a role, checks in, or declares a capability the checker governs.
    pub(super) async fn consent(
        &self,
        state: &mut LoopState,
        index: usize,
        arguments: &Value,
    ) -> Result<Consent, RunError> {
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Ok(Consent::Run);
        };
        let descriptor = tool.descriptor();
        let mut why = Vec::new();
        for permission in self.permissions(state, index, arguments).await? {
            match permission.kind {
                PermissionKind::Allow => {}
                PermissionKind::Deny => {
                    return Ok(Consent::Refuse(format!(
                        "Tool error: not permitted: {} (rule `{}`)",
                        permission.reason, permission.rule
                    )));
                }
                PermissionKind::Ask => why.push(format!(
                    "{} (rule `{}`)",
                    permission.reason, permission.rule
                )),
            }
        }
        let pending = &state.pending[index];
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
                Err(e) => {
                    return Ok(Consent::Refuse(format!(
                        "Tool error: the check-in could not read the call's input: {e}"
                    )));
                }
            }
        }
        // A tool's own role without a check-in asks about every call.
        let every_call = descriptor.approval().is_some() && descriptor.check_in().is_none();
        if why.is_empty() && !every_call {
            return Ok(Consent::Run);
        }
        let role_name = descriptor
            .approval()
            .map(|r| r.role())
            .or(self.env.approvals.check_in_role());
        let Some(role_name) = role_name else {
            return Ok(Consent::Refuse(
                "Tool error: this call needs a person's approval, and no role of this application can ask for it".into(),
            ));
        };
        let Some(role) = self.env.approvals.get(role_name).cloned() else {
            return Ok(Consent::Refuse(format!(
                "Tool error: no channel of this application answers role `{role_name}`, so the call cannot be approved"
            )));
        };
        let evidence = match descriptor.evidence(&pending.call.arguments) {
            Some(Ok(text)) => Some(text),
            Some(Err(e)) => Some(format!("(the evidence could not be built: {e})")),
            None => None,
        };
        Ok(Consent::Ask {
            role,
            why: (!why.is_empty()).then(|| why.join("; ")),
            evidence,
        })
    }

    /// The checker's decision about each capability of call `index` it governs: journaled
    /// ones as they were, new ones asked, journaled and traced.
    async fn permissions(
        &self,
        state: &mut LoopState,
        index: usize,
        arguments: &Value,
    ) -> Result<Vec<Permission>, RunError> {
        let Some(checker) = self.env.approvals.permissions().cloned() else {
            return Ok(Vec::new());
        };
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Ok(Vec::new());
        };
        let descriptor = tool.descriptor();
        let governs = checker.governs();
        let mut decided = Vec::new();
        let mut new = Vec::new();
        for capability in descriptor
            .capabilities()
            .iter()
            .filter(|c| governs.contains(c))
        {
            let journaled = state.permissions.get(&pending.call_id).and_then(|all| {
                all.iter()
                    .find(|(c, _)| c == capability.as_str())
                    .map(|(_, p)| p.clone())
            });
            if let Some(permission) = journaled {
                decided.push(permission);
                continue;
            }
            let (calls, untrusted) = self.seen(state);
            let request = PermissionRequest {
                capability: *capability,
                tool: descriptor.name(),
                origin: descriptor.origin(),
                arguments,
                execution: &self.execution,
                calls: &calls,
                untrusted_since_person: untrusted,
            };
            let permission = checker.check(&request);
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
            new.push((capability.as_str().to_owned(), permission.clone()));
            decided.push(permission);
        }
        let call_id = pending.call_id.clone();
        for (capability, permission) in new {
            let event = LoopEvent::PermissionDecided {
                call_id: call_id.clone(),
                capability,
                checker: checker.name().to_owned(),
                permission,
            };
            self.record(state, event).await?;
        }
        Ok(decided)
    }

    /// The calls the run made so far, and whether content nobody vouches for entered it since
    /// its last message from a person.
    fn seen(&self, state: &LoopState) -> (Vec<CallSeen>, bool) {
        let mut calls = Vec::new();
        let mut untrusted = false;
        for message in &state.messages {
            match message {
                Message::User { .. } => untrusted = false,
                Message::Tool { name, is_error, .. } => {
                    calls.push(CallSeen {
                        tool: name.clone(),
                        is_error: *is_error,
                    });
                    // The framework's own texts (an unknown tool, a refusal) are vouched for.
                    untrusted |= self
                        .agent
                        .tool(name)
                        .is_some_and(|t| t.descriptor().has_untrusted_output());
                }
                _ => {}
            }
        }
        (calls, untrusted)
    }
}
