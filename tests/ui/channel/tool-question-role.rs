use agboss::prelude::*;

#[dto]
pub struct NoteInput {
    pub text: String,
}

#[dto]
pub struct BudgetAnswer {
    pub cents: u64,
}

#[channel_role(
    name = "budget-question-channel",
    description = "Asks the owner for a budget",
    answered_by = ThreadOwner,
    ask = NoteInput,
    answer = BudgetAnswer,
)]
pub struct BudgetQuestion;

#[tool(name = "note-save-tool", description = "Saves a note", channel = BudgetQuestion)]
pub struct NoteSave;

impl ToolHandler for NoteSave {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

fn main() {}
