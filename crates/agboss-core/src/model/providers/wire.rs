//! What the three wire formats share: ids for tool calls that came without one, tool arguments
//! as an object and as text, turns of one role merged, thinking budgets, token counts and
//! finish reasons read leniently; and the model as one path segment, which Gemini's plain and
//! streamed requests share.

// Helpers shared by the dialects; a build with some of them leaves some helpers unused.
#![cfg_attr(
    not(all(feature = "openai", feature = "anthropic", feature = "gemini")),
    allow(dead_code)
)]

use serde_json::{Map, Value};

use crate::model::Thinking;
use crate::model::{FinishReason, ModelError, ToolCall};

/// Ids for tool calls that have none (Gemini gives none), so that a call and its result carry
/// the same id on APIs that need one. The ids depend only on the conversation: the same
/// history always goes out the same way.
#[derive(Debug, Default)]
pub(super) struct CallIds {
    /// Tool calls seen so far, which numbers the next made-up id.
    seen: usize,
    /// The made-up ids of the latest assistant turn's calls not yet answered: `(name, id)`.
    pending: Vec<(String, String)>,
}

impl CallIds {
    /// The ids of an assistant turn's calls, in order.
    pub(super) fn for_turn(&mut self, calls: &[ToolCall]) -> Vec<String> {
        self.pending.clear();
        calls
            .iter()
            .map(|call| {
                let id = match &call.provider_id {
                    Some(id) => id.clone(),
                    None => {
                        let id = format!("call_{}", self.seen);
                        self.pending.push((call.name.clone(), id.clone()));
                        id
                    }
                };
                self.seen += 1;
                id
            })
            .collect()
    }

    /// The id of a tool result: its own, else the made-up id of the first unanswered call of
    /// that tool, else a new one.
    pub(super) fn for_result(&mut self, provider_id: Option<&str>, name: &str) -> String {
        if let Some(id) = provider_id {
            return id.to_owned();
        }
        if let Some(at) = self.pending.iter().position(|(pending, _)| pending == name) {
            return self.pending.remove(at).1;
        }
        let id = format!("call_{}", self.seen);
        self.seen += 1;
        id
    }
}

/// A call's arguments as the JSON object APIs that take parsed arguments need: `{}` when the
/// model wrote something that is not an object (the tool call itself reported that).
pub(super) fn arguments_object(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => Value::Object(Map::new()),
    }
}

/// A call's arguments as the text a tool reads: a string as it is (the JSON the model wrote),
/// `{}` when there are none, any other value written out as JSON.
pub(super) fn arguments_text(arguments: Option<&Value>) -> String {
    match arguments {
        Some(Value::String(text)) => text.clone(),
        None | Some(Value::Null) => "{}".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// Appends a turn of `role` holding `items` under `key` (`content`, `parts`), or adds them to
/// the last turn when it has the same role, so that every tool result of a turn is in one user
/// turn (Anthropic, Gemini). A turn without items is left out: the APIs refuse empty ones.
pub(super) fn push_turn(turns: &mut Vec<Value>, role: &str, key: &str, items: Vec<Value>) {
    if items.is_empty() {
        return;
    }
    if let Some(last) = turns.last_mut()
        && last["role"] == role
        && let Some(existing) = last[key].as_array_mut()
    {
        existing.extend(items);
        return;
    }
    let mut turn = Map::new();
    turn.insert("role".into(), role.into());
    turn.insert(key.into(), Value::Array(items));
    turns.push(Value::Object(turn));
}

/// The thinking budget in tokens of a level that asks for thinking; `None` for the model's
/// default and for no thinking.
pub(super) fn thinking_budget(thinking: Thinking) -> Option<u32> {
    match thinking {
        Thinking::Low => Some(1024),
        Thinking::Medium => Some(4096),
        Thinking::High => Some(16_000),
        Thinking::Default | Thinking::Off => None,
    }
}

/// The number at `key` in `object`, or 0 when it is absent or not a count.
pub(super) fn count(object: Option<&Value>, key: &str) -> u64 {
    object
        .and_then(|o| o.get(key))
        .and_then(Value::as_u64)
        .unwrap_or(0)
}

/// The text pieces joined, `None` when there is no text at all.
pub(super) fn joined(pieces: Vec<&str>) -> Option<String> {
    let text = pieces.concat();
    (!text.is_empty()).then_some(text)
}

/// `finish`, except that an answer with tool calls is a [`FinishReason::ToolCalls`] even when
/// the API says it stopped normally (Gemini always does; some compatible servers too).
pub(super) fn finish_with_calls(finish: FinishReason, has_calls: bool) -> FinishReason {
    match finish {
        FinishReason::Stop if has_calls => FinishReason::ToolCalls,
        other => other,
    }
}

/// The error for an answer that is JSON but not the API's format.
pub(super) fn malformed(provider: &str, detail: impl Into<String>) -> ModelError {
    ModelError::MalformedResponse {
        provider: provider.to_owned(),
        detail: detail.into(),
        url: String::new(),
    }
}

/// A short, one-line rendering of `value` for error messages.
pub(super) fn sketch(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// The model's name as one path segment: without a `models/` prefix, every character outside
/// letters, digits and `-._` percent-encoded.
pub(super) fn model_segment(model: &str) -> String {
    let model = model.strip_prefix("models/").unwrap_or(model);
    let mut out = String::with_capacity(model.len());
    for byte in model.bytes() {
        match byte {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'-' | b'.' | b'_' => {
                out.push(char::from(byte))
            }
            other => out.push_str(&format!("%{other:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: Option<&str>, name: &str) -> ToolCall {
        ToolCall {
            provider_id: id.map(Into::into),
            name: name.into(),
            arguments: "{}".into(),
        }
    }

    #[test]
    fn made_up_ids_pair_calls_with_their_results() {
        let mut ids = CallIds::default();
        let turn = ids.for_turn(&[call(None, "a"), call(Some("toolu_1"), "b"), call(None, "a")]);
        assert_eq!(turn, ["call_0", "toolu_1", "call_2"]);
        assert_eq!(ids.for_result(None, "a"), "call_0");
        assert_eq!(ids.for_result(Some("toolu_1"), "b"), "toolu_1");
        assert_eq!(ids.for_result(None, "a"), "call_2");
        assert_eq!(ids.for_result(None, "a"), "call_3");
        assert_eq!(ids.for_turn(&[call(None, "c")]), ["call_4"]);
    }

    #[test]
    fn arguments_as_text_keep_what_the_model_wrote() {
        assert_eq!(arguments_text(Some(&json!(r#"{"q":"#))), r#"{"q":"#);
        assert_eq!(arguments_text(Some(&json!({"q": 1}))), r#"{"q":1}"#);
        assert_eq!(arguments_text(Some(&Value::Null)), "{}");
        assert_eq!(arguments_text(None), "{}");
    }

    #[test]
    fn turns_of_one_role_are_merged_and_empty_ones_left_out() {
        let mut turns = Vec::new();
        push_turn(&mut turns, "user", "parts", vec![json!({"text": "hi"})]);
        push_turn(&mut turns, "model", "parts", Vec::new());
        push_turn(&mut turns, "user", "parts", vec![json!({"text": "again"})]);
        push_turn(&mut turns, "model", "parts", vec![json!({"text": "yes"})]);
        assert_eq!(
            turns,
            [
                json!({"role": "user", "parts": [{"text": "hi"}, {"text": "again"}]}),
                json!({"role": "model", "parts": [{"text": "yes"}]}),
            ]
        );
    }

    #[test]
    fn arguments_that_are_not_an_object_become_empty() {
        assert_eq!(arguments_object(r#"{"q":1}"#), json!({"q": 1}));
        assert_eq!(arguments_object(r#"{"q":"#), json!({}));
        assert_eq!(arguments_object("[1]"), json!({}));
    }
}
