//! The messages of a conversation with a model, in a provider-neutral form that serializes
//! into the loop's state.

use serde::{Deserialize, Serialize};

use super::Reasoning;

/// One message. The system prompt travels apart, in [`ChatRequest::system`](super::ChatRequest).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// What the user (or the workflow) says.
    User {
        /// The text.
        text: String,
    },
    /// What the model answered: text, tool calls, or both.
    Assistant {
        /// Its text, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// The tools it asked to call, in its order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        /// What it reasoned, as its provider wants it back ([`Reasoning`]); empty for most
        /// models and for messages written by hand.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning: Vec<Reasoning>,
    },
    /// The result of one tool call, as the model reads it.
    Tool {
        /// The id the provider gave the call (echoed back on the wire); Gemini gives none.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        provider_id: Option<String>,
        /// The tool's name.
        name: String,
        /// What the model reads: the bounded result or `Tool error: ...`.
        content: String,
        /// Whether the call failed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// A tool call the model asked for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call (`call_abc`, `toolu_01`); `None` where the API gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// The tool's name as the model wrote it.
    pub name: String,
    /// The arguments as the model sent them: JSON text, possibly malformed.
    pub arguments: String,
}

impl Message {
    /// A user message.
    pub fn user(text: impl Into<String>) -> Message {
        Message::User { text: text.into() }
    }
}
