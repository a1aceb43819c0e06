//! [`CallOutcome`]: what the model reads of a call, and whether it failed.

use crate::tool::{ToolFailure, bound_text};
use crate::units::ByteSize;

/// The outcome of one tool call, as the agent loop feeds it back to the model.
#[derive(Debug)]
pub struct CallOutcome {
    /// What the model reads: the output's JSON text or `Tool error: <message>`, bounded.
    pub content: String,
    /// Whether `content` was cut to the bound.
    pub is_result_truncated: bool,
    /// The length of the full rendered result in bytes, before bounding.
    pub result_bytes: usize,
    /// Why the call failed, if it did.
    pub failure: Option<ToolFailure>,
}

impl CallOutcome {
    /// A call that answered with the JSON text `output`, bounded to `bound`.
    pub fn succeeded(output: String, bound: ByteSize) -> CallOutcome {
        CallOutcome::bounded(output, bound, None)
    }

    /// A call that failed: the model reads `Tool error: <message>`, bounded to `bound`.
    pub fn failed(failure: ToolFailure, bound: ByteSize) -> CallOutcome {
        CallOutcome::bounded(failure.for_model(), bound, Some(failure))
    }

    /// A call whose answer, the JSON text `output`, a dependency cut after reading
    /// `bytes_read` bytes of it: bounded to `bound`, with the marker of a stopped producer
    /// (`at least <bytes_read> bytes`).
    pub fn cut(output: String, bound: ByteSize, bytes_read: u64) -> CallOutcome {
        let bounded = crate::tool::rules::bound::bound_stopped(output, bound, bytes_read);
        CallOutcome {
            content: bounded.text,
            is_result_truncated: bounded.truncated,
            result_bytes: bounded.original_bytes,
            failure: None,
        }
    }

    fn bounded(text: String, bound: ByteSize, failure: Option<ToolFailure>) -> CallOutcome {
        let bounded = bound_text(text, bound);
        CallOutcome {
            content: bounded.text,
            is_result_truncated: bounded.truncated,
            result_bytes: bounded.original_bytes,
            failure,
        }
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.failure.is_none()
    }
}
