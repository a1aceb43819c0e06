//! [`LoopEvent`]: one step of a run, exactly as a store journals it.

use std::borrow::Cow;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{PauseOpened, PauseResolution};
use crate::channel::ReplyReading;
use crate::model::{Message, ToolCall, Usage};
use crate::policy::Permission;
use crate::spend::Budgets;
use crate::tool::CallDigest;
use crate::units::Usd;

/// The version of the event layout this build writes. It reads journals of this version and
/// the earlier ones (each version only added events and fields with defaults) and refuses
/// newer ones ([`JournalError::NewerLayout`](super::JournalError::NewerLayout)).
///
/// - 1: the first layout.
/// - 2: `Started` carries the thread, owner, tenant and budgets; pauses (`PauseOpened`,
///   `PauseAwaiting`, `PauseResolved`, `PauseAnswerRejected`).
/// - 3: calls journal their intent before they start (`ToolsStarted`) and what they spend as
///   they spend it (`ToolSpent`); a pause says which attempt of its call it was opened after.
///   In a journal of an earlier layout a call without a result has no intent to tell whether it
///   started, so it is taken to have started.
/// - 4: questions a call asks while it runs are pauses too (`PauseOpened::asked`); a permission
///   checker's decisions (`PermissionsDecided`).
/// - 5: the decisions that let calls run travel with the calls' intent
///   (`ToolsStarted::permissions`) instead of an event of their own; a finished call carries the
///   digest its repetitions are recognized by (`ToolFinished::digest`: in an earlier journal no
///   call is counted, so a call after the upgrade is never said to repeat one before it).
/// - 6: `Started` carries the workflow's configuration hash (`config_hash`: in an earlier
///   journal there is none, and a resume has nothing to compare), and a resume under another
///   hash that went on is journaled (`ConfigChanged`).
/// - 7: what context-mode knowledge bases found is journaled once, before the first model call
///   (`ContextAdded`: a resumed run sends the model the same blocks); a try of a call that
///   failed for a moment and runs again is journaled (`ToolRetried`); an agent that masks
///   journals its model's call arguments masked, naming the calls whose arguments are sealed
///   beside the journal (`ModelAnswered::sealed`).
pub const STATE_VERSION: u32 = 7;

/// The first layout that journals calls' intents.
pub const INTENTS_SINCE: u32 = 3;

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
        /// The conversation thread; `None` means the execution's own id (as in version 1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<String>,
        /// Who owns the thread: who may answer its thread-owner pauses.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
        /// The tenant.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tenant: Option<String>,
        /// The budgets the run started with; a resumed run keeps them.
        #[serde(default)]
        budgets: Budgets,
        /// What the agent remembers of its thread, before the input: summaries of older turns,
        /// then the last turns as they were.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        history: Vec<Message>,
        /// Tokens the summaries made for this run used (counted in its budgets).
        #[serde(default, skip_serializing_if = "Usage::is_zero")]
        history_usage: Usage,
        /// What they cost.
        #[serde(default, skip_serializing_if = "Usd::is_zero")]
        history_cost: Usd,
        /// The workflow's configuration hash when the run started (`sha256:<hex>`,
        /// `AppWorkflow::config_hash`); `None` in a journal of a layout before 6.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        config_hash: Option<String>,
    },
    /// The run was resumed under a workflow whose configuration hash is not the one it last ran
    /// under, and went on (`OnConfigChange::Warn`): from here it runs under `to`.
    ConfigChanged {
        /// The hash it last ran under (its `started`'s, or an earlier change's `to`).
        from: String,
        /// The workflow's hash now.
        to: String,
    },
    /// What the agent's knowledge bases in context mode found for the run's input, each base's
    /// block bounded and masked: added to the input message of every model call of the run,
    /// and sent the same after a resume. Journaled before the first model call.
    ContextAdded {
        /// The blocks, one per base that found something, in the agent's order.
        blocks: Vec<String>,
        /// Whether any of them comes from a base not declared `trusted`: content nobody vouches
        /// for, from the permission checker's point of view, though it rides the person's
        /// message.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        untrusted: bool,
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
        /// The calls whose arguments this event holds masked (the agent masks personal data),
        /// their arguments as the model sent them sealed beside the journal while the calls may
        /// still run (`Store::sealed`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        sealed: Vec<String>,
        /// Tokens it used.
        usage: Usage,
        /// What it cost.
        cost: Usd,
    },
    /// Calls of the last answer are about to start: journaled before any of them starts, so
    /// that after a crash a call with an intent and no result may have taken effect (and one
    /// without an intent has not).
    ToolsStarted {
        /// The calls, by id.
        call_ids: Vec<String>,
        /// The permission checker's decisions that let these calls run (all `allow`), journaled
        /// with their intent rather than in an append of their own.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        permissions: Vec<CallPermission>,
    },
    /// A running call recorded a cost (with its `SpendRecorder` or `ModelClient`): journaled as
    /// it is recorded, so a call that a crash interrupts still counts what it spent.
    ToolSpent {
        /// The call.
        call_id: String,
        /// What it recorded.
        spend: Vec<Spent>,
    },
    /// A try of a call failed with an error its tool says is transient, and the call runs
    /// again after `after_ms` (its tool's `retries`): the same call id and idempotency key. The
    /// model never reads a try; the call's result is journaled when a try succeeds or the
    /// retries are spent.
    ToolRetried {
        /// The call.
        call_id: String,
        /// Which try failed, from 1.
        tries: u32,
        /// What it gave, as the model would have read it (bounded, masked).
        content: String,
        /// How long the call waits before its next try, in milliseconds of the application's
        /// clock.
        after_ms: u64,
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
        /// What a later call is compared by to say it repeats this one (none for a tool that
        /// says `repeated_when = never`, for the answer tool and for unknown tools).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        digest: Option<CallDigest>,
    },
    /// The permission checker decided about the calls of a turn, before any of them ran (one
    /// decision per call and governed capability): journaled so a resumed run does not ask
    /// again.
    PermissionsDecided {
        /// Each decision.
        decisions: Vec<PermissionDecision>,
    },
    /// A call waits for a decision: the pause was opened before its channel is asked, so a
    /// send retried after a crash carries the same pause id.
    PauseOpened(PauseOpened),
    /// The channel's `send` said the answer comes later (`ChannelOutcome::await_reply()`).
    PauseAwaiting {
        /// The pause.
        pause_id: String,
    },
    /// A pause closed: decided by its channel at once, answered, failed or cancelled.
    PauseResolved {
        /// The pause.
        pause_id: String,
        /// How.
        resolution: PauseResolution,
    },
    /// An answer to a pause was refused (wrong answerer, invalid, expired, ...); kept as an
    /// audit record, the pause stays open.
    PauseAnswerRejected {
        /// The pause.
        pause_id: String,
        /// Who the answer said it was from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<String>,
        /// Why it was refused: the problem code.
        code: String,
        /// The model that read the refused reply, and what it spent (counted in the budgets).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reading: Option<ReplyReading>,
    },
    /// A summary of this execution's turn (its input and answer), made when it fell out of the
    /// last turns a later run of its thread keeps as they were; appended after the run's end,
    /// and what later runs read instead of summarizing it again. The run that made it counts
    /// what it cost (`history_cost` of its `started`).
    Summarized {
        /// The summary.
        summary: String,
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

impl LoopEvent {
    /// Whether the event ends its run (`answered`, `failed`): nothing follows it under the
    /// run's claim.
    pub fn ends_run(&self) -> bool {
        matches!(self, LoopEvent::Answered { .. } | LoopEvent::Failed { .. })
    }
}

/// What a permission checker decided about one capability of one call, as journaled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermissionDecision {
    /// The call.
    pub call_id: String,
    /// The capability (`destructive`, `money`, ...).
    pub capability: Cow<'static, str>,
    /// The checker that decided (its name, shared by all its decisions).
    pub checker: Arc<str>,
    /// What it decided, by which rule, and why.
    pub permission: Permission,
}

/// What a permission checker decided about one capability of one of the turn's calls, which it
/// names by place: how the decisions that let calls run are journaled with their intent, and
/// how a run keeps this turn's decisions. Nothing in it is copied from the heap: the capability
/// and a literal rule are borrowed, the checker's name is shared.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallPermission {
    /// The call's place among the turn's calls (0 for the first the model asked for).
    pub call: usize,
    /// The capability (`destructive`, `money`, ...).
    pub capability: Cow<'static, str>,
    /// The checker that decided (its name, shared by all its decisions).
    pub checker: Arc<str>,
    /// What it decided, by which rule, and why.
    pub permission: Permission,
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
    /// The call's id in this run (unique; see [`assign_call_ids`](crate::run::assign_call_ids)).
    pub call_id: String,
    /// The model's call, as it sent it (its id, name and argument bytes).
    pub call: ToolCall,
    /// Its position in the model's answer, from 0.
    pub position: u32,
    /// How many times it started (its intents journaled); more than one after recoveries.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// Its result, once it finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<CallResult>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::journal::LoopState;

    fn started(config_hash: Option<&str>) -> LoopEvent {
        let mut event = json!({
            "event": "started", "version": STATE_VERSION, "execution_id": "e-1",
            "workflow": "desk", "agent": "notes", "visit": 1, "input": "hi",
        });
        if let Some(hash) = config_hash {
            event["config_hash"] = json!(hash);
        }
        serde_json::from_value(event).unwrap()
    }

    #[test]
    fn a_started_event_of_an_earlier_layout_reads_without_a_hash_and_writes_none() {
        let event = started(None);
        assert!(matches!(
            &event,
            LoopEvent::Started {
                config_hash: None,
                ..
            }
        ));
        let written = serde_json::to_value(&event).unwrap();
        assert!(written.get("config_hash").is_none(), "{written}");
    }

    #[test]
    fn the_state_runs_under_the_started_hash_then_under_each_change() {
        let events = [
            started(Some("sha256:aa")),
            LoopEvent::ConfigChanged {
                from: "sha256:aa".into(),
                to: "sha256:bb".into(),
            },
        ];
        let first = LoopState::from_events(&events[..1]).unwrap();
        assert_eq!(first.config_hash.as_deref(), Some("sha256:aa"));
        let changed = LoopState::from_events(&events).unwrap();
        assert_eq!(changed.config_hash.as_deref(), Some("sha256:bb"));
        let written = serde_json::to_value(&events[1]).unwrap();
        assert_eq!(
            written,
            json!({"event": "config_changed", "from": "sha256:aa", "to": "sha256:bb"})
        );
    }
}
