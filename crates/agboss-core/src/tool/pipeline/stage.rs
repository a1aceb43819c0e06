//! [`Stage`]: one step of a call's pipeline, a gate before its run or a rule after it, and what
//! each says: a gate's [`Verdict`], a rule's [`Then`].

use std::future::Future;
use std::pin::Pin;

use super::{CallEnd, GateCall, ToolOutput};
use crate::tool::{ResultKind, ToolFailure};
use crate::units::TimeSpan;

/// A gate's check that has to wait for something (a credential provider, a service of the
/// application's own).
pub type StageFuture<'a> = Pin<Box<dyn Future<Output = Verdict> + Send + 'a>>;

/// What a gate's check is: decided at once (most gates), or later.
pub enum Check<'a> {
    /// Decided.
    Now(Verdict),
    /// Decided when the future is.
    Later(StageFuture<'a>),
}

impl Check<'_> {
    /// The verdict, waited for if it is not decided yet.
    pub async fn verdict(self) -> Verdict {
        match self {
            Check::Now(verdict) => verdict,
            Check::Later(future) => future.await,
        }
    }
}

/// Which parts of the pipeline a stage takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// A gate: it checks the call before it runs.
    Gate,
    /// A rule: it shapes what the model reads of the call's result.
    Rule,
    /// Both: it sees the call before (and may refuse it) and its outcome after (a middleware).
    Both,
}

impl Part {
    /// Whether it checks calls before they run.
    pub fn gates(self) -> bool {
        matches!(self, Part::Gate | Part::Both)
    }

    /// Whether it sees what calls gave.
    pub fn rules(self) -> bool {
        matches!(self, Part::Rule | Part::Both)
    }
}

/// Where a gate's check is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// By the loop's gatekeeper, before the call's intent is journaled: a gate here may ask a
    /// person, and what it decides is journaled before anything acts on it.
    Gatekeeper,
    /// In the call's own task, after its intent is journaled and just before `run`: a gate
    /// here lets the call run or fails it.
    Call,
}

/// What a gate says of one call.
#[derive(Debug)]
pub enum Verdict {
    /// The call goes on to the next gate.
    Pass,
    /// The call does not run: the model reads `Tool error: <failure>`.
    Refuse(ToolFailure),
    /// A person is asked first: the call runs only once they approve. Only a gate of the
    /// gatekeeper may ask; every ask of one call becomes one question.
    Ask(AskPerson),
}

/// Why a person is asked about a call, and what they read beside it.
#[derive(Debug, Default)]
pub struct AskPerson {
    /// Why they are asked (`None`: the tool's own role asks about every call).
    pub why: Option<String>,
    /// What the tool gives the person to decide with (its `check_in_evidence`).
    pub evidence: Option<String>,
}

/// What a rule wants done with a call's result, beyond what it changed in place.
#[derive(Debug, PartialEq)]
pub enum Then {
    /// Nothing more.
    Keep,
    /// Keep the result aside as an artifact of this kind: the model reads its reference.
    KeepAside(ResultKind),
    /// Run the call again after this long on the application's clock (a transient error with
    /// tries left): this result is journaled as a try, not as the call's result.
    Retry(TimeSpan),
    /// The run ends with this code and message once the call's result is journaled, instead of
    /// the model reading it.
    EndRun {
        /// The code the run fails with.
        code: String,
        /// Its message.
        message: String,
    },
}

/// One stage of the pipeline a call of a tool passes: a gate before its run, a rule after it,
/// or both. Stages are values, built once per tool as an agent has it (at assembly), and run
/// the same way whether the run is awaited whole or watched as a stream. A gate that cannot
/// decide fails closed: it asks a person or refuses; it never lets the call run.
///
/// docs/tools.md ("The call's pipeline") has the table of every stage in its order.
pub trait Stage: Send + Sync + 'static {
    /// Its name in the pipeline table (`check-in`, `bound`), or a middleware's own.
    fn name(&self) -> &str;

    /// Which parts it takes.
    fn part(&self) -> Part;

    /// Where its check before the run is made (a rule's is never asked for).
    fn place(&self) -> Place {
        Place::Gatekeeper
    }

    /// Its check of `call` before it runs.
    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        let _ = call;
        Check::Now(Verdict::Pass)
    }

    /// What it makes of the call's result `output`; rules see it in the pipeline's order.
    fn after(&self, call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let _ = (call, output);
        Then::Keep
    }
}
