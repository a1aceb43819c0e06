use agboss::prelude::*;
use agboss::units::kilobytes;
#[dto]
pub struct Note {
    pub text: String,
}

/// Keeps a note.
#[tool(name = "keep-note-tool", max_argument_size = kilobytes(0))]
pub struct KeepNote;

impl ToolHandler for KeepNote {
    type Input = Note;
    type Output = Note;

    async fn run(&self, input: Note) -> Result<Note, ToolError> {
        Ok(input)
    }
}

fn main() {}
