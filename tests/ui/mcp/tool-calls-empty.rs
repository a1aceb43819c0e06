use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

#[dto]
pub struct Path {
    pub path: String,
}

#[mcp_tool(name = "read-note-tool", description = "Reads a note", server = NotesFs, calls = " ")]
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
