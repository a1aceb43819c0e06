//! [`ResultCeiling`]: the size over which a tool's result is refused rather than cut.
//!
//! A tool that declares `#[tool(result_ceiling = kilobytes(64), ceiling_hint = "..")]` never
//! hands the model a result longer than its ceiling: the contract measures the rendered result
//! (the output's JSON text) before anything else reads it, and over the ceiling the model reads
//! one refusal with the true size, the ceiling and the tool's hint instead. The payload is
//! dropped there: it reaches no journal, event, hook or trace. The ceiling is measured first, on
//! the whole text; the bound (`max_result_size`) then cuts what passed, as for any result.

use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};
use crate::tool::{ResultCeiling, ToolFailure};

/// The `ceiling` rule: a result longer than the ceiling is dropped for the refusal, which the
/// framework says itself and no bound cuts. A stream is not measured (its length is not known
/// before it is read), nor a failure.
pub(crate) struct CeilingRule(pub(crate) ResultCeiling);

impl Stage for CeilingRule {
    fn name(&self) -> &str {
        "ceiling"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, _call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let bytes = output.text.len();
        let measured = !output.is_error() && !output.streamed && !output.exempt;
        if measured && output.cut.is_none() && self.0.refuses(bytes) {
            // Dropped here, before anything journals, traces or hands it on.
            let failure = ToolFailure::OverCeiling {
                bytes,
                ceiling: self.0,
            };
            *output = ToolOutput::sentence(failure, bytes);
        }
        Then::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::kilobytes;

    #[test]
    fn the_refusal_says_the_true_size_the_ceiling_and_the_hint() {
        let ceiling = ResultCeiling {
            size: kilobytes(64),
            hint: "ask for one day at a time with `since`",
        };
        assert!(!ceiling.refuses(65_536));
        assert!(ceiling.refuses(65_537));
        assert_eq!(
            ceiling.refusal(1_048_587),
            "the result is 1,048,587 bytes, over this tool's ceiling of 65,536 bytes, so none of it is shown; to narrow the call: ask for one day at a time with `since`"
        );
    }
}
