// Given `input` and `output`, #[mcp_tool] writes the handler: a hand-written one conflicts.
use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

#[dto]
pub struct Path {
    pub path: String,
}

/// Reads a note.
#[mcp_tool(name = "read-note-tool", server = NotesFs, calls = "read_text_file", input = Path, output = PlainText)]
pub struct ReadNote {
    fs: McpClient<NotesFs>,
}

impl ToolHandler for ReadNote {
    type Input = Path;
    type Output = PlainText;

    async fn run(&self, input: Path) -> Result<PlainText, ToolError> {
        self.fs.call(&input).await
    }
}

fn main() {}
