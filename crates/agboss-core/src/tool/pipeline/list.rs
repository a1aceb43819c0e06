//! [`Pipeline`]: the stages of one tool's calls in their order, built once, and how its rules
//! are run on a result.
//!
//! The order is one table, [`GATE_ORDER`] then [`RULE_ORDER`]: a stage is placed by its name,
//! whatever the order it was added in, and a stage whose name is not in the table is a
//! middleware, placed at [`MIDDLEWARE`] in the order the application added them.
//! docs/tools.md ("The call's pipeline") shows the same table, and a test holds the two alike.

use std::sync::Arc;

use super::{CallEnd, Place, Stage, Then, ToolOutput};
use crate::tool::artifacts::artifact_call::mint;
use crate::tool::{ArtifactShelf, ToolFailure};
use crate::units::TimeSpan;

/// Where the application's middleware goes among the gates and among the rules.
pub const MIDDLEWARE: &str = "middleware";

/// The gates, in the order a call passes them.
pub const GATE_ORDER: &[&str] = &[
    "arguments",
    "permission",
    "check-in",
    "approval",
    "questions",
    MIDDLEWARE,
    "credentials",
];

/// The rules, in the order they shape a result.
pub const RULE_ORDER: &[&str] = &[
    "ceiling", "artifact", "bound", "mask", MIDDLEWARE, "retries", "fatal", "notes",
];

/// The stages of one tool's calls, gates then rules, each list in the table's order. Cloning
/// is cheap.
#[derive(Clone, Default)]
pub struct Pipeline {
    /// Every stage, as given.
    stages: Arc<[Arc<dyn Stage>]>,
    gates: Arc<[Arc<dyn Stage>]>,
    rules: Arc<[Arc<dyn Stage>]>,
    /// Where the gates made in the call's own task begin.
    in_call: usize,
    /// Whether a gate other than `arguments` is the gatekeeper's.
    gated: bool,
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline")
            .field("gates", &self.gates().collect::<Vec<_>>())
            .field("rules", &self.rules().collect::<Vec<_>>())
            .finish()
    }
}

/// What running the rules on a result came to.
#[derive(Debug)]
pub(crate) enum Finish {
    /// The result is what the model reads; the run ends with `ends` after it is journaled,
    /// when a rule said so.
    Done {
        /// What the model reads.
        output: ToolOutput,
        /// The code and message the run ends with.
        ends: Option<(String, String)>,
    },
    /// The call runs again after this long; `output` is this try's result.
    Retry(ToolOutput, TimeSpan),
}

impl Pipeline {
    /// A pipeline of `stages`, each placed by its name (see the module's table).
    pub fn of(stages: impl IntoIterator<Item = Arc<dyn Stage>>) -> Pipeline {
        let stages: Vec<Arc<dyn Stage>> = stages.into_iter().collect();
        let mut gates: Vec<Arc<dyn Stage>> = stages
            .iter()
            .filter(|s| s.part().gates())
            .cloned()
            .collect();
        let mut rules: Vec<Arc<dyn Stage>> = stages
            .iter()
            .filter(|s| s.part().rules())
            .cloned()
            .collect();
        // Stable: middleware keep the order they were added in.
        gates.sort_by_key(|s| slot(GATE_ORDER, s.name()));
        rules.sort_by_key(|s| slot(RULE_ORDER, s.name()));
        // A gate of the call's own task never comes before one of the gatekeeper's: the
        // gatekeeper's are decided before the call's intent is journaled.
        gates.sort_by_key(|s| s.place() == Place::Call);
        let in_call = gates
            .iter()
            .position(|s| s.place() == Place::Call)
            .unwrap_or(gates.len());
        let gated = gates[..in_call].iter().any(|s| s.name() != "arguments");
        Pipeline {
            stages: stages.into(),
            gates: gates.into(),
            rules: rules.into(),
            in_call,
            gated,
        }
    }

    /// The same with `stages` added, each in its place.
    pub fn with(&self, stages: impl IntoIterator<Item = Arc<dyn Stage>>) -> Pipeline {
        Pipeline::of(self.stages.iter().cloned().chain(stages))
    }

    /// The gates' names, in the order a call passes them.
    pub fn gates(&self) -> impl Iterator<Item = &str> {
        self.gates.iter().map(|s| s.name())
    }

    /// The rules' names, in the order they shape a result.
    pub fn rules(&self) -> impl Iterator<Item = &str> {
        self.rules.iter().map(|s| s.name())
    }

    /// Whether a gate besides `arguments` decides before the call's intent: only then does
    /// the gatekeeper read the call (the `arguments` gate alone is the call's own first step).
    pub(crate) fn is_gated(&self) -> bool {
        self.gated
    }

    /// The gatekeeper's gates, in order.
    pub(crate) fn gatekeeper(&self) -> &[Arc<dyn Stage>] {
        &self.gates[..self.in_call]
    }

    /// The gates of the call's own task, in order.
    pub(crate) fn in_call(&self) -> &[Arc<dyn Stage>] {
        &self.gates[self.in_call..]
    }

    /// Runs the rules on `output`, the result of call `end`, in order; keeps a result aside on
    /// `shelf` when the `artifact` rule says so (a call without a shelf keeps nothing aside).
    pub(crate) async fn finish(
        &self,
        end: &CallEnd<'_>,
        output: ToolOutput,
        shelf: Option<&dyn ArtifactShelf>,
    ) -> Finish {
        self.finish_from(Ruled::Done, 0, end, output, shelf, None)
            .await
    }

    /// [`finish`](Self::finish) where [`rule`](Self::rule) stopped with `stopped` (nothing ran
    /// yet when it starts at `from` 0 with `Done`), `ends` what the rules before said.
    pub(crate) async fn finish_from(
        &self,
        mut stopped: Ruled,
        mut from: usize,
        end: &CallEnd<'_>,
        mut output: ToolOutput,
        shelf: Option<&dyn ArtifactShelf>,
        mut ends: Option<(String, String)>,
    ) -> Finish {
        loop {
            if let Ruled::KeepAside(at, kind) = stopped {
                if let Some(shelf) = shelf {
                    output = keep_aside(end, &kind, output, shelf).await;
                }
                from = at + 1;
            }
            stopped = self.rule(from, end, &mut output, &mut ends);
            match stopped {
                Ruled::Done => return Finish::Done { output, ends },
                Ruled::Retry(after) => return Finish::Retry(output, after),
                Ruled::KeepAside(..) => {}
            }
        }
    }

    /// Runs the rules from the `from`-th on `output` in place, in order, until the last or one
    /// that asks for what needs waiting (keeping the result aside); a rule that ends the run
    /// says so in `ends`. What the rules of a call made on its own run, without waiting unless
    /// the result is kept aside.
    #[inline]
    pub(crate) fn rule(
        &self,
        from: usize,
        end: &CallEnd<'_>,
        output: &mut ToolOutput,
        ends: &mut Option<(String, String)>,
    ) -> Ruled {
        for (at, rule) in self.rules.iter().enumerate().skip(from) {
            match rule.after(end, output) {
                Then::Keep => {}
                Then::KeepAside(kind) => return Ruled::KeepAside(at, kind),
                Then::Retry(after) => return Ruled::Retry(after),
                Then::EndRun { code, message } => *ends = Some((code, message)),
            }
        }
        Ruled::Done
    }
}

/// Where running the rules stopped.
pub(crate) enum Ruled {
    /// Every rule ran.
    Done,
    /// The rule at this place asked to keep the result aside, as an artifact of this kind; the
    /// rules after it have not run.
    KeepAside(usize, crate::tool::ResultKind),
    /// The call runs again after this long.
    Retry(TimeSpan),
}

/// The place of a stage named `name` in `order`: a name the table does not hold is a
/// middleware's.
fn slot(order: &[&str], name: &str) -> usize {
    order
        .iter()
        .position(|n| *n == name)
        .or_else(|| order.iter().position(|n| *n == MIDDLEWARE))
        .unwrap_or(order.len())
}

/// `output` kept as an artifact of `kind` on `shelf`: the model reads its reference, which is
/// never cut (a bound shorter than it would lose the artifact).
async fn keep_aside(
    end: &CallEnd<'_>,
    kind: &crate::tool::ResultKind,
    output: ToolOutput,
    shelf: &dyn ArtifactShelf,
) -> ToolOutput {
    match mint(end.tool, kind, output.text, end.call_id, shelf).await {
        Ok(reference) => {
            let mut kept = ToolOutput::answered(reference);
            kept.exempt = true;
            kept
        }
        Err(failure) => ToolOutput::failed(failure),
    }
}

impl From<ToolFailure> for ToolOutput {
    fn from(failure: ToolFailure) -> ToolOutput {
        ToolOutput::failed(failure)
    }
}
