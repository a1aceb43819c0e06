use agboss::prelude::*;

#[mcp_server(name = "notes-fs")]
pub struct NotesFs;

fn main() {}
