//! [`LoopState`]: a run's state, the fold of its events.
//!
//! A run is a fold: [`LoopState::apply`] takes one [`LoopEvent`] at a time, and the events are
//! exactly what the store journals. Nothing about a run lives only in a future: a process that
//! reads an execution's events has its state, pending calls included (with their ids and
//! argument bytes), and can go on from there.

use super::{Answer, CallResult, LoopEvent, PendingCall};
use crate::model::{Message, Usage};
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
    /// The conversation (the system prompt is the agent's and travels apart).
    pub messages: Vec<Message>,
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
    /// Every id the provider gave a call so far, to make a reused one unique.
    pub provider_ids: std::collections::HashSet<String>,
    /// What comes next.
    pub next: Next,
    /// Events applied.
    pub events: u64,
}

impl LoopState {
    /// The state `events` make.
    pub fn from_events<'a>(events: impl IntoIterator<Item = &'a LoopEvent>) -> LoopState {
        let mut state = LoopState::default();
        for event in events {
            state.apply(event.clone());
        }
        state
    }

    /// Folds `event` into the state, moving what it carries in.
    pub fn apply(&mut self, event: LoopEvent) {
        self.events += 1;
        match event {
            LoopEvent::Started {
                execution_id,
                workflow,
                agent,
                visit,
                input,
                ..
            } => {
                self.execution_id = execution_id;
                self.workflow = workflow;
                self.agent = agent;
                self.visit = visit;
                self.messages.push(Message::user(input));
                self.next = Next::CallModel;
            }
            LoopEvent::ModelAnswered {
                turn,
                message,
                calls,
                counted_calls,
                usage,
                cost,
                ..
            } => {
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
            }
            LoopEvent::ToolFinished {
                call_id,
                content,
                is_error,
                truncated,
                spend,
            } => {
                self.tool_spend += spend.iter().map(|s| s.cost).sum();
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
            LoopEvent::Answered { answer } => self.next = Next::Answered(answer),
            LoopEvent::Failed { code, message } => self.next = Next::Failed(code, message),
        }
    }

    /// Whether the run has ended.
    pub fn is_over(&self) -> bool {
        matches!(self.next, Next::Answered(_) | Next::Failed(..))
    }
}
