//! [`CallOutcome`]: what the model reads of a call, and whether it failed.

use super::ToolOutput;
use crate::tool::ToolFailure;
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
        let mut output = ToolOutput::answered(output);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// A call that failed: the model reads `Tool error: <message>`, bounded to `bound`.
    pub fn failed(failure: ToolFailure, bound: ByteSize) -> CallOutcome {
        let mut output = ToolOutput::failed(failure);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// A call whose answer, the JSON text `output`, a dependency cut after reading
    /// `bytes_read` bytes of it: bounded to `bound`, with the marker of a stopped producer
    /// (`at least <bytes_read> bytes`).
    pub fn cut(output: String, bound: ByteSize, bytes_read: u64) -> CallOutcome {
        let mut output = ToolOutput::stopped(output, bytes_read);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.failure.is_none()
    }
}
