//! `streamGenerateContent` with `alt=sse`: each event is a `GenerateContentResponse` chunk whose
//! first candidate holds the parts that came since the last (text in pieces, each
//! `functionCall` whole), the last one a `finishReason`; `usageMetadata` counts so far. There
//! is no end event: the stream is whole when it closes after a finish reason (or after a
//! `promptFeedback` that blocked the prompt).

use serde_json::{Value, json};

use super::{Deltas, Fault, Fold, Step, Streaming, data_json, status_of_code};
use crate::model::providers::wire::model_segment;

/// `streamGenerateContent`: its own path, the same body.
pub(in crate::model::providers) static STREAMING: Streaming = Streaming {
    path: |model| {
        format!(
            "/models/{}:streamGenerateContent?alt=sse",
            model_segment(model)
        )
    },
    body: |_| {},
    fold: || Box::<Chunks>::default(),
};

/// The chunks so far.
#[derive(Debug, Default)]
struct Chunks {
    /// The first candidate's parts, in order.
    parts: Vec<Value>,
    /// Whether a chunk had a candidate.
    candidate: bool,
    finish: Option<Value>,
    usage: Option<Value>,
    feedback: Option<Value>,
}

impl Fold for Chunks {
    fn take(&mut self, _name: &str, data: &str, deltas: &mut Deltas<'_>) -> Result<Step, Fault> {
        let chunk = data_json(data)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(Fault::Said(status_of_code(error), data.as_bytes().to_vec()));
        }
        if let Some(usage) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
        if let Some(feedback) = chunk.get("promptFeedback").filter(|f| f.is_object()) {
            self.feedback = Some(feedback.clone());
        }
        let Some(candidate) = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|c| c.first())
        else {
            return Ok(Step::More);
        };
        self.candidate = true;
        let parts = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(call) = part.get("functionCall") {
                let name = call.get("name").and_then(Value::as_str).unwrap_or_default();
                deltas.tool_call("", name);
            } else if part.get("thought").and_then(Value::as_bool) != Some(true) {
                deltas.text(part.get("text").and_then(Value::as_str).unwrap_or_default());
            }
            self.parts.push(part.clone());
        }
        if let Some(finish) = candidate.get("finishReason").filter(|f| !f.is_null()) {
            self.finish = Some(finish.clone());
        }
        Ok(Step::More)
    }

    fn whole_at_close(&self) -> bool {
        let blocked = self
            .feedback
            .as_ref()
            .is_some_and(|f| f.get("blockReason").is_some());
        self.finish.is_some() || (blocked && !self.candidate)
    }

    fn end(&self) -> &'static str {
        "a chunk with a `finishReason`"
    }

    fn into_body(self: Box<Self>) -> Value {
        if !self.candidate {
            return json!({"promptFeedback": self.feedback, "usageMetadata": self.usage});
        }
        json!({
            "candidates": [{
                "content": {"role": "model", "parts": self.parts},
                "finishReason": self.finish,
                "index": 0,
            }],
            "usageMetadata": self.usage,
        })
    }
}
