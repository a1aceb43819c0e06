//! What a model reasoned on its way to an answer, in the form its provider hands it back.
//!
//! Some APIs want a model's reasoning returned with the rest of its turn while a tool loop
//! lasts: Anthropic refuses a request that continues a loop with thinking on unless the turn
//! that called the tools starts with its signed thinking blocks, and Gemini's thinking models
//! refuse a function call sent back without the thought signature it came with. The providers
//! read these into [`Reasoning`] items, the agent loop keeps them on the assistant
//! [`Message`](super::Message) (and so in the journal, across pauses and restarts), and each
//! provider writes back the items of its own wire format, leaving the others out: after a
//! fallback to another vendor, nothing foreign reaches an API.

use serde::{Deserialize, Serialize};

/// One item of a model's reasoning, kept verbatim so that the provider that wrote it can
/// check it when it comes back. Which wire format an item belongs to is part of its kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reasoning {
    /// An Anthropic `thinking` block: what the model thought (a summary, on newer models) and
    /// the signature the API checks it by.
    Thinking {
        /// The thinking, as the API gave it.
        text: String,
        /// The API's signature over it.
        signature: String,
    },
    /// An Anthropic `redacted_thinking` block: thinking the API hands out encrypted only.
    RedactedThinking {
        /// The encrypted thinking.
        data: String,
    },
    /// A Gemini thought signature: an encrypted trace of the model's thinking, attached to
    /// one part of its answer and returned on that part.
    ThoughtSignature {
        /// The part it came on.
        part: SignedPart,
        /// The signature.
        signature: String,
    },
    /// The `reasoning_content` that OpenAI-compatible servers of reasoning models (DeepSeek,
    /// Kimi, Qwen behind vLLM or SGLang) send beside the answer, and that some of them need
    /// back while a tool loop lasts.
    ReasoningContent {
        /// The reasoning text.
        text: String,
    },
}

/// The part of a Gemini answer a thought signature came on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignedPart {
    /// Its text.
    Text,
    /// Its tool call at this index of [`Message::Assistant`](super::Message)'s `tool_calls`.
    Call(usize),
}

impl Reasoning {
    /// Whether the item is Anthropic's (a thinking block, redacted or not).
    pub fn is_anthropic(&self) -> bool {
        matches!(
            self,
            Reasoning::Thinking { .. } | Reasoning::RedactedThinking { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_serialize_with_their_kind_and_read_back() {
        let items = vec![
            Reasoning::Thinking {
                text: "t".into(),
                signature: "s".into(),
            },
            Reasoning::ThoughtSignature {
                part: SignedPart::Call(1),
                signature: "g".into(),
            },
        ];
        let json = serde_json::to_value(&items).unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"kind": "thinking", "text": "t", "signature": "s"},
                {"kind": "thought_signature", "part": {"call": 1}, "signature": "g"},
            ])
        );
        let back: Vec<Reasoning> = serde_json::from_value(json).unwrap();
        assert_eq!(back, items);
    }
}
