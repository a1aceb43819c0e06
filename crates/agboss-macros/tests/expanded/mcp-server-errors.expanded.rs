// #[mcp_server(name = "Notes FS" , command = "npx" , url = "http://x/${HOST}" , tools = ["a" , "a" , 3] , env = ["notes dir"])]
// pub struct NotesServer { x : u8 , }

pub struct NotesServer {
    x: u8,
}
::core::compile_error! {
    "[name.kebab-case] server name \"Notes FS\" must be kebab-case: name it \"notes-fs\""
}
::core::compile_error! {
    "`tools` holds texts in quotes"
}
::core::compile_error! {
    "`a` is listed twice"
}
::core::compile_error! {
    "[config.env-name-invalid] \"notes dir\" is not the name of an environment variable: use letters, digits and `_`, not starting with a digit, such as \"NOTES_DIR\": give the variable's NAME, never its value"
}
::core::compile_error! {
    "[mcp.env-undeclared] `${HOST}` is not listed in `env`: add `env = [\"HOST\"]` so the application checks it is set before starting the server"
}
::core::compile_error! {
    "[mcp.transport] give `command` (stdio) or `url` (streamable HTTP), not both"
}
::core::compile_error! {
    "an MCP server is a unit struct (`pub struct NotesServer;`): its settings are in the attribute"
}
