//! What reasoning models require of their reasoning when it comes back within a tool loop,
//! checked like the format's other rules: a body that breaks one is refused with the API's
//! error and takes no canned response.
//!
//! - Anthropic, with thinking enabled: the assistant turn whose tool calls the last user turn
//!   answers must start with its thinking (or redacted thinking) block.
//! - Gemini 3 models: in the current turn (since the last user text), the first function call
//!   of each model step must carry the thought signature it came with.

use serde_json::Value;

use crate::strict::{Problem, Step};

/// The problems of an Anthropic Messages body with its thinking blocks; none when it is valid.
pub fn anthropic(body: &Value) -> Vec<Problem> {
    if body.pointer("/thinking/type").and_then(Value::as_str) != Some("enabled") {
        return Vec::new();
    }
    let Some(messages) = body.get("messages").and_then(Value::as_array) else {
        return Vec::new();
    };
    let answers_calls = messages.last().is_some_and(|last| {
        last["role"] == "user"
            && last["content"]
                .as_array()
                .is_some_and(|blocks| blocks.iter().any(|b| b["type"] == "tool_result"))
    });
    if !answers_calls || messages.len() < 2 {
        return Vec::new();
    }
    let at = messages.len() - 2;
    let first = messages[at]
        .pointer("/content/0/type")
        .and_then(Value::as_str)
        .unwrap_or("nothing");
    if matches!(first, "thinking" | "redacted_thinking") {
        return Vec::new();
    }
    vec![Problem {
        loc: vec![
            Step::Key("messages".into()),
            Step::Index(at),
            Step::Key("content".into()),
            Step::Index(0),
            Step::Key("type".into()),
        ],
        msg: format!(
            "Expected `thinking` or `redacted_thinking`, but found `{first}`. With `thinking` \
             enabled, the assistant message whose tool calls are being answered must begin with \
             its thinking block; send the block back, or turn `thinking` off"
        ),
    }]
}

/// The problems of a Gemini `generateContent` body sent to `path` with its thought
/// signatures; none when it is valid or the model is not one that requires them.
pub fn gemini(path: &str, body: &Value) -> Vec<Problem> {
    if !path.contains("/models/gemini-3") {
        return Vec::new();
    }
    let Some(contents) = body.get("contents").and_then(Value::as_array) else {
        return Vec::new();
    };
    let turn_starts = contents
        .iter()
        .rposition(|content| {
            content["role"] == "user"
                && content["parts"]
                    .as_array()
                    .is_some_and(|parts| parts.iter().any(|p| p.get("text").is_some()))
        })
        .map_or(0, |at| at + 1);
    let mut problems = Vec::new();
    for (at, content) in contents.iter().enumerate().skip(turn_starts) {
        if content["role"] != "model" {
            continue;
        }
        let parts = content["parts"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        let Some(first_call) = parts.iter().position(|p| p.get("functionCall").is_some()) else {
            continue;
        };
        if parts[first_call].get("thoughtSignature").is_none() {
            problems.push(Problem {
                loc: vec![
                    Step::Key("contents".into()),
                    Step::Index(at),
                    Step::Key("parts".into()),
                    Step::Index(first_call),
                ],
                msg: "Function call is missing a thought_signature in functionCall parts. \
                      This is required for tools to work correctly; return each part with the \
                      signature it came with"
                    .into(),
            });
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn anthropic_wants_the_calling_turn_to_begin_with_its_thinking() {
        let body = |first: Value| {
            json!({"thinking": {"type": "enabled", "budget_tokens": 1024}, "messages": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": [first, {"type": "tool_use", "id": "a", "name": "t", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": "ok"}]},
            ]})
        };
        let thinking = json!({"type": "thinking", "thinking": "x", "signature": "s"});
        assert_eq!(anthropic(&body(thinking)), Vec::new());
        let problems = anthropic(&body(json!({"type": "text", "text": "let me see"})));
        assert_eq!(problems.len(), 1);
        assert!(problems[0].msg.contains("but found `text`"));
    }

    #[test]
    fn gemini_3_wants_each_steps_first_call_signed() {
        let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "hi"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "s"}, {"functionCall": {"name": "b", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "a", "response": {}}}, {"functionResponse": {"name": "b", "response": {}}}]},
            {"role": "model", "parts": [{"functionCall": {"name": "c", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "c", "response": {}}}]},
        ]});
        let problems = gemini("/models/gemini-3-pro:generateContent", &body);
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].loc[1], Step::Index(3));
        assert_eq!(
            gemini("/models/gemini-2.5-flash:generateContent", &body),
            Vec::new()
        );
    }
}
