use agboss::prelude::*;

#[dto]
pub struct NoteInput {
    pub text: String,
}

#[tool(name = "note-save-tool", description = "Saves a note", asks = NoteQuestion)]
pub struct NoteSave;

#[tool(name = "note-read-tool", description = "Reads a note", asks = [NoteQuestion, "note"])]
pub struct NoteRead;

impl ToolHandler for NoteSave {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

impl ToolHandler for NoteRead {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

fn main() {}
