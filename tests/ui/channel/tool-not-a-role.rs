use agboss::prelude::*;

#[dto]
pub struct NoteInput {
    pub text: String,
}

pub struct Manager;

#[tool(name = "note-save-tool", description = "Saves a note", channel = Manager)]
pub struct NoteSave;

impl ToolHandler for NoteSave {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

fn main() {}
