use agboss::prelude::*;

#[dto]
pub struct NoteInput {
    pub text: String,
}

#[channel_role(
    name = "note-approval-channel",
    description = "Approves notes",
    answered_by = ThreadOwner,
    approves = NoteInput,
)]
pub struct NoteApproval;

#[tool(name = "note-save-tool", description = "Saves a note", asks = [NoteApproval])]
pub struct NoteSave {
    questions: Questions,
}

impl ToolHandler for NoteSave {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        let _ = &self.questions;
        Ok(PlainText::new(input.text))
    }
}

fn main() {}
