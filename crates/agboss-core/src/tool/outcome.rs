//! [`CallOutcome`]: a call's result and what the model reads of it.

use super::{ToolResult, bound_text};
use crate::units::ByteSize;

/// The outcome of one tool call.
#[derive(Debug)]
pub struct CallOutcome {
    /// The output's JSON value, or why the call failed.
    pub result: ToolResult,
    /// What the model reads: the output's JSON text or `Tool error: <message>`, bounded.
    pub content: String,
    /// Whether `content` was cut to the bound.
    pub is_result_truncated: bool,
    /// The length of the full rendered result in bytes, before bounding.
    pub result_bytes: usize,
}

impl CallOutcome {
    /// Renders `result` for the model and bounds it to `bound`.
    pub fn render(result: ToolResult, bound: ByteSize) -> CallOutcome {
        let text = match &result {
            // Writing a `Value` cannot fail: its map keys are strings.
            Ok(value) => serde_json::to_string(value).unwrap_or_default(),
            Err(failure) => failure.for_model(),
        };
        let bounded = bound_text(text, bound);
        CallOutcome {
            result,
            content: bounded.text,
            is_result_truncated: bounded.truncated,
            result_bytes: bounded.original_bytes,
        }
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.result.is_ok()
    }
}
