use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

#[dto]
pub struct Path {
    pub path: String,
}

/// Written for the model, but not readable from the server's JSON answer.
#[derive(agboss::__private::serde::Serialize, agboss::__private::schemars::JsonSchema)]
#[serde(crate = "agboss::__private::serde")]
#[schemars(crate = "agboss::__private::schemars")]
pub struct Note {
    pub text: String,
}

/// Reads a note.
#[mcp_tool(name = "read-note-tool", server = NotesFs, calls = "read_text_file", input = Path, output = Note)]
pub struct ReadNote;

fn main() {}
