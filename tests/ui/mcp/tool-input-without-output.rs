use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

#[dto]
pub struct Path {
    pub path: String,
}

/// Reads a note.
#[mcp_tool(name = "read-note-tool", server = NotesFs, calls = "read_text_file", input = Path)]
pub struct ReadNote;

fn main() {}
