// #[mcp_server(name = "notes-fs" , command = "npx" , args = ["-y" , "@modelcontextprotocol/server-filesystem" , "${NOTES_DIR}"] , tools = ["read_text_file" , "write_file"] , env = ["NOTES_DIR"] , crate = my :: agboss)]
// pub struct NotesServer ;

/// The MCP server `notes-fs`, with the tools `read_text_file`, `write_file`.
pub struct NotesServer;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_TOOLS: [&str; 2usize] = ["read_text_file", "write_file"];
    #[doc(hidden)]
    static __AGBOSS_ARGS: [&str; 3usize] = [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "${NOTES_DIR}",
    ];
    #[doc(hidden)]
    static __AGBOSS_ENV: [&str; 1usize] = ["NOTES_DIR"];
    #[doc(hidden)]
    static __AGBOSS_SERVER: my::agboss::__private::McpServerDescriptor = my::agboss::__private::McpServerDescriptor::new(
            "notes-fs",
            "NotesServer",
            my::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            my::agboss::__private::McpTransport::Stdio {
                command: "npx",
                args: &__AGBOSS_ARGS,
            },
            &__AGBOSS_TOOLS,
        )
        .with_env(&__AGBOSS_ENV);
    #[automatically_derived]
    impl my::agboss::__private::McpServer for NotesServer {
        const DESCRIPTOR: &'static my::agboss::__private::McpServerDescriptor = &__AGBOSS_SERVER;
    }
    my::agboss::__private::inventory::submit! {
        my::agboss::__private::McpServerRegistration::of:: < NotesServer > ()
    }
};
