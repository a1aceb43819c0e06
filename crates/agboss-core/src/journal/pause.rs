//! Pauses as the journal keeps them: the event that opens one, how one is resolved, and the
//! record a store keeps of each so it can be found by its id or by who may answer it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::channel::{PauseAnswerer, ReplyReading};

/// A call's pause, as the journal tells it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallPause {
    /// What opened it.
    pub opened: PauseOpened,
    /// Whether the channel said the answer comes later.
    pub awaiting: bool,
    /// How it closed, once it closed.
    pub resolution: Option<PauseResolution>,
    /// For a question whether to run an interrupted call again: the argument bytes its earlier
    /// approval ran it with, when they were not the model's (an override).
    pub ran_with: Option<String>,
}

impl CallPause {
    /// The argument bytes this pause's decision runs its call with, when they are not the
    /// model's: an approval's `override_arguments` (or what an earlier approval ran it with).
    pub fn ran_with(&self) -> Option<String> {
        let answer = match &self.resolution {
            Some(
                PauseResolution::Answered { answer, .. } | PauseResolution::Decided { answer },
            ) => answer,
            _ => return None,
        };
        match answer.get("override_arguments") {
            Some(arguments) if !arguments.is_null() => Some(arguments.to_string()),
            _ => self.ran_with.clone(),
        }
    }
}

/// A pause opened before a call: what is asked, of whom, about which call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PauseOpened {
    /// Its id: 128 random bits, hex. Made once, before the first `send`; the idempotency key of
    /// the channel's post, and for a channel-answered role the right to answer.
    pub pause_id: String,
    /// The call it holds back.
    pub call_id: String,
    /// The role's name (`refund-approval-channel`).
    pub role: String,
    /// The channel that implements the role in this application.
    pub channel: String,
    /// Who may answer.
    pub answered_by: PauseAnswerer,
    /// The thread's owner, who answers a thread-owner pause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// The question, as the channel received it (for an approval: the tool, the call and its
    /// arguments).
    pub question: Value,
    /// The SHA-256 of the call's journaled argument bytes, hex: a decision is bound to it.
    pub arguments_digest: String,
    /// When it was opened, in milliseconds since the Unix epoch (the application's clock).
    pub opened_at_ms: u64,
    /// When it stops taking answers, if its role sets a limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<u64>,
    /// How many times its call had started when it opened: 0 for the approval before the first
    /// run; more for the question whether to run again a call a crash interrupted
    /// (`on_crash = ask`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempt: u32,
    /// For a question the call asked while it ran (`Questions::ask`): which tool asked it and
    /// at which place in the call. `None` for an approval before the call runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<AskedIn>,
}

/// Where a question was asked: the tool, and the ask's place in its call, from 0 (the `n`-th
/// ask of every run of the call is matched with this pause).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskedIn {
    /// The tool that asked.
    pub tool: String,
    /// The ask's place in the call, from 0.
    pub index: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a pause closed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PauseResolution {
    /// Its channel answered at once (`ChannelOutcome::decided`): no one waited.
    Decided {
        /// The answer, validated against the role's answer type.
        answer: Value,
    },
    /// Someone answered through `Application::resume`.
    Answered {
        /// The answer, validated against the role's answer type.
        answer: Value,
        /// Who answered, as the resume said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        /// The free text the answer was read from, for a `Resume::reply`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reply: Option<String>,
        /// The model that read `reply` (a `DecisionModel`), and what it spent: counted in the
        /// execution's budgets and spend.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reading: Option<ReplyReading>,
    },
    /// The channel could not ask (its `send` failed): the call fails with this message.
    Failed {
        /// What went wrong.
        message: String,
    },
    /// The execution was cancelled while the pause was open.
    Cancelled {
        /// Why.
        reason: String,
    },
}

impl PauseResolution {
    /// The answer, for a pause that was decided or answered.
    pub fn answer(&self) -> Option<&Value> {
        match self {
            PauseResolution::Decided { answer } | PauseResolution::Answered { answer, .. } => {
                Some(answer)
            }
            PauseResolution::Failed { .. } | PauseResolution::Cancelled { .. } => None,
        }
    }
}

/// A pause as a store indexes it: found by its id, or among the open pauses of an owner, a
/// thread or an execution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PauseRecord {
    /// What opened it.
    pub opened: PauseOpened,
    /// The execution it belongs to.
    pub execution_id: String,
    /// The execution's thread.
    pub thread_id: String,
    /// The position of its `PauseOpened` event in the execution's journal.
    pub opened_at_seq: u64,
    /// Whether the channel said the answer comes later.
    pub awaiting: bool,
    /// How it closed, once it closed.
    pub resolution: Option<PauseResolution>,
}

impl PauseRecord {
    /// Its id.
    pub fn pause_id(&self) -> &str {
        &self.opened.pause_id
    }

    /// Whether it still takes an answer.
    pub fn is_open(&self) -> bool {
        self.resolution.is_none()
    }
}

/// Which open pauses to list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PauseQuery {
    /// Only those a thread's owner answers, of this owner.
    pub owner: Option<String>,
    /// Only those of this thread.
    pub thread: Option<String>,
    /// Only those of this execution.
    pub execution: Option<String>,
    /// At most this many, oldest first (`None`: all).
    pub limit: Option<usize>,
}

impl PauseQuery {
    /// Whether `record` is open and matches.
    pub fn matches(&self, record: &PauseRecord) -> bool {
        record.is_open()
            && self.owner.as_deref().is_none_or(|owner| {
                record.opened.answered_by == PauseAnswerer::ThreadOwner
                    && record.opened.owner.as_deref() == Some(owner)
            })
            && self
                .thread
                .as_deref()
                .is_none_or(|thread| record.thread_id == thread)
            && self
                .execution
                .as_deref()
                .is_none_or(|execution| record.execution_id == execution)
    }
}
