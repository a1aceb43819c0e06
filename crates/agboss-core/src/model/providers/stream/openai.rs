//! Chat Completions streamed (`"stream": true`): `chat.completion.chunk`s whose first choice's
//! `delta` carries text (`content`, or `refusal`) and tool calls in fragments (`tool_calls[i]`
//! with its `index`; the `id` and `function.name` in its first fragment, `function.arguments`
//! in pieces; the `reasoning_content` of reasoning models' servers in pieces too), then the
//! `finish_reason`, then (asked for by `stream_options.include_usage`) a
//! chunk with the usage and no choices, and `data: [DONE]`.

use serde_json::{Map, Value, json};

use super::{Deltas, Fault, Fold, Step, Streaming, data_json, status_of_code};
use crate::model::providers::wire::sketch;

/// Chat Completions' streams: the same path, `stream` and `stream_options` in the body.
pub(in crate::model::providers) static STREAMING: Streaming = Streaming {
    path: |_| "/chat/completions".into(),
    body: |body| {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    },
    fold: || Box::<Chunks>::default(),
};

/// The chunks so far.
#[derive(Debug, Default)]
struct Chunks {
    content: String,
    refusal: String,
    reasoning: String,
    /// The tool calls, in the order their first fragments came.
    calls: Vec<Call>,
    finish: Option<Value>,
    usage: Option<Value>,
}

/// A tool call being assembled from its fragments.
#[derive(Debug, Default)]
struct Call {
    index: u64,
    id: Option<String>,
    name: String,
    /// The arguments' fragments joined; `None` until one came.
    arguments: Option<String>,
    /// Whether its beginning was sent as a delta.
    announced: bool,
}

impl Fold for Chunks {
    fn take(&mut self, _name: &str, data: &str, deltas: &mut Deltas<'_>) -> Result<Step, Fault> {
        if data.trim() == "[DONE]" {
            return Ok(Step::End);
        }
        let chunk = data_json(data)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(Fault::Said(status_of_code(error), data.as_bytes().to_vec()));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        let choice = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| {
                choices
                    .iter()
                    .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            });
        let Some(choice) = choice else {
            return Ok(Step::More);
        };
        if let Some(delta) = choice.get("delta").filter(|d| !d.is_null()) {
            if let Some(text) = delta.get("content").and_then(Value::as_str) {
                self.content.push_str(text);
                deltas.text(text);
            }
            if let Some(text) = delta.get("refusal").and_then(Value::as_str) {
                self.refusal.push_str(text);
                deltas.text(text);
            }
            if let Some(text) = delta.get("reasoning_content").and_then(Value::as_str) {
                self.reasoning.push_str(text);
            }
            match delta.get("tool_calls") {
                None | Some(Value::Null) => {}
                Some(Value::Array(fragments)) => {
                    for fragment in fragments {
                        self.fragment(fragment, deltas)?;
                    }
                }
                Some(other) => {
                    return Err(Fault::Malformed(format!(
                        "`delta.tool_calls` is not a list: {}",
                        sketch(other)
                    )));
                }
            }
        }
        if let Some(finish) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            self.finish = Some(finish.clone());
        }
        Ok(Step::More)
    }

    fn end(&self) -> &'static str {
        "`data: [DONE]`"
    }

    fn into_body(self: Box<Self>) -> Value {
        let mut message = Map::new();
        message.insert("role".into(), json!("assistant"));
        let text = |text: String| match text.is_empty() {
            true => Value::Null,
            false => Value::String(text),
        };
        message.insert("content".into(), text(self.content));
        message.insert("refusal".into(), text(self.refusal));
        if !self.reasoning.is_empty() {
            message.insert("reasoning_content".into(), Value::String(self.reasoning));
        }
        let mut calls = self.calls;
        if !calls.is_empty() {
            calls.sort_by_key(|call| call.index);
            let calls = calls.into_iter().map(Call::into_wire).collect();
            message.insert("tool_calls".into(), Value::Array(calls));
        }
        json!({
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish}],
            "usage": self.usage,
        })
    }
}

impl Chunks {
    /// Adds one `tool_calls[]` fragment to its call, sending that the call began once its name
    /// is known.
    fn fragment(&mut self, fragment: &Value, deltas: &mut Deltas<'_>) -> Result<(), Fault> {
        let function = fragment.get("function");
        let id = fragment.get("id").and_then(Value::as_str);
        let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
        // Servers that give no index send each call whole: a new call when an id or a name
        // comes, else more of the last one.
        let index = match fragment.get("index").and_then(Value::as_u64) {
            Some(index) => index,
            None if id.is_some() || name.is_some() => self.calls.len() as u64,
            None => match self.calls.last() {
                Some(last) => last.index,
                None => {
                    return Err(Fault::Malformed(format!(
                        "a tool call's fragment has no index, id or name: {}",
                        sketch(fragment)
                    )));
                }
            },
        };
        let at = match self.calls.iter().position(|call| call.index == index) {
            Some(at) => at,
            None => {
                self.calls.push(Call {
                    index,
                    ..Call::default()
                });
                self.calls.len() - 1
            }
        };
        let call = &mut self.calls[at];
        if let Some(id) = id.filter(|id| !id.is_empty())
            && call.id.is_none()
        {
            call.id = Some(id.to_owned());
        }
        if let Some(name) = name
            && call.name.is_empty()
        {
            name.clone_into(&mut call.name);
        }
        match function.and_then(|f| f.get("arguments")) {
            None | Some(Value::Null) => {}
            Some(Value::String(piece)) => call.arguments.get_or_insert_default().push_str(piece),
            // A server that sends the arguments whole, as an object.
            Some(other) => call
                .arguments
                .get_or_insert_default()
                .push_str(&other.to_string()),
        }
        if !call.announced && !call.name.is_empty() {
            call.announced = true;
            deltas.tool_call(call.id.as_deref().unwrap_or_default(), &call.name);
        }
        Ok(())
    }
}

impl Call {
    /// The call as a whole answer's `tool_calls[]` entry.
    fn into_wire(self) -> Value {
        let mut function = Map::new();
        if !self.name.is_empty() {
            function.insert("name".into(), Value::String(self.name));
        }
        if let Some(arguments) = self.arguments {
            function.insert("arguments".into(), Value::String(arguments));
        }
        let mut call = Map::new();
        if let Some(id) = self.id {
            call.insert("id".into(), Value::String(id));
        }
        call.insert("type".into(), json!("function"));
        call.insert("function".into(), Value::Object(function));
        Value::Object(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChatDelta;

    /// Folds `events`, the deltas sent as text: `T:…`, `C:id/name`.
    fn fold(events: &[Value]) -> (Result<Value, Fault>, Vec<String>) {
        let seen = std::sync::Mutex::new(Vec::new());
        let sink = |delta: ChatDelta<'_>| {
            seen.lock().unwrap().push(match delta {
                ChatDelta::Text(t) => format!("T:{t}"),
                ChatDelta::ToolCall { id, name } => format!("C:{id}/{name}"),
                ChatDelta::Restart => "R".into(),
            });
        };
        let mut deltas = Deltas {
            sink: &sink,
            sent: false,
        };
        let mut chunks = Box::<Chunks>::default();
        let result = events
            .iter()
            .try_for_each(|e| chunks.take("", &e.to_string(), &mut deltas).map(|_| ()))
            .map(|()| chunks.into_body());
        (result, seen.into_inner().unwrap())
    }

    fn delta(delta: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    }

    #[test]
    fn calls_without_an_index_and_whole_arguments_are_read_as_compatible_servers_send_them() {
        let (body, deltas) = fold(&[
            delta(
                json!({"tool_calls": [{"id": "a", "function": {"name": "t", "arguments": {"q": 1}}}]}),
            ),
            delta(json!({"tool_calls": [{"function": {"name": "u"}}]})),
            delta(json!({"tool_calls": [{"function": {"arguments": "{}"}}]})),
        ]);
        let calls = &body.unwrap()["choices"][0]["message"]["tool_calls"];
        assert_eq!(
            calls[0]["function"],
            json!({"name": "t", "arguments": r#"{"q":1}"#})
        );
        assert_eq!(
            calls[1]["function"],
            json!({"name": "u", "arguments": "{}"})
        );
        assert_eq!(deltas, ["C:a/t", "C:/u"]);
    }

    #[test]
    fn a_refusal_is_text_and_an_error_chunk_is_the_servers_failure() {
        let (body, deltas) = fold(&[delta(json!({"refusal": "I can't"}))]);
        assert_eq!(body.unwrap()["choices"][0]["message"]["refusal"], "I can't");
        assert_eq!(deltas, ["T:I can't"]);
        let (result, _) = fold(&[json!({"error": {"message": "boom", "type": "server_error"}})]);
        assert!(matches!(result, Err(Fault::Said(500, _))), "{result:?}");
        let (result, _) = fold(&[json!({"choices": [{"delta": {"tool_calls": {}}}]})]);
        assert!(matches!(result, Err(Fault::Malformed(_))), "{result:?}");
    }
}
