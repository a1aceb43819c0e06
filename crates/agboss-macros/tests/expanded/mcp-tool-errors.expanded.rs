// #[mcp_tool(name = "read-note-tool" , input = NotePath , calls = "")]
// pub struct ReadNote ;

pub struct ReadNote;
::core::compile_error! {
    "`input` without `output`: give both and #[mcp_tool] writes the handler that passes the input to the server's tool, or give neither and write `impl ToolHandler`"
}
::core::compile_error! {
    "#[mcp_tool] needs `server`: add `server = NotesServer`, the #[mcp_server] type it calls"
}
::core::compile_error! {
    "#[mcp_tool] needs a description, which the model reads to decide when to call the tool: add a doc comment (`/// Searches the team's issues`) or `description = \"...\"`"
}
