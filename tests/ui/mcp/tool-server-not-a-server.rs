use agboss::prelude::*;

pub struct NotAServer;

#[dto]
pub struct Path {
    pub path: String,
}

#[mcp_tool(name = "read-note-tool", description = "Reads a note", server = NotAServer, calls = "read_text_file")]
pub struct ReadNote;

impl ToolHandler for ReadNote {
    type Input = Path;
    type Output = PlainText;

    async fn run(&self, input: Path) -> Result<PlainText, ToolError> {
        Ok(PlainText { text: input.path })
    }
}

fn main() {}
