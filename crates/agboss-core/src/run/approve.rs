//! Pauses that hold calls back for a person: opened and journaled before their channel is
//! asked, every channel asked at once, what each says journaled as it says it, and what a
//! closed pause makes of its call: run it (with which arguments), refuse it (with the error the
//! model reads), or wait. The gatekeeper (`gatekeeper.rs`) decides which calls are asked.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::task::JoinSet;

use agboss_rules::codes;

use super::RunError;
use super::approvals::ApprovalRole;
use super::cx::Cx;
use super::pause_send::{digest, resolution_of};
use crate::channel::{SentOutcome, ToolCallApprovalDecision};
use crate::journal::{CallPause, LoopEvent, LoopState, PauseResolution, PendingCall};
use crate::tool::{ToolError, ToolFailure, ToolOutput};

/// What becomes of one call of the turn.
pub(super) enum Gate {
    /// Run it with these argument bytes (the accepted ones, or a decision's override).
    Run(String),
    /// Do not run it: the model reads this.
    Refused(ToolOutput),
    /// Its decision comes later.
    Wait,
}

/// What a new pause asks about a call: the arguments shown, how many times the call started
/// (more than 0 after a crash), why a person is asked, and the tool's evidence.
pub(super) struct Asked {
    pub(super) arguments: Value,
    pub(super) starts: u32,
    pub(super) why: Option<String>,
    pub(super) evidence: Option<String>,
}

/// A call whose channel is to be asked: its position, its pause, the question and the role.
pub(super) struct Ask {
    index: usize,
    pause_id: String,
    question: Value,
    role: Arc<ApprovalRole>,
}

impl Cx<'_> {
    /// Journals a new pause for call `index`, before its channel is asked: its approval
    /// (`starts` 0), or the question whether to run it again after it started `starts` times
    /// and a crash interrupted it.
    pub(super) async fn open_pause(
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

    /// The refusal of a call whose role `role` no channel of the application answers.
    pub(super) fn no_channel(&self, role: Option<&str>) -> Gate {
        let why = format!(
            "no channel of this application answers role `{}`, so the call cannot be approved",
            role.unwrap_or("(none)")
        );
        Gate::Refused(self.refused(ToolFailure::Refused(why)))
    }

    /// Asks role `role` again about call `index`'s pause, opened before the run stopped.
    pub(super) fn ask_again(
        &self,
        index: usize,
        pause: &CallPause,
        role: Arc<ApprovalRole>,
    ) -> Ask {
        Ask {
            index,
            pause_id: pause.opened.pause_id.clone(),
            question: pause.opened.question.clone(),
            role,
        }
    }

    /// Asks every channel at once; journals what each says, as it says it.
    pub(super) async fn send_all(
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
            let answered_by = role.role.answered_by();
            self.tell_waiting(
                &state.pending[index],
                &pause_id,
                role.role.name(),
                answered_by,
            );
            gates.insert(index, Gate::Wait);
            return Ok(());
        };
        self.close_pause(state, pause_id, resolution).await?;
        let pending = &state.pending[index];
        let gate = match state.pauses.get(&pending.call_id) {
            Some(pause) => self.resolved(pending, pause),
            None => Gate::Wait,
        };
        gates.insert(index, gate);
        Ok(())
    }

    /// What a closed pause makes of its call.
    pub(super) fn resolved(&self, pending: &PendingCall, pause: &CallPause) -> Gate {
        let refused = |text: String| {
            let text = text
                .strip_prefix("Tool error: ")
                .unwrap_or(&text)
                .to_owned();
            Gate::Refused(self.refused(ToolFailure::Refused(text)))
        };
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
                    .unwrap_or_else(|| self.arguments_of(pending)),
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
