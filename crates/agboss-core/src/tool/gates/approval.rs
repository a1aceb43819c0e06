//! The `approval` gate and the `questions` gate: the people a call may wait for.
//!
//! A tool that names its own role and has no check-in asks that role about every call; a
//! person asked by any gate before (a checker's `Ask`, a check-in that tripped) is asked
//! through the tool's own role, else through the application's check-in role, in one
//! question. A tool that asks questions of a role the thread's owner answers cannot run in an
//! execution without an owner: nobody could answer.

use crate::tool::ToolFailure;
use crate::tool::pipeline::{AskPerson, Check, GateCall, Part, Stage, Verdict};

/// The `approval` gate of a tool that may ask a person: its own role asks about every call
/// when it has no check-in to say when.
pub(crate) struct ApprovalGate;

impl Stage for ApprovalGate {
    fn name(&self) -> &str {
        "approval"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        let tool = call.tool();
        Check::Now(
            match tool.approval().is_some() && tool.check_in().is_none() {
                true => Verdict::Ask(AskPerson::default()),
                false => Verdict::Pass,
            },
        )
    }
}

/// The `questions` gate of a tool that asks questions of roles its thread's owner answers
/// (`owner_roles`): refused in an execution without an owner.
pub(crate) struct QuestionsGate {
    pub(crate) owner_roles: Vec<&'static str>,
}

impl Stage for QuestionsGate {
    fn name(&self) -> &str {
        "questions"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        if call.execution().owner_id().is_some() || self.owner_roles.is_empty() {
            return Check::Now(Verdict::Pass);
        }
        Check::Now(Verdict::Refuse(ToolFailure::Refused(format!(
            "this call may ask role `{}`, which the thread's owner answers, and this execution has no owner: nobody could answer, so it does not run",
            self.owner_roles.join("`, `")
        ))))
    }
}
