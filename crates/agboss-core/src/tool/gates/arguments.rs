//! The `arguments` gate: a call's arguments read once, as the call contract accepts them, so
//! that every later gate reads the same thing the call will run with.

use std::borrow::Cow;

use crate::tool::pipeline::{Check, GateCall, Part, Stage, Verdict};
use crate::tool::{ToolDescriptor, ToolFailure};

/// Reads a call's arguments as the contract's first step does: refused over the tool's
/// `max_argument_size`, `{}` for empty arguments, the `null`s of optional fields read as absent,
/// checked against the input schema and the tool's allowlists. Later gates read the text it
/// accepted, and the call runs with it.
pub(crate) struct ArgumentsGate;

impl Stage for ArgumentsGate {
    fn name(&self) -> &str {
        "arguments"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        if call.is_accepted() {
            return Check::Now(Verdict::Pass);
        }
        Check::Now(match accept(call.tool(), call.arguments()) {
            Ok(text) => {
                call.accept(text);
                Verdict::Pass
            }
            Err(failure) => Verdict::Refuse(failure),
        })
    }
}

/// `arguments` as the contract accepts them for a call of `tool`, or why it refuses them: the
/// one reading the gate and the contract's own first step share.
pub(crate) fn accept(
    tool: &'static ToolDescriptor,
    arguments: &str,
) -> Result<String, ToolFailure> {
    tool.check_argument_size(arguments)
        .map_err(ToolFailure::InvalidInput)?;
    let schemas = tool
        .schemas()
        .map_err(|error| ToolFailure::Schema(error.clone()))?;
    match schemas.input.accepted(arguments) {
        Ok(Cow::Borrowed(text)) => Ok(text.to_owned()),
        Ok(Cow::Owned(text)) => Ok(text),
        Err(issues) => Err(ToolFailure::InvalidInput(issues)),
    }
}
