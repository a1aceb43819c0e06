// #[mcp_tool(name = "read-notes-tool" , description = "Reads one of the user's notes" , server = NotesServer , calls = "read_text_file" , timeout = seconds (10) , channel = NoteApproval)]
// pub struct ReadNotes { notes : McpClient < NotesServer > , }

///Reads one of the user's notes
pub struct ReadNotes {
    notes: McpClient<NotesServer>,
}
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_DEPENDENCIES: [::agboss::__private::DependencySpec; 1usize] = [
        ::agboss::__private::DependencySpec::new(
            "notes",
            "McpClient<NotesServer>",
            <McpClient<NotesServer> as ::agboss::__private::Dependency>::requirement,
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_DESCRIPTOR: ::agboss::__private::ToolDescriptor = ::agboss::__private::ToolDescriptor::new(
            "read-notes-tool",
            "Reads one of the user's notes",
            "ReadNotes",
            ::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            ::agboss::__private::tool_input_schema::<ReadNotes>,
            ::agboss::__private::tool_output_schema::<ReadNotes>,
        )
        .with_timeout(seconds(10u64))
        .with_approval(
            ::agboss::__private::approval_for::<
                NoteApproval,
                <ReadNotes as ::agboss::__private::ToolHandler>::Input,
            >(),
        )
        .with_remote(
            ::agboss::__private::mcp_remote_tool(
                <NotesServer as ::agboss::__private::McpServer>::DESCRIPTOR,
                "read_text_file",
            ),
        )
        .with_dependencies(&__AGBOSS_DEPENDENCIES);
    #[automatically_derived]
    impl ::agboss::__private::Tool for ReadNotes {
        const DESCRIPTOR: &'static ::agboss::__private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;
        fn build(
            __agboss_scope: &::agboss::__private::Scope<'_>,
        ) -> ::core::result::Result<Self, ::agboss::__private::DependencyError> {
            ::core::result::Result::Ok(Self {
                notes: match <McpClient<
                    NotesServer,
                > as ::agboss::__private::Dependency>::resolve(__agboss_scope) {
                    ::core::result::Result::Ok(value) => value,
                    ::core::result::Result::Err(why) => {
                        return ::core::result::Result::Err(
                            __AGBOSS_DESCRIPTOR.unresolved(0usize, why),
                        );
                    }
                },
            })
        }
    }
    const _: () = ::core::assert!(
        ::agboss::__private::mcp_declares(< NotesServer as ::agboss::__private::McpServer
        > ::DESCRIPTOR, "read_text_file"),
        "[mcp.undeclared-tool] this tool calls `read_text_file` of server `NotesServer`, which its #[mcp_server] does not declare: add it to `tools = [..]`"
    );
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::ToolRegistration::of:: < ReadNotes > ()
    }
};
