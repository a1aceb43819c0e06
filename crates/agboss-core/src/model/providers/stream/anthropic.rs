//! Messages streamed (`"stream": true`): `message_start` (the message without content, its
//! input usage), then per content block `content_block_start` (a `text` block, a `tool_use`
//! block with its id and name, a `thinking` block, or a `redacted_thinking` block whole),
//! `content_block_delta`s (`text_delta`; `input_json_delta` whose `partial_json` pieces make the
//! tool's input; `thinking_delta` and the `signature_delta` after it) and `content_block_stop`;
//! then
//! `message_delta` (the stop reason, the output usage) and `message_stop`. `ping`s come between;
//! an `error` event ends a stream that failed.

use serde_json::{Map, Value, json};

use super::{Deltas, Fault, Fold, Step, Streaming, data_json};
use crate::model::providers::wire::sketch;

/// Messages' streams: the same path, `stream` in the body.
pub(in crate::model::providers) static STREAMING: Streaming = Streaming {
    path: |_| "/messages".into(),
    body: |body| {
        body.insert("stream".into(), json!(true));
    },
    fold: || Box::<Message>::default(),
};

/// The message so far.
#[derive(Debug, Default)]
struct Message {
    /// `message_start`'s message.
    message: Option<Map<String, Value>>,
    blocks: Vec<Block>,
    /// The usage: `message_start`'s, with `message_delta`'s counts over it.
    usage: Map<String, Value>,
}

/// A content block being assembled.
#[derive(Debug)]
struct Block {
    index: u64,
    /// As `content_block_start` gave it.
    start: Value,
    /// A text block's text, or a thinking block's thinking.
    text: String,
    /// A thinking block's signature.
    signature: String,
    /// A `tool_use` block's input, as JSON text in pieces.
    input: String,
    stopped: bool,
}

impl Fold for Message {
    fn take(&mut self, name: &str, data: &str, deltas: &mut Deltas<'_>) -> Result<Step, Fault> {
        let event = data_json(data)?;
        let kind = event.get("type").and_then(Value::as_str).unwrap_or(name);
        match kind {
            "message_start" => {
                let Some(message) = event.get("message").and_then(Value::as_object) else {
                    return Err(malformed("a message_start has no message", &event));
                };
                if let Some(usage) = message.get("usage").and_then(Value::as_object) {
                    self.usage.clone_from(usage);
                }
                self.message = Some(message.clone());
            }
            "content_block_start" => {
                let (Some(index), Some(block)) = (
                    event.get("index").and_then(Value::as_u64),
                    event.get("content_block").filter(|b| b.is_object()),
                ) else {
                    return Err(malformed(
                        "a content_block_start lacks its index or block",
                        &event,
                    ));
                };
                let field = |key| block.get(key).and_then(Value::as_str).unwrap_or_default();
                let text = match field("type") {
                    "thinking" => field("thinking"),
                    "tool_use" => {
                        deltas.tool_call(field("id"), field("name"));
                        ""
                    }
                    _ => {
                        deltas.text(field("text"));
                        field("text")
                    }
                };
                self.blocks.push(Block {
                    index,
                    start: block.clone(),
                    text: text.to_owned(),
                    signature: field("signature").to_owned(),
                    input: String::new(),
                    stopped: false,
                });
            }
            "content_block_delta" => {
                let block = self.block(&event)?;
                let delta = event.get("delta");
                let field = |key| delta.and_then(|d| d.get(key)).and_then(Value::as_str);
                match field("type") {
                    Some("text_delta") => {
                        let text = field("text").unwrap_or_default();
                        block.text.push_str(text);
                        deltas.text(text);
                    }
                    Some("input_json_delta") => {
                        block
                            .input
                            .push_str(field("partial_json").unwrap_or_default());
                    }
                    Some("thinking_delta") => {
                        block.text.push_str(field("thinking").unwrap_or_default());
                    }
                    Some("signature_delta") => {
                        block
                            .signature
                            .push_str(field("signature").unwrap_or_default());
                    }
                    // Citations, and deltas newer than this reader.
                    _ => {}
                }
            }
            "content_block_stop" => self.block(&event)?.stopped = true,
            "message_delta" => {
                let delta = event.get("delta").and_then(Value::as_object);
                if let (Some(message), Some(delta)) = (self.message.as_mut(), delta) {
                    for key in ["stop_reason", "stop_sequence"] {
                        if let Some(value) = delta.get(key) {
                            message.insert(key.into(), value.clone());
                        }
                    }
                }
                if let Some(usage) = event.get("usage").and_then(Value::as_object) {
                    for (key, count) in usage.iter().filter(|(_, c)| !c.is_null()) {
                        self.usage.insert(key.clone(), count.clone());
                    }
                }
            }
            "message_stop" => {
                if self.message.is_none() {
                    return Err(Fault::Malformed(
                        "the stream ended without a message_start".into(),
                    ));
                }
                if let Some(open) = self.blocks.iter().find(|b| !b.stopped) {
                    return Err(Fault::Malformed(format!(
                        "the stream ended with content block {} never stopped",
                        open.index
                    )));
                }
                return Ok(Step::End);
            }
            "error" => {
                let kind = event
                    .pointer("/error/type")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                return Err(Fault::Said(status_of_kind(kind), data.as_bytes().to_vec()));
            }
            // `ping`, and events newer than this reader.
            _ => {}
        }
        Ok(Step::More)
    }

    fn end(&self) -> &'static str {
        "its `message_stop` event"
    }

    fn into_body(self: Box<Self>) -> Value {
        let mut message = self.message.unwrap_or_default();
        let content = self.blocks.into_iter().map(Block::into_wire).collect();
        message.insert("content".into(), Value::Array(content));
        message.insert("usage".into(), Value::Object(self.usage));
        Value::Object(message)
    }
}

impl Message {
    /// The block an event names by its `index`, which must have begun and not stopped.
    fn block(&mut self, event: &Value) -> Result<&mut Block, Fault> {
        let index = event.get("index").and_then(Value::as_u64);
        self.blocks
            .iter_mut()
            .rev()
            .find(|b| Some(b.index) == index && !b.stopped)
            .ok_or_else(|| malformed("an event names a content block that is not open", event))
    }
}

impl Block {
    /// The block as a whole answer's `content[]` entry: a text block with its text, a
    /// `tool_use` block with its input (what the pieces make, read as JSON; the pieces as text
    /// when they are not JSON; the start's input when no piece came), a thinking block with its
    /// thinking and signature.
    fn into_wire(self) -> Value {
        let mut block = self.start;
        match block.get("type").and_then(Value::as_str) {
            Some("text") => block["text"] = Value::String(self.text),
            Some("thinking") => {
                block["thinking"] = Value::String(self.text);
                block["signature"] = Value::String(self.signature);
            }
            Some("tool_use") if !self.input.is_empty() => {
                block["input"] =
                    serde_json::from_str(&self.input).unwrap_or_else(|_| Value::String(self.input));
            }
            _ => {}
        }
        block
    }
}

/// The status an `error` event of `kind` stands for, as Anthropic's documentation pairs its
/// error types with statuses; 500 for a type it does not name.
fn status_of_kind(kind: &str) -> u16 {
    match kind {
        "invalid_request_error" => 400,
        "authentication_error" => 401,
        "permission_error" => 403,
        "not_found_error" => 404,
        "request_too_large" => 413,
        "rate_limit_error" => 429,
        "overloaded_error" => 529,
        _ => 500,
    }
}

fn malformed(what: &str, event: &Value) -> Fault {
    Fault::Malformed(format!("{what}: {}", sketch(event)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ChatDelta;

    /// Folds `events`, up to the end; the body, or why not.
    fn fold(events: &[Value]) -> Result<Value, Fault> {
        let sink = |_: ChatDelta<'_>| {};
        let mut deltas = Deltas {
            sink: &sink,
            sent: false,
        };
        let mut message = Box::<Message>::default();
        for event in events {
            if message.take("", &event.to_string(), &mut deltas)? == Step::End {
                return Ok(message.into_body());
            }
        }
        Err(Fault::Malformed("no end".into()))
    }

    fn start() -> Value {
        json!({"type": "message_start", "message": {"content": [], "usage": {"input_tokens": 3}}})
    }

    #[test]
    fn a_block_left_open_or_never_begun_makes_the_answer_malformed() {
        let open = fold(&[
            start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "x", "name": "t", "input": {}}}),
            json!({"type": "message_stop"}),
        ]);
        assert!(
            matches!(open, Err(Fault::Malformed(ref d)) if d.contains("never stopped")),
            "{open:?}"
        );
        let unknown = fold(&[
            start(),
            json!({"type": "content_block_delta", "index": 4, "delta": {"type": "text_delta", "text": "a"}}),
        ]);
        assert!(matches!(unknown, Err(Fault::Malformed(_))), "{unknown:?}");
    }

    #[test]
    fn thinking_blocks_are_rebuilt_with_their_signature_and_send_no_text() {
        let texts = std::sync::Mutex::new(String::new());
        let sink = |delta: ChatDelta<'_>| {
            if let ChatDelta::Text(text) = delta {
                texts.lock().unwrap().push_str(text);
            }
        };
        let mut deltas = Deltas {
            sink: &sink,
            sent: false,
        };
        let mut message = Box::<Message>::default();
        for event in [
            start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Let me "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "look."}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQ"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "enc"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Done."}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "message_stop"}),
        ] {
            message.take("", &event.to_string(), &mut deltas).unwrap();
        }
        assert_eq!(
            message.into_body()["content"],
            json!([
                {"type": "thinking", "thinking": "Let me look.", "signature": "EqQ"},
                {"type": "redacted_thinking", "data": "enc"},
                {"type": "text", "text": "Done."},
            ])
        );
        assert_eq!(*texts.lock().unwrap(), "Done.");
    }

    #[test]
    fn input_pieces_that_are_not_json_stay_text_and_errors_carry_their_status() {
        let body = fold(&[
            start(),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "x", "name": "t", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"q\": "}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 5}}),
            json!({"type": "message_stop"}),
        ])
        .unwrap();
        assert_eq!(body["content"][0]["input"], json!("{\"q\": "));
        assert_eq!(body["stop_reason"], "tool_use");
        assert_eq!(
            body["usage"],
            json!({"input_tokens": 3, "output_tokens": 5})
        );
        let limited = fold(&[
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
        ]);
        assert!(matches!(limited, Err(Fault::Said(429, _))), "{limited:?}");
    }
}
