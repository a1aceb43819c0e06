//! The loop's state and the events it is made of.
//!
//! A run is a fold: [`LoopState::apply`] takes one [`LoopEvent`] at a time, and the events are
//! exactly what the store journals. Nothing about a run lives only in a future: a process that
//! reads an execution's events has its state, pending calls included (with their ids and
//! argument bytes), and can go on from there.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{Message, ToolCall, Usage};
use crate::units::Usd;

/// The version of the event layout; a store's reader refuses events of another one.
pub const STATE_VERSION: u32 = 1;

/// One step of a run, as the store journals it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum LoopEvent {
    /// The run began.
    Started {
        /// [`STATE_VERSION`] of the writer.
        version: u32,
        /// The execution.
        execution_id: String,
        /// The workflow.
        workflow: String,
        /// The agent (the node).
        agent: String,
        /// The node's visit, from 1.
        visit: u32,
        /// The input, as the first user message.
        input: String,
    },
    /// The model answered; its calls got their ids.
    ModelAnswered {
        /// The turn, from 1.
        turn: u32,
        /// The model id that answered.
        model: String,
        /// Its text and tool calls, as it sent them.
        message: Message,
        /// The calls to run, in the model's order, with their ids.
        calls: Vec<PendingCall>,
        /// How many of them count against the agent's limit (answer attempts do not).
        #[serde(default)]
        counted_calls: u32,
        /// Tokens it used.
        usage: Usage,
        /// What it cost.
        cost: Usd,
    },
    /// One tool call finished (results arrive in any order; they are fed back in call order).
    ToolFinished {
        /// The call.
        call_id: String,
        /// What the model reads.
        content: String,
        /// Whether it failed.
        is_error: bool,
        /// Whether `content` was cut to the bound.
        truncated: bool,
        /// What the call recorded with its `SpendRecorder` or `ModelClient`.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        spend: Vec<Spent>,
    },
    /// The run ended with an answer.
    Answered {
        /// The answer.
        answer: Answer,
    },
    /// The run failed.
    Failed {
        /// The error's code (`agents.notes.limits.toolCalls`, `budgets.usd`, `model`, ...).
        code: String,
        /// Its message.
        message: String,
    },
}

/// One cost a tool call recorded, as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spent {
    /// The service paid (a model id for a tool's own model calls).
    pub service: String,
    /// What it cost.
    pub cost: Usd,
}

/// A tool call between the model's answer and its result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The call's id in this run (unique; see [`assign_call_ids`](super::assign_call_ids)).
    pub call_id: String,
    /// The model's call, as it sent it (its id, name and argument bytes).
    pub call: ToolCall,
    /// Its position in the model's answer, from 0.
    pub position: u32,
    /// Its result, once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallResult>,
}

/// What one call gave the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallResult {
    /// What the model reads.
    pub content: String,
    /// Whether it failed.
    pub is_error: bool,
    /// Whether it was cut to the bound.
    pub truncated: bool,
}

/// How a run answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Answer {
    /// Plain text.
    Text(String),
    /// The agent's output DTO, through its answer tool, validated.
    Structured(Value),
}

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
