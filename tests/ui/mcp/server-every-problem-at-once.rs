use agboss::prelude::*;

#[mcp_server(
    name = "Notes FS",
    command = "node",
    url = "http://127.0.0.1:3001/mcp",
    tools = ["read_text_file", "read_text_file"],
    env = ["notes dir"],
)]
pub struct NotesFs;

fn main() {}
