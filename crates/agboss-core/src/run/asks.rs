//! Questions a running call asks (`Questions::ask`). Each call of a tool that declares `asks`
//! gets a [`CallAsker`]: the `n`-th ask of the call is matched with the `n`-th question the
//! journal holds for it. One already answered gives its answer at once, without the loop; a new
//! one (or one whose channel was never heard from) goes to the loop, which journals the pause
//! before its channel is asked, as for approvals. When the answer comes later the call stops
//! (whatever it returns is not its result) and runs again from its start once answered.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::RunError;
use super::cx::Cx;
use super::pause_send::resolution_of;
use crate::journal::{AskedIn, CallPause, LoopEvent, LoopState};
use crate::tool::{AskFailure, AskFuture, Asker, ToolError};

/// An ask the loop is to journal and send.
pub(super) struct AskRequest {
    /// The call's position in the model's answer.
    index: usize,
    /// The ask's place in the call, from 0.
    place: usize,
    role: &'static str,
    question: Value,
    reply: oneshot::Sender<Result<Value, AskFailure>>,
}

/// What one call asks through.
pub(super) struct CallAsker {
    index: usize,
    /// The questions the journal held for the call when it started, in order.
    journaled: Vec<CallPause>,
    next: AtomicUsize,
    requests: mpsc::UnboundedSender<AskRequest>,
}

impl CallAsker {
    /// The asker of call `index`, whose questions the journal holds in `state`.
    pub(super) fn new(
        state: &LoopState,
        index: usize,
        requests: mpsc::UnboundedSender<AskRequest>,
    ) -> CallAsker {
        let call_id = &state.pending[index].call_id;
        CallAsker {
            index,
            journaled: state.asks.get(call_id).cloned().unwrap_or_default(),
            next: AtomicUsize::new(0),
            requests,
        }
    }
}

impl Asker for CallAsker {
    fn ask(&self, role: &'static str, question: Value) -> AskFuture<'_> {
        let place = self.next.fetch_add(1, Ordering::SeqCst);
        Box::pin(async move {
            if let Some(pause) = self.journaled.get(place) {
                if pause.opened.role != role || pause.opened.question != question {
                    return Err(AskFailure::Failed(format!(
                        "ask {} of this call asked role `{role}` {question}, but the journal holds role `{}` {} at that place: a tool that asks must ask the same questions in the same order each time it runs",
                        place + 1,
                        pause.opened.role,
                        pause.opened.question
                    )));
                }
                // Opened but never answered (its channel's answer was not journaled): the loop
                // asks again, with the same pause id.
                if let Some(resolution) = &pause.resolution {
                    return resolution
                        .answer()
                        .cloned()
                        .ok_or_else(|| AskFailure::Failed(unanswered(role, resolution)));
                }
            }
            let (reply, answer) = oneshot::channel();
            let request = AskRequest {
                index: self.index,
                place,
                role,
                question,
                reply,
            };
            let stopped =
                || AskFailure::Failed("the run stopped before the question was asked".into());
            self.requests.send(request).map_err(|_| stopped())?;
            answer.await.unwrap_or_else(|_| Err(stopped()))
        })
    }
}

/// Why a closed question gave no answer.
fn unanswered(role: &str, resolution: &crate::journal::PauseResolution) -> String {
    use crate::journal::PauseResolution;
    match resolution {
        PauseResolution::Failed { message } => {
            format!("role `{role}` could not be asked: {message}")
        }
        PauseResolution::Cancelled { reason } => {
            format!("the question to role `{role}` was closed: {reason}")
        }
        PauseResolution::Decided { .. } | PauseResolution::Answered { .. } => {
            format!("role `{role}` answered")
        }
    }
}

impl Cx<'_> {
    /// Journals and sends the question of `request` (reusing the pause its place holds, if
    /// it is open), and answers the call: the answer, that it waits (the call is added to
    /// `stopped`: what it returns is not its result), or why it cannot be answered.
    pub(super) async fn take_ask(
        &self,
        state: &mut LoopState,
        request: AskRequest,
        stopped: &mut HashSet<usize>,
    ) -> Result<(), RunError> {
        let AskRequest {
            index,
            place,
            role: role_name,
            question,
            reply,
        } = request;
        let pending = &state.pending[index];
        // A call that already ended (its timeout fired while the ask waited here) asks nothing.
        if pending.result.is_some() || reply.is_closed() {
            return Ok(());
        }
        let Some(role) = self.env.approvals.get(role_name).cloned() else {
            let text = format!("no channel of this application answers role `{role_name}`");
            let _ = reply.send(Err(AskFailure::Failed(text)));
            return Ok(());
        };
        let held = state
            .asks
            .get(&pending.call_id)
            .and_then(|asks| asks.get(place))
            .filter(|p| p.resolution.is_none())
            .map(|p| (p.opened.pause_id.clone(), p.opened.question.clone()));
        let (pause_id, question) = match held {
            Some(held) => held,
            None => {
                let asked = AskedIn {
                    tool: pending.call.name.clone(),
                    index: place as u32,
                };
                let opened =
                    self.new_pause(pending, &role, question, pending.attempts, Some(asked))?;
                let held = (opened.pause_id.clone(), opened.question.clone());
                self.record(state, LoopEvent::PauseOpened(opened)).await?;
                held
            }
        };
        let pending = &state.pending[index];
        let said = match self.send_pause(pending, state.visit, &role, pause_id.clone(), question) {
            Ok(future) => future.await,
            Err(e) => Err(ToolError::new(e.to_string())),
        };
        let Some(resolution) = resolution_of(&role, said) else {
            self.record(
                state,
                LoopEvent::PauseAwaiting {
                    pause_id: pause_id.clone(),
                },
            )
            .await?;
            let answered_by = role.role.answered_by();
            self.tell_waiting(&state.pending[index], &pause_id, role_name, answered_by);
            stopped.insert(index);
            let _ = reply.send(Err(AskFailure::Waiting {
                role: role_name.to_owned(),
                pause_id,
            }));
            return Ok(());
        };
        let given = resolution
            .answer()
            .cloned()
            .ok_or_else(|| AskFailure::Failed(unanswered(role_name, &resolution)));
        self.close_pause(state, pause_id, resolution).await?;
        let _ = reply.send(given);
        Ok(())
    }
}

/// The channel calls ask through, made for a tool step only when one of its tools asks.
pub(super) fn ask_channel() -> (
    mpsc::UnboundedSender<AskRequest>,
    mpsc::UnboundedReceiver<AskRequest>,
) {
    mpsc::unbounded_channel()
}

/// An asker for call `index`, when its tool declares questions.
pub(super) fn asker_for(
    state: &LoopState,
    index: usize,
    asks: bool,
    requests: &Option<mpsc::UnboundedSender<AskRequest>>,
) -> Option<Arc<dyn Asker>> {
    match (asks, requests) {
        (true, Some(requests)) => Some(Arc::new(CallAsker::new(state, index, requests.clone()))),
        _ => None,
    }
}
