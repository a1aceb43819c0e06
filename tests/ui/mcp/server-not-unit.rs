use agboss::prelude::*;

#[mcp_server(name = "notes-fs", command = "node", args = "server.js", tools = ["read_text_file"])]
pub struct NotesFs {
    pub root: String,
}

fn main() {}
