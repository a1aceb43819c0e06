use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

#[dto]
pub struct Path {
    pub path: String,
}

#[mcp_tool(
    name = "read-note-tool",
    description = "Reads a note",
    server = NotesFs,
    calls = "read_text_file",
    input = Path,
    output = PlainText,
    asks = [NoteQuestion]
)]
pub struct ReadNote;

fn main() {}
