//! [`Finished`]: the one result a call of the model's answer gets, as the tool step and the
//! approval step hand it to the journal; and the results the loop makes itself (a refusal, an
//! invalid answer), bounded as a tool's are.

use super::agent_loop::AgentLoop;
use crate::tool::{Issues, ToolFailure, bound_text};
use crate::units::ByteSize;

/// What one finished call journals: the call (its position in `state.pending`) and what the
/// model reads.
pub(super) struct Finished {
    /// The call's position in the model's answer.
    pub(super) index: usize,
    /// What the model reads: the result, or `Tool error: ...`, bounded.
    pub(super) content: String,
    /// Whether the call failed.
    pub(super) is_error: bool,
    /// Whether `content` was cut to the bound.
    pub(super) truncated: bool,
    /// The bound `content` was held to, if any: masking must not take it past it.
    pub(super) bound: Option<ByteSize>,
}

impl Finished {
    /// A result that is no error, for the call at `index`.
    pub(super) fn ok(index: usize, content: String) -> Finished {
        Finished {
            index,
            content,
            is_error: false,
            truncated: false,
            bound: None,
        }
    }

    /// The call's position in the model's answer.
    pub(super) fn index(&self) -> usize {
        self.index
    }
}

impl AgentLoop<'_> {
    /// An answer the model sent that its schema refuses (`issues`), said as a tool's invalid
    /// input is.
    pub(super) fn refused_answer(&self, index: usize, issues: Issues) -> Finished {
        let failure = ToolFailure::InvalidInput(issues);
        self.bounded(index, format!("Tool error: {failure}"))
    }

    /// A failed call's result: `text`, bounded by the agent's bound.
    pub(super) fn bounded(&self, index: usize, text: String) -> Finished {
        let bound = self.agent.max_result_size().value;
        let bounded = bound_text(text, bound);
        Finished {
            index,
            content: bounded.text,
            is_error: true,
            truncated: bounded.truncated,
            bound: Some(bound),
        }
    }
}
