//! What approval roles carry: the question a channel is asked about a tool call, and the
//! decision that answers it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What an approval role's channel is asked: which tool, which call, with which arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCallApprovalAsk<A> {
    /// The tool's name (`refund-card-tool`).
    pub tool: String,
    /// The call's id.
    pub call_id: String,
    /// The arguments, as the model sent them, typed by the tool's input.
    pub arguments: A,
    /// The SHA-256 of the argument bytes, hex: a decision may carry it back
    /// (`Resume::for_arguments`) to prove it saw these arguments.
    pub arguments_digest: String,
    /// Set when the call started before and a crash interrupted it before its result was saved
    /// (its tool says `on_crash = ask`): it may have taken effect. Approving runs it again with
    /// the same idempotency key; refusing gives the model the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
    /// Why a person is asked, when it is not the tool's own role that asks every call: its
    /// check-in tripped, or a permission checker said to ask (with its rule and reason).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// What the tool shows beside the call (`#[tool(check_in_evidence = ..)]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
}

/// A call that started and was interrupted before its result was saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Interrupted {
    /// How many times it started.
    pub starts: u32,
}

/// An approval role's answer: approve (with other arguments, if need be), or refuse with a
/// reason the model reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ToolCallApprovalDecision<A> {
    /// Run the call.
    Approve {
        /// Arguments to run it with instead of the model's; validated like the model's.
        // No `default`: serde reads a missing `Option` as `None` anyway, and schemars would
        // ask `A: Default` for it.
        #[serde(skip_serializing_if = "Option::is_none")]
        override_arguments: Option<A>,
    },
    /// Do not run it; the model reads `Tool error: refused: <reason>`.
    Refuse {
        /// Why, for the model.
        reason: String,
    },
}

impl<A> ToolCallApprovalDecision<A> {
    /// Approve the call as the model asked for it.
    pub fn approve() -> Self {
        ToolCallApprovalDecision::Approve {
            override_arguments: None,
        }
    }

    /// Approve the call with `arguments` instead of the model's.
    pub fn approve_with(arguments: A) -> Self {
        ToolCallApprovalDecision::Approve {
            override_arguments: Some(arguments),
        }
    }

    /// Refuse the call; the model reads `reason`.
    pub fn refuse(reason: impl Into<String>) -> Self {
        ToolCallApprovalDecision::Refuse {
            reason: reason.into(),
        }
    }

    /// Whether it approves.
    pub fn is_approved(&self) -> bool {
        matches!(self, ToolCallApprovalDecision::Approve { .. })
    }
}
