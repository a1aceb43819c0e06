//! [`LoopEvent`]: one step of a run, exactly as a store journals it.

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
    /// The call's id in this run (unique; see `run::assign_call_ids`).
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
