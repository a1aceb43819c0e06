//! The approval step: before the calls of a turn run, each call whose tool names a role gets
//! its pause brought forward: opened and journaled (its arguments checked first), its channel
//! asked, or its resolution read. What comes out is, per call, run it (with which arguments),
//! refuse it (with the error the model reads), or wait.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::task::JoinSet;

use agboss_rules::codes;

use super::RunError;
use super::agent_loop::AgentLoop;
use super::approvals::ApprovalRole;
use super::consent::Consent;
use super::finished::Finished;
use super::pause_send::{digest, resolution_of};
use crate::channel::{SentOutcome, ToolCallApprovalDecision};
use crate::journal::{
    CallPause, CallPermission, LoopEvent, LoopState, PauseResolution, PendingCall,
    PermissionDecision,
};
use crate::tool::{OnCrash, ToolError};

/// What becomes of one call of the turn.
pub(super) enum Gate {
    /// Run it with these argument bytes (the model's, or a decision's override).
    Run(String),
    /// Do not run it: the model reads this.
    Refused(Finished),
    /// Its decision comes later.
    Wait,
}

/// What a new pause asks about a call: the arguments shown, how many times the call started
/// (more than 0 after a crash), why a person is asked, and the tool's evidence.
struct Asked {
    arguments: Value,
    starts: u32,
    why: Option<String>,
    evidence: Option<String>,
}

/// A call whose channel is to be asked: its position, its pause, the question and the role.
struct Ask {
    index: usize,
    pause_id: String,
    question: Value,
    role: Arc<ApprovalRole>,
}

impl AgentLoop<'_> {
    /// Gates every pending call without a result whose tool waits for a role; calls that do
    /// not wait are not in the map.
    pub(super) async fn gate_calls(
        &self,
        state: &mut LoopState,
        allowed: &mut Vec<CallPermission>,
    ) -> Result<HashMap<usize, Gate>, RunError> {
        let mut gates = HashMap::new();
        let mut to_check = Vec::new();
        let mut to_reconcile = Vec::new();
        let mut to_send = Vec::new();
        for (index, pending) in state.pending.iter().enumerate() {
            if pending.result.is_some() {
                continue;
            }
            let Some(tool) = self.agent.tool(&pending.call.name) else {
                continue;
            };
            let descriptor = tool.descriptor();
            // Only a tool that may ask a person is gated: the others cost nothing here.
            let may_ask = descriptor.approval().is_some()
                || descriptor.check_in().is_some()
                || self.env.approvals.governs_any(descriptor.capabilities());
            if !may_ask {
                continue;
            }
            // A call a crash interrupted, whose tool asks before it runs again: its role is
            // asked anew, unless it was asked since the call last started.
            let starts = state.starts(pending);
            let reconcile = descriptor.on_crash() == OnCrash::Ask
                && starts > 0
                && state
                    .pauses
                    .get(&pending.call_id)
                    .is_none_or(|p| p.opened.attempt < starts);
            let pause = state.pauses.get(&pending.call_id);
            let role_name = pause
                .map(|p| p.opened.role.as_str())
                .or(descriptor.approval().map(|a| a.role()));
            let role = role_name.and_then(|name| self.env.approvals.get(name).cloned());
            if reconcile {
                match role {
                    Some(role) => to_reconcile.push((index, starts, role)),
                    None => {
                        gates.insert(index, self.no_channel(index, role_name));
                    }
                }
                continue;
            }
            match (pause, role) {
                // A tool whose role asks about every call has its input checked first:
                // nobody is asked to approve arguments the tool would refuse. The other checks
                // read the argument text; the schema is checked when a person is to be asked,
                // and by the call itself when it runs.
                (None, _) if descriptor.approval().is_some() && descriptor.check_in().is_none() => {
                    match tool.tool().check_input(&pending.call.arguments) {
                        Err(failure) => {
                            let text = format!("Tool error: {failure}");
                            gates.insert(index, Gate::Refused(self.bounded(index, text)));
                        }
                        Ok(arguments) => to_check.push((index, Some(arguments))),
                    }
                }
                (None, _) => to_check.push((index, None)),
                (Some(pause), _) if pause.resolution.is_some() => {
                    gates.insert(index, self.resolved(index, pending, pause));
                }
                (Some(pause), _) if pause.awaiting => {
                    gates.insert(index, Gate::Wait);
                }
                // Opened, but the run stopped before the channel's answer was journaled: ask
                // again, with the same pause id.
                (Some(pause), Some(role)) => to_send.push(Ask {
                    index,
                    pause_id: pause.opened.pause_id.clone(),
                    question: pause.opened.question.clone(),
                    role,
                }),
                (Some(pause), None) => {
                    gates.insert(index, self.no_channel(index, Some(&pause.opened.role)));
                }
            }
        }
        // Every check first. The decisions that let a call run go with the calls' intent (see
        // `tools_step.rs`); the others are journaled in one event, before any pause opens or
        // any call is refused.
        let mut decided = Vec::new();
        let mut to_open = Vec::new();
        for (index, checked) in to_check {
            // New decisions land in `allowed`; those of a call that does not run move on to
            // be journaled now.
            let mark = allowed.len();
            let consent = self.consent(state, index, allowed);
            if matches!(consent, Consent::Run) {
                continue;
            }
            decided.extend(allowed.drain(mark..).map(|d| PermissionDecision {
                call_id: state.pending[d.call].call_id.clone(),
                capability: d.capability,
                checker: d.checker,
                permission: d.permission,
            }));
            match consent {
                Consent::Run => {}
                Consent::Refuse(text) => {
                    gates.insert(index, Gate::Refused(self.bounded(index, text)));
                }
                Consent::Ask {
                    role,
                    why,
                    evidence,
                } => match checked.map_or_else(|| self.checked_input(state, index), Ok) {
                    Ok(arguments) => {
                        let asked = Asked {
                            arguments,
                            starts: 0,
                            why,
                            evidence,
                        };
                        to_open.push((index, asked, role));
                    }
                    Err(refusal) => {
                        gates.insert(index, Gate::Refused(refusal));
                    }
                },
            }
        }
        if !decided.is_empty() {
            let event = LoopEvent::PermissionsDecided { decisions: decided };
            self.record(state, event).await?;
        }
        for (index, asked, role) in to_open {
            to_send.push(self.open_pause(state, index, asked, role).await?);
        }
        for (index, starts, role) in to_reconcile {
            // Asked about the arguments the call ran with.
            let pending = &state.pending[index];
            let ran_with = state
                .pauses
                .get(&pending.call_id)
                .and_then(CallPause::ran_with)
                .unwrap_or_else(|| pending.call.arguments.clone());
            let asked = Asked {
                arguments: serde_json::from_str(&ran_with).unwrap_or(Value::Null),
                starts,
                why: None,
                evidence: None,
            };
            let ask = self.open_pause(state, index, asked, role).await?;
            to_send.push(ask);
        }
        self.send_all(state, to_send, &mut gates).await?;
        Ok(gates)
    }

    /// Journals a new pause for call `index`, before its channel is asked: its approval
    /// (`starts` 0), or the question whether to run it again after it started `starts` times
    /// and a crash interrupted it.
    async fn open_pause(
        &self,
        state: &mut LoopState,
        index: usize,
        asked: Asked,
        role: Arc<ApprovalRole>,
    ) -> Result<Ask, RunError> {
        let pending = &state.pending[index];
        let mut question = json!({
            "tool": pending.call.name,
            "call_id": pending.call_id,
            "arguments": asked.arguments,
            "arguments_digest": digest(&pending.call.arguments),
        });
        if asked.starts > 0 {
            question["interrupted"] = json!({ "starts": asked.starts });
        }
        if let Some(why) = asked.why {
            question["why"] = json!(why);
        }
        if let Some(evidence) = asked.evidence {
            question["evidence"] = json!(evidence);
        }
        self.mask_question(&mut question);
        let opened = self.new_pause(pending, &role, question.clone(), asked.starts, None)?;
        let pause_id = opened.pause_id.clone();
        self.record(state, LoopEvent::PauseOpened(opened)).await?;
        Ok(Ask {
            index,
            pause_id,
            question,
            role,
        })
    }

    /// The arguments of call `index` checked against its tool's input schema, or the refusal
    /// the model reads.
    fn checked_input(&self, state: &LoopState, index: usize) -> Result<Value, Finished> {
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Err(self.unknown_tool(index, &pending.call.name));
        };
        tool.tool()
            .check_input(&pending.call.arguments)
            .map_err(|failure| self.bounded(index, format!("Tool error: {failure}")))
    }

    /// The refusal of call `index`, whose role `role` no channel of the application answers.
    fn no_channel(&self, index: usize, role: Option<&str>) -> Gate {
        let text = format!(
            "Tool error: no channel of this application answers role `{}`, so the call cannot be approved",
            role.unwrap_or("(none)")
        );
        Gate::Refused(self.bounded(index, text))
    }

    /// Asks every channel at once; journals what each says, as it says it.
    async fn send_all(
        &self,
        state: &mut LoopState,
        asks: Vec<Ask>,
        gates: &mut HashMap<usize, Gate>,
    ) -> Result<(), RunError> {
        let mut sends = JoinSet::new();
        for ask in asks {
            let pending = &state.pending[ask.index];
            let sent = self.send_pause(
                pending,
                state.visit,
                &ask.role,
                ask.pause_id.clone(),
                ask.question,
            );
            let (index, pause_id, role) = (ask.index, ask.pause_id, ask.role);
            match sent {
                Ok(future) => {
                    sends.spawn(async move { (index, pause_id, role, future.await) });
                }
                Err(e) => {
                    let failed = Err(ToolError::new(e.to_string()));
                    self.take_answer(state, index, pause_id, &role, failed, gates)
                        .await?;
                }
            }
        }
        while let Some(joined) = sends.join_next().await {
            match joined {
                Ok((index, pause_id, role, said)) => {
                    self.take_answer(state, index, pause_id, &role, said, gates)
                        .await?;
                }
                // A channel's task can only die of a panic; the pause stays as it was, and a
                // later run asks again with the same id.
                Err(error) => tracing::error!(%error, "a channel's send panicked"),
            }
        }
        Ok(())
    }

    /// Journals what channel `role` said about call `index`, and gates the call by it.
    async fn take_answer(
        &self,
        state: &mut LoopState,
        index: usize,
        pause_id: String,
        role: &ApprovalRole,
        said: Result<SentOutcome, ToolError>,
        gates: &mut HashMap<usize, Gate>,
    ) -> Result<(), RunError> {
        let Some(resolution) = resolution_of(role, said) else {
            let awaiting = LoopEvent::PauseAwaiting {
                pause_id: pause_id.clone(),
            };
            self.record(state, awaiting).await?;
            self.tell_waiting(&state.pending[index], &pause_id, role.role.name());
            gates.insert(index, Gate::Wait);
            return Ok(());
        };
        self.close_pause(state, pause_id, resolution).await?;
        let pending = &state.pending[index];
        let gate = match state.pauses.get(&pending.call_id) {
            Some(pause) => self.resolved(index, pending, pause),
            None => Gate::Wait,
        };
        gates.insert(index, gate);
        Ok(())
    }

    /// What a closed pause makes of its call.
    fn resolved(&self, index: usize, pending: &PendingCall, pause: &CallPause) -> Gate {
        let refused = |text: String| Gate::Refused(self.bounded(index, text));
        let answer = match &pause.resolution {
            Some(
                PauseResolution::Decided { answer } | PauseResolution::Answered { answer, .. },
            ) => answer,
            Some(PauseResolution::Failed { message }) => {
                return refused(format!("Tool error: the approval failed: {message}"));
            }
            Some(PauseResolution::Cancelled { reason }) => {
                return refused(format!("Tool error: {reason}"));
            }
            None => return Gate::Wait,
        };
        // A decision is bound to the argument bytes it was asked about.
        if digest(&pending.call.arguments) != pause.opened.arguments_digest {
            return refused(
                "Tool error: the call's arguments are not those that were approved, so it does not run"
                    .into(),
            );
        }
        let again = pause.opened.attempt > 0;
        match serde_json::from_value::<ToolCallApprovalDecision<Value>>(answer.clone()) {
            Ok(ToolCallApprovalDecision::Approve {
                override_arguments: None,
            }) => Gate::Run(
                pause
                    .ran_with
                    .clone()
                    .unwrap_or_else(|| pending.call.arguments.clone()),
            ),
            Ok(ToolCallApprovalDecision::Approve {
                override_arguments: Some(arguments),
            }) => Gate::Run(arguments.to_string()),
            Ok(ToolCallApprovalDecision::Refuse { reason }) if again => {
                let message = codes::TOOL_OUTCOME_UNKNOWN.fill(&[
                    ("call_id", &pending.call_id),
                    ("tool", &pending.call.name),
                    (
                        "why",
                        &format!("role `{}` said not to: {reason}", pause.opened.role),
                    ),
                ]);
                refused(format!("Tool error: {message}"))
            }
            Ok(ToolCallApprovalDecision::Refuse { reason }) => {
                refused(format!("Tool error: the call was refused: {reason}"))
            }
            Err(e) => refused(format!(
                "Tool error: role `{}` answered with something that is not a decision: {e}",
                pause.opened.role
            )),
        }
    }
}
