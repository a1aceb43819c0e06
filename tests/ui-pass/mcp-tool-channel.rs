//! `#[mcp_tool(.., channel = ..)]`: a tool of an MCP server that waits for approval, with the
//! handler the macro writes and with one of its own.
#![deny(warnings)]

use agboss::channel::AutoApproveChannel;
use agboss::prelude::*;
use agboss::tool::Tool;

/// A notes server.
#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["write_file", "read_text_file"])]
pub struct NotesFs;

/// A file to write.
#[dto]
pub struct WriteFile {
    /// Where.
    pub path: String,
    /// What.
    pub content: String,
}

/// Approves writes of the notes server.
#[channel_role(
    name = "write-approval-channel",
    approves = WriteFile,
    answered_by = Channel,
)]
pub struct WriteApproval;

/// Writes a note, once approved.
#[mcp_tool(
    name = "write-note-tool",
    server = NotesFs,
    calls = "write_file",
    input = WriteFile,
    output = PlainText,
    channel = WriteApproval,
)]
pub struct WriteNote;

/// A note's path.
#[dto]
pub struct NotePath {
    /// The path.
    pub path: String,
}

/// Reads a note, approved at once.
#[mcp_tool(
    name = "read-note-tool",
    server = NotesFs,
    calls = "read_text_file",
    channel = AutoApproveChannel,
)]
pub struct ReadNote {
    notes: McpClient<NotesFs>,
}

impl ToolHandler for ReadNote {
    type Input = NotePath;
    type Output = PlainText;

    async fn run(&self, input: NotePath) -> Result<PlainText, ToolError> {
        self.notes.call(&input).await
    }
}

fn main() {
    assert_eq!(
        WriteNote::DESCRIPTOR.approval().map(|a| a.role()),
        Some("write-approval-channel")
    );
    assert_eq!(
        ReadNote::DESCRIPTOR.approval().map(|a| a.role()),
        Some("auto-approve-channel")
    );
}
