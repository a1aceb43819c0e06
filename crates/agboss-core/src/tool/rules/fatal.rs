//! The `fatal` rule: a tool error its tool says is fatal (`ToolError::fatal`) ends the run with
//! the tool's code once the result is journaled, instead of going back to the model.

use crate::tool::ToolFailure;
use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};

/// Ends the run on a fatal tool error, with its code and message.
pub(crate) struct FatalRule;

impl Stage for FatalRule {
    fn name(&self) -> &str {
        "fatal"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let Some(ToolFailure::Raised(error)) = output.failure() else {
            return Then::Keep;
        };
        let Some(code) = error.fatal_code() else {
            return Then::Keep;
        };
        Then::EndRun {
            code: code.to_owned(),
            message: format!(
                "tool `{}` (call {}) failed and said the run cannot go on: {}",
                call.tool().name(),
                call.call_id(),
                error.message()
            ),
        }
    }
}
