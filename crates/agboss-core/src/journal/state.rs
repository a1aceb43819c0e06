//! [`LoopState`]: a run's state, the fold of its events.
//!
//! A run is a fold: [`LoopState::apply`] takes one [`LoopEvent`] at a time, and the events are
//! exactly what the store journals. Nothing about a run lives only in a future: a process that
//! reads an execution's events has its state, pending calls included (with their ids and
//! argument bytes), and can go on from there.

use super::{
    Answer, CallPause, CallPermission, CallResult, JournalError, LoopEvent, PauseResolution,
    PendingCall, STATE_VERSION,
};
use crate::model::{Message, Usage};
use crate::policy::Permission;
use crate::spend::Budgets;
use crate::tool::Repeats;
use crate::units::Usd;

/// What the loop does next.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Next {
    /// Nothing yet: the run has not started.
    #[default]
    Start,
    /// Ask the model.
    CallModel,
    /// Run the calls of the model's last answer that have no result yet.
    RunTools,
    /// Done.
    Answered(Answer),
    /// Failed, with a code and a message.
    Failed(String, String),
}

/// A run's state: the fold of its events.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LoopState {
    /// The execution.
    pub execution_id: String,
    /// The workflow.
    pub workflow: String,
    /// The agent.
    pub agent: String,
    /// The node's visit.
    pub visit: u32,
    /// The event layout its journal was written with (`version` of its `started`).
    pub layout: u32,
    /// The thread, as the run started with it (`None`: the execution's own id).
    pub thread: Option<String>,
    /// The thread's owner.
    pub owner: Option<String>,
    /// The tenant.
    pub tenant: Option<String>,
    /// The budgets the run started with.
    pub budgets: Budgets,
    /// The workflow's configuration hash the run last ran under: its `started`'s, or that of
    /// the last `config_changed`; `None` in a journal of a layout before 6.
    pub config_hash: Option<String>,
    /// The approvals of the last answer's calls, by call id.
    pub pauses: std::collections::HashMap<String, CallPause>,
    /// The questions the last answer's calls asked while they ran, by call id, in the order
    /// they were asked.
    pub asks: std::collections::HashMap<String, Vec<CallPause>>,
    /// The last answer's calls whose arguments the journal holds masked, their arguments sealed
    /// beside it.
    pub sealed: std::collections::HashSet<String>,
    /// How many tries of each of the last answer's calls failed for a moment and were tried
    /// again (`ToolRetried`), by call id.
    pub retried: std::collections::HashMap<String, u32>,
    /// The permission checker's decisions about the last answer's calls, in the order they were
    /// made (a few per call at most: look one up with [`permission`](Self::permission)).
    pub permissions: Vec<CallPermission>,
    /// The conversation (the system prompt is the agent's and travels apart).
    pub messages: Vec<Message>,
    /// Where in [`messages`](Self::messages) the run's input is (after its thread's history):
    /// the message context-mode knowledge is added to, for each model call only.
    pub input_at: Option<usize>,
    /// What the agent's knowledge bases in context mode found, added to the input message of
    /// each model call (journaled once: `ContextAdded`).
    pub context: Option<Vec<String>>,
    /// Whether some of that comes from a base nobody vouches for.
    pub untrusted_context: bool,
    /// Model answers so far.
    pub turn: u32,
    /// Tool calls the model asked for so far (the answer tool not counted).
    pub tool_calls: u32,
    /// Tokens used by the loop's model calls.
    pub usage: Usage,
    /// What the loop's model calls cost.
    pub model_cost: Usd,
    /// What tool calls recorded.
    pub tool_spend: Usd,
    /// The calls of the last answer.
    pub pending: Vec<PendingCall>,
    /// The digests of the run's finished calls, which tell a call that repeats an earlier one.
    pub repeats: Repeats,
    /// Every id the provider gave a call so far, to make a reused one unique.
    pub provider_ids: std::collections::HashSet<String>,
    /// What comes next.
    pub next: Next,
    /// Events applied.
    pub events: u64,
}

impl LoopState {
    /// The state `events` make; a journal of a newer layout is refused, never misread.
    pub fn from_events<'a>(
        events: impl IntoIterator<Item = &'a LoopEvent>,
    ) -> Result<LoopState, JournalError> {
        let mut state = LoopState::default();
        for event in events {
            if state.events == 0 {
                match event {
                    LoopEvent::Started { version, .. } if *version > STATE_VERSION => {
                        return Err(JournalError::NewerLayout {
                            found: *version,
                            reads: STATE_VERSION,
                        });
                    }
                    LoopEvent::Started { .. } => {}
                    _ => return Err(JournalError::NotStarted),
                }
            }
            state.apply(event.clone());
        }
        Ok(state)
    }

    /// The open pauses of the pending calls that wait for an answer (their channel said it
    /// comes later): an approval, or the last question a call asked.
    pub fn awaiting(&self) -> impl Iterator<Item = &CallPause> {
        self.pending.iter().filter_map(|call| {
            let approval = self.pauses.get(&call.call_id);
            let question = self.asks.get(&call.call_id).and_then(|asks| asks.last());
            approval
                .filter(|p| p.resolution.is_none())
                .or(question)
                .filter(|p| p.resolution.is_none() && p.awaiting && call.result.is_none())
        })
    }

    /// Every pause of the last answer's calls: approvals, then questions.
    pub fn all_pauses(&self) -> impl Iterator<Item = &CallPause> {
        self.pauses.values().chain(self.asks.values().flatten())
    }

    /// Whether `call`'s last start stopped at a question that waits (or waited) for an
    /// answer: it is to run again from its start once answered, and was not interrupted.
    pub fn stopped_at_question(&self, call: &PendingCall) -> bool {
        self.asks
            .get(&call.call_id)
            .and_then(|asks| asks.last())
            .is_some_and(|last| {
                last.opened.attempt == call.attempts
                    && (last.awaiting
                        || matches!(
                            last.resolution,
                            None | Some(PauseResolution::Answered { .. })
                        ))
            })
    }

    /// Whether `call` waits for the answer to a question it asked.
    pub fn waits_for_question(&self, call: &PendingCall) -> bool {
        self.asks
            .get(&call.call_id)
            .and_then(|asks| asks.last())
            .is_some_and(|last| last.resolution.is_none() && last.awaiting)
    }

    /// Folds `event` into the state, moving what it carries in.
    pub fn apply(&mut self, event: LoopEvent) {
        self.events += 1;
        match event {
            LoopEvent::Started {
                version,
                execution_id,
                workflow,
                agent,
                visit,
                input,
                thread,
                owner,
                tenant,
                budgets,
                history,
                history_usage,
                history_cost,
                config_hash,
            } => {
                self.layout = version;
                self.config_hash = config_hash;
                self.execution_id = execution_id;
                self.workflow = workflow;
                self.agent = agent;
                self.visit = visit;
                self.thread = thread;
                self.owner = owner;
                self.tenant = tenant;
                self.budgets = budgets;
                self.usage += history_usage;
                self.model_cost += history_cost;
                self.messages.extend(history);
                self.input_at = Some(self.messages.len());
                self.messages.push(Message::user(input));
                self.next = Next::CallModel;
            }
            LoopEvent::ContextAdded { blocks, untrusted } => {
                self.context = Some(blocks);
                self.untrusted_context = untrusted;
            }
            LoopEvent::ToolRetried { call_id, .. } => {
                *self.retried.entry(call_id).or_default() += 1;
            }
            LoopEvent::ModelAnswered {
                turn,
                message,
                calls,
                counted_calls,
                usage,
                cost,
                sealed,
                ..
            } => {
                self.sealed = sealed.into_iter().collect();
                self.turn = turn;
                self.usage += usage;
                self.model_cost += cost;
                self.messages.push(message);
                self.tool_calls += counted_calls;
                self.provider_ids
                    .extend(calls.iter().filter_map(|c| c.call.provider_id.clone()));
                self.next = if calls.is_empty() {
                    Next::CallModel
                } else {
                    Next::RunTools
                };
                self.pending = calls;
                self.pauses.clear();
                self.asks.clear();
                self.permissions.clear();
                self.retried.clear();
            }
            LoopEvent::ToolsStarted {
                call_ids,
                permissions,
            } => {
                self.file_permissions(permissions);
                for call in &mut self.pending {
                    if call_ids.contains(&call.call_id) {
                        call.attempts += 1;
                    }
                }
            }
            LoopEvent::ToolSpent { spend, .. } => {
                self.tool_spend += spend.iter().map(|s| s.cost).sum();
            }
            LoopEvent::ToolFinished {
                call_id,
                content,
                is_error,
                truncated,
                spend,
                digest,
            } => {
                self.tool_spend += spend.iter().map(|s| s.cost).sum();
                if let Some(digest) = &digest {
                    self.repeats.record(digest);
                }
                if let Some(call) = self.pending.iter_mut().find(|c| c.call_id == call_id) {
                    call.result = Some(CallResult {
                        content,
                        is_error,
                        truncated,
                    });
                }
                if self.pending.iter().all(|c| c.result.is_some()) {
                    let results = self.pending.drain(..).filter_map(|call| {
                        let result = call.result?;
                        Some(Message::Tool {
                            provider_id: call.call.provider_id,
                            name: call.call.name,
                            content: result.content,
                            is_error: result.is_error,
                        })
                    });
                    self.messages.extend(results);
                    self.next = Next::CallModel;
                }
            }
            LoopEvent::PauseOpened(opened) if opened.asked.is_some() => {
                let index = opened.asked.as_ref().map_or(0, |a| a.index as usize);
                let asks = self.asks.entry(opened.call_id.clone()).or_default();
                let pause = CallPause {
                    opened,
                    awaiting: false,
                    resolution: None,
                    ran_with: None,
                };
                match asks.get_mut(index) {
                    Some(held) => *held = pause,
                    None => asks.push(pause),
                }
            }
            LoopEvent::PauseOpened(opened) => {
                // A question after a crash replaces the call's approval, keeping what the
                // approval ran it with.
                let ran_with = self
                    .pauses
                    .get(&opened.call_id)
                    .filter(|_| opened.attempt > 0)
                    .and_then(CallPause::ran_with);
                self.pauses.insert(
                    opened.call_id.clone(),
                    CallPause {
                        opened,
                        awaiting: false,
                        resolution: None,
                        ran_with,
                    },
                );
            }
            LoopEvent::PauseAwaiting { pause_id } => {
                if let Some(pause) = self.pause_mut(&pause_id) {
                    pause.awaiting = true;
                }
            }
            LoopEvent::PauseResolved {
                pause_id,
                resolution,
            } => {
                if let PauseResolution::Answered {
                    reading: Some(reading),
                    ..
                } = &resolution
                {
                    self.count_reading(reading);
                }
                // A pause closes once; stores refuse a second resolution, and a fold keeps the
                // first should a journal hold one.
                if let Some(pause) = self.pause_mut(&pause_id)
                    && pause.resolution.is_none()
                {
                    pause.resolution = Some(resolution);
                }
            }
            LoopEvent::PermissionsDecided { decisions } => {
                // Named by id in this event: kept by place, like those of the calls' intent.
                let by_place = decisions.into_iter().filter_map(|d| {
                    let call = self.pending.iter().position(|p| p.call_id == d.call_id)?;
                    Some(CallPermission {
                        call,
                        capability: d.capability,
                        checker: d.checker,
                        permission: d.permission,
                    })
                });
                let by_place: Vec<_> = by_place.collect();
                self.file_permissions(by_place);
            }
            LoopEvent::PauseAnswerRejected { reading, .. } => {
                if let Some(reading) = &reading {
                    self.count_reading(reading);
                }
            }
            LoopEvent::Summarized { .. } => {}
            LoopEvent::ConfigChanged { to, .. } => self.config_hash = Some(to),
            LoopEvent::Answered { answer } => self.next = Next::Answered(answer),
            LoopEvent::Failed { code, message } => self.next = Next::Failed(code, message),
        }
    }

    /// Whether `call`, which would run now (no result; no decision holds it back), may have
    /// taken effect already: it started (its intent is journaled) and has no result. A journal
    /// of a layout before intents has none, so there every such call may have started.
    pub fn interrupted(&self, call: &PendingCall) -> bool {
        self.starts(call) > 0
    }

    /// How many times `call` started without a result: its journaled intents, or (in a journal
    /// of a layout before intents) one for a call without a result.
    pub fn starts(&self, call: &PendingCall) -> u32 {
        match (&call.result, self.layout < super::INTENTS_SINCE) {
            (Some(_), _) => 0,
            (None, _) if self.stopped_at_question(call) => 0,
            (None, true) => call.attempts.max(1),
            (None, false) => call.attempts,
        }
    }

    /// A reply read by a model costs the execution like the loop's own model calls.
    fn count_reading(&mut self, reading: &crate::channel::ReplyReading) {
        self.usage += reading.usage;
        self.model_cost += reading.cost;
    }

    fn pause_mut(&mut self, pause_id: &str) -> Option<&mut CallPause> {
        self.pauses
            .values_mut()
            .chain(self.asks.values_mut().flatten())
            .find(|p| p.opened.pause_id == pause_id)
    }

    /// Keeps the decisions about this turn's calls.
    fn file_permissions(&mut self, mut decisions: Vec<CallPermission>) {
        if self.permissions.is_empty() {
            self.permissions = decisions;
        } else {
            self.permissions.append(&mut decisions);
        }
    }

    /// What the checker decided about `capability` of the turn's call at place `call`, if it
    /// was asked.
    pub fn permission(&self, call: usize, capability: &str) -> Option<&Permission> {
        self.permissions
            .iter()
            .find(|d| d.call == call && d.capability == capability)
            .map(|d| &d.permission)
    }

    /// Whether the run has ended.
    pub fn is_over(&self) -> bool {
        matches!(self.next, Next::Answered(_) | Next::Failed(..))
    }
}
