use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[dto]
pub struct NoteInput {
    pub text: String,
}

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    approves = RefundInput,
    answered_by = Channel,
)]
pub struct RefundApproval;

#[tool(name = "note-save-tool", description = "Saves a note", channel = RefundApproval)]
pub struct NoteSave;

impl ToolHandler for NoteSave {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

fn main() {}
