//! The check-in a tool declares (`#[tool(check_in = always)]`,
//! `#[tool(check_in = refunds_over_1000)]`, the [`CheckIn`] its descriptor holds), its
//! predicate typed by the tool's input with the evidence text the person reads, and the
//! `check-in` gate that asks it, failing closed.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::context::ExecutionContext;
use crate::tool::pipeline::{AskPerson, Check, GateCall, Part, Stage, Verdict};
use crate::tool::race::panic_message;
use crate::tool::schema::conform::strict;
use crate::tool::{CheckIn, EvidenceFn};

/// A check-in predicate over a tool's input `I`: `fn(&I, &ExecutionContext) -> bool` (or a
/// closure of that shape).
#[diagnostic::on_unimplemented(
    message = "[tool.check-in-invalid] `{Self}` is not a check-in predicate of the tool's input `{I}`",
    label = "a check-in predicate is `fn(&Input, &ExecutionContext) -> bool`",
    note = "write `fn over_limit(input: &{I}, context: &ExecutionContext) -> bool`, or use `check_in = always`"
)]
pub trait CheckInPredicate<I, Shape = Typed> {
    /// Whether a person is asked before the call with `input` runs.
    fn trips(&self, input: &I, context: &ExecutionContext) -> bool;
}

impl<I, F: Fn(&I, &ExecutionContext) -> bool> CheckInPredicate<I, Typed> for F {
    fn trips(&self, input: &I, context: &ExecutionContext) -> bool {
        self(input, context)
    }
}

impl<I, F: sealed::Never> CheckInPredicate<I, sealed::Unreachable> for F {
    fn trips(&self, _input: &I, _context: &ExecutionContext) -> bool {
        unreachable!("no type implements `sealed::Never`")
    }
}

/// The shape of a check-in predicate or an evidence function: the only one that implements
/// [`CheckInPredicate`] and [`EvidenceOf`]. The traits have a second, unreachable
/// implementation, so that rustc reports a function of another shape against the trait, with
/// its code and the fix, instead of as a mismatch of `Fn` arguments that names neither.
#[derive(Debug)]
pub enum Typed {}

mod sealed {
    /// Implemented by no type.
    pub trait Never {}

    /// The shape of the unreachable implementations.
    #[derive(Debug)]
    pub enum Unreachable {}
}

/// The evidence a person reads beside a call of a tool whose input is `I`:
/// `fn(&I) -> String`.
#[diagnostic::on_unimplemented(
    message = "[tool.check-in-invalid] `{Self}` does not build the evidence of a call with input `{I}`",
    label = "check-in evidence is `fn(&Input) -> String`",
    note = "write `fn evidence(input: &{I}) -> String`"
)]
pub trait EvidenceOf<I, Shape = Typed> {
    /// The text.
    fn evidence(&self, input: &I) -> String;
}

impl<I, F: Fn(&I) -> String> EvidenceOf<I, Typed> for F {
    fn evidence(&self, input: &I) -> String {
        self(input)
    }
}

impl<I, F: sealed::Never> EvidenceOf<I, sealed::Unreachable> for F {
    fn evidence(&self, _input: &I) -> String {
        unreachable!("no type implements `sealed::Never`")
    }
}

/// What `#[tool(check_in = predicate)]` emits: `predicate`, typed by the tool's input `I`, run
/// on the call's arguments as the contract accepted them, read by the contract's own reader. A
/// predicate of another shape fails to compile at its path, with `[tool.check-in-invalid]`.
#[doc(hidden)]
pub fn check_in_with<I: serde::de::DeserializeOwned, Shape>(
    arguments: &str,
    context: &ExecutionContext,
    predicate: impl CheckInPredicate<I, Shape>,
) -> Result<bool, String> {
    let input: I = strict::read(arguments).map_err(|refused| refused.error.to_string())?;
    Ok(predicate.trips(&input, context))
}

/// What `#[tool(check_in_evidence = function)]` emits: `function`, typed by the tool's input
/// `I`, run on the call's arguments as the contract accepted them.
#[doc(hidden)]
pub fn evidence_with<I: serde::de::DeserializeOwned, Shape>(
    arguments: &str,
    evidence: impl EvidenceOf<I, Shape>,
) -> Result<String, String> {
    let input: I = strict::read(arguments).map_err(|refused| refused.error.to_string())?;
    Ok(evidence.evidence(&input))
}

/// The `check-in` gate: asks a person when the tool's check-in trips on the call's accepted
/// arguments, with the tool's evidence. A check-in that cannot decide (its predicate cannot read
/// the input, or panics) asks a person too, saying why: it never lets the call run unasked.
pub(crate) struct CheckInGate {
    pub(crate) check_in: CheckIn,
    pub(crate) evidence: Option<EvidenceFn>,
}

/// Why a person is asked when a check-in trips.
const CHECKS_IN: &str = "the tool checks in with a person before this call";

impl Stage for CheckInGate {
    fn name(&self) -> &str {
        "check-in"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        let context = call.context();
        let arguments = call.arguments();
        let name = self.check_in.describe();
        let why = match catch_unwind(AssertUnwindSafe(|| {
            self.check_in.trips(arguments, &context)
        })) {
            Ok(Ok(false)) => return Check::Now(Verdict::Pass),
            Ok(Ok(true)) => CHECKS_IN.to_owned(),
            Ok(Err(unread)) => {
                format!("the check-in `{name}` could not read the call's input: {unread}")
            }
            Err(panic) => format!(
                "the check-in `{name}` could not decide: it panicked: {}",
                panic_message(&*panic)
            ),
        };
        let evidence = self.evidence.map(|evidence| {
            match catch_unwind(AssertUnwindSafe(|| evidence(arguments))) {
                Ok(Ok(text)) => text,
                Ok(Err(e)) => format!("(the evidence could not be built: {e})"),
                Err(panic) => format!(
                    "(the evidence could not be built: it panicked: {})",
                    panic_message(&*panic)
                ),
            }
        });
        Check::Now(Verdict::Ask(AskPerson {
            why: Some(why),
            evidence,
        }))
    }
}
