use agboss::prelude::*;

#[mcp_server(
    name = "notes-fs",
    command = "npx",
    args = ["-y", "@modelcontextprotocol/server-filesystem", "${NOTES_DIR}"],
    tools = ["read_text_file"],
)]
pub struct NotesFs;

fn main() {}
