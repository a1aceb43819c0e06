//! `#[mcp_server(.., elicitation = Role)]`: a server whose requests for input are asked through
//! a question role, and whose `#[mcp_tool]`s declare they ask it.
#![deny(warnings)]

use agboss::mcp::{ElicitationAnswer, ElicitationQuestion, McpServer};
use agboss::prelude::*;
use agboss::tool::Tool;

/// Answers what the notes server asks.
#[channel_role(
    name = "notes-input-channel",
    ask = ElicitationQuestion,
    answer = ElicitationAnswer,
    answered_by = ThreadOwner
)]
pub struct NotesInput;

/// A notes server that asks for input during its calls.
#[mcp_server(
    name = "notes-fs",
    command = "node",
    args = ["server.js"],
    tools = ["write_file"],
    elicitation = NotesInput,
)]
pub struct NotesFs;

/// A notes server that asks nothing.
#[mcp_server(name = "quiet-notes", command = "node", tools = ["write_file"])]
pub struct QuietNotes;

/// A file to write.
#[dto]
pub struct WriteFile {
    /// Where.
    pub path: String,
}

/// Writes a note.
#[mcp_tool(name = "write-note-tool", server = NotesFs, calls = "write_file", input = WriteFile, output = PlainText)]
pub struct WriteNote;

/// Writes a note quietly.
#[mcp_tool(name = "quiet-write-tool", server = QuietNotes, calls = "write_file", input = WriteFile, output = PlainText)]
pub struct QuietWrite;

fn main() {
    assert_eq!(
        NotesFs::DESCRIPTOR.elicitation().map(|r| r.role()),
        Some("notes-input-channel")
    );
    assert_eq!(WriteNote::DESCRIPTOR.asks()[0].role(), "notes-input-channel");
    assert!(QuietNotes::DESCRIPTOR.elicitation().is_none());
    assert!(QuietWrite::DESCRIPTOR.asks().is_empty());
}
