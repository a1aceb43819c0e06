//! A question role read by code, an approval role read by a decision model, both with an expiry,
//! `answered_by` written both ways, and a channel for each, without a warning.
#![deny(warnings)]

use agboss::channel::{DecisionModel, InterpretContext, ReplyInterpretation, ReplyInterpreter};
use agboss::prelude::*;
use agboss::units::{minutes, seconds};

/// What the owner is asked.
#[dto]
pub struct BudgetAsk {
    /// The project.
    pub project: String,
}

/// What the owner answers.
#[dto]
pub struct BudgetAnswer {
    /// The budget, in cents.
    pub cents: u64,
}

/// Reads "200 dollars" as a budget of 20,000 cents.
#[derive(Default)]
pub struct BudgetReader;

impl ReplyInterpreter<BudgetQuestion> for BudgetReader {
    async fn interpret(
        &self,
        _: &BudgetAsk,
        reply: &str,
        _: &InterpretContext,
    ) -> ReplyInterpretation<BudgetAnswer> {
        match reply
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
        {
            Some(dollars) => ReplyInterpretation::Answer(BudgetAnswer {
                cents: dollars * 100,
            }),
            None => ReplyInterpretation::Unclear("the reply names no amount".into()),
        }
    }
}

/// Asks the thread's owner for a project's budget.
#[channel_role(
    name = "budget-question-channel",
    ask = BudgetAsk,
    answer = BudgetAnswer,
    answered_by = ThreadOwner,
    reply_interpreter = BudgetReader,
    expires_after = minutes(1440),
)]
pub struct BudgetQuestion;

/// A note to save.
#[dto]
pub struct NoteInput {
    /// The note.
    pub text: String,
}

/// Reads a manager's reply with a model that may only approve or refuse.
#[derive(Default)]
pub struct NoteDecider;

impl DecisionModel for NoteDecider {
    const MODEL: &'static str = "openai/gpt-5-mini";
}

#[channel_role(
    name = "note-approval-channel",
    description = "Approves saved notes",
    approves = NoteInput,
    answered_by = PauseAnswerer::ThreadOwner,
    reply_interpreter = NoteDecider,
    expires_after = seconds(90),
)]
pub struct NoteApproval;

/// Posts the question where the owner reads it; the answer comes later.
#[channel(name = "inbox-budget-channel")]
pub struct InboxBudget {
    clock: Clock,
}

impl ChannelHandler for InboxBudget {
    type Role = BudgetQuestion;

    async fn send(
        &self,
        ask: ChannelAsk<BudgetQuestion>,
    ) -> Result<ChannelOutcome<BudgetQuestion>, ToolError> {
        let _ = (self.clock.now(), ask.value.project, ask.pause_id);
        Ok(ChannelOutcome::await_reply())
    }
}

/// Approves short notes at once, waits for the owner on longer ones.
#[channel(name = "short-note-approval-channel")]
pub struct ShortNotes(ExecutionContext);

impl ChannelHandler for ShortNotes {
    type Role = NoteApproval;

    async fn send(
        &self,
        ask: ChannelAsk<NoteApproval>,
    ) -> Result<ChannelOutcome<NoteApproval>, ToolError> {
        let _ = self.0.execution_id();
        if ask.value.arguments.text.len() < 100 {
            return Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()));
        }
        Ok(ChannelOutcome::await_reply())
    }
}

fn main() {
    use agboss::channel::{Channel, ChannelRole, RoleForm};

    let role = BudgetQuestion::DESCRIPTOR;
    assert_eq!(role.form(), RoleForm::Question);
    assert_eq!(role.answered_by(), PauseAnswerer::ThreadOwner);
    assert_eq!(role.description(), "Asks the thread's owner for a project's budget.");
    assert_eq!(role.expires_after(), Some(minutes(1440)));
    assert!(role.interpreter().unwrap().rust_type().ends_with("BudgetReader"));
    let notes = NoteApproval::DESCRIPTOR;
    assert_eq!(notes.form(), RoleForm::Approval { approves: "NoteInput" });
    assert_eq!(notes.expires_after(), Some(seconds(90)));
    assert_eq!(InboxBudget::DESCRIPTOR.role().name(), "budget-question-channel");
    assert_eq!(InboxBudget::DESCRIPTOR.description(), "Posts the question where the owner reads it; the answer comes later.");
    assert_eq!(ShortNotes::DESCRIPTOR.dependencies()[0].field(), "0");
}
