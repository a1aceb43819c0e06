use agboss::prelude::*;

#[mcp_server(name = "notes-http", url = "http://127.0.0.1:3001/mcp", args = ["--verbose"], tools = ["read_text_file"])]
pub struct NotesHttp;

fn main() {}
