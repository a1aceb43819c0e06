//! What particular servers do beyond their format's rules, as they were found to do it, so a
//! test can play that server and check what a user of it would see.

use serde_json::Value;

use crate::Canned;

/// A behaviour of a particular server, switched on per [`WireServer`](crate::WireServer) with
/// [`WireServer::start_with`](crate::WireServer::start_with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quirk {
    /// llama-cpp-python 0.3.36 serving Gemma 3 270M (agboss issue 15): a Chat Completions
    /// request whose `tool_choice` is `"required"` gets HTTP 500 with llama-cpp-python's error
    /// body and an empty message, every time; `"auto"`, `"none"` and a named tool pass. The
    /// request takes no canned response.
    FailsRequiredToolChoice,
    /// Moonshot's Kimi K2 thinking models (their documentation, and the error users report):
    /// with thinking on, each assistant message with tool calls after the last user message
    /// must carry the `reasoning_content` the server sent with it; one without gets HTTP 400
    /// naming its index. The request takes no canned response.
    NeedsReasoningContent,
}

impl Quirk {
    /// The answer this quirk gives a Chat Completions request `body` that passed the strict
    /// check, if it gives one instead of the next canned response.
    pub(crate) fn answer_chat_completions(self, body: &Value) -> Option<Canned> {
        match self {
            Quirk::FailsRequiredToolChoice if body["tool_choice"] == "required" => {
                let error = serde_json::json!({"error": {
                    "message": "", "type": "internal_server_error", "param": null, "code": null,
                }});
                Some(Canned::json(500, error.to_string()))
            }
            Quirk::FailsRequiredToolChoice => None,
            Quirk::NeedsReasoningContent => {
                let messages = body["messages"].as_array()?;
                let loop_starts = messages
                    .iter()
                    .rposition(|m| m["role"] == "user")
                    .map_or(0, |at| at + 1);
                let missing = messages
                    .iter()
                    .enumerate()
                    .skip(loop_starts)
                    .find(|(_, m)| {
                        m["role"] == "assistant"
                            && m["tool_calls"].as_array().is_some_and(|c| !c.is_empty())
                            && m.get("reasoning_content").is_none()
                    })?;
                let error = serde_json::json!({"error": {
                    "message": format!(
                        "thinking is enabled but reasoning_content is missing in assistant tool call message at index {}",
                        missing.0
                    ),
                    "type": "invalid_request_error",
                }});
                Some(Canned::json(400, error.to_string()))
            }
        }
    }
}
