// #[mcp_tool(name = "read-note-tool" , server = NotesServer , calls = "read_text_file" , input = NotePath , output = PlainText)]
// # [doc = r" Reads one of the user's notes."] pub struct ReadNote ;

/// Reads one of the user's notes.
pub struct ReadNote {
    #[doc(hidden)]
    __agboss_mcp: ::agboss::__private::McpClient<NotesServer>,
}
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_DEPENDENCIES: [::agboss::__private::DependencySpec; 1usize] = [
        ::agboss::__private::DependencySpec::new(
            "__agboss_mcp",
            "McpClient<NotesServer>",
            <::agboss::__private::McpClient<
                NotesServer,
            > as ::agboss::__private::Dependency>::requirement,
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_DESCRIPTOR: ::agboss::__private::ToolDescriptor = ::agboss::__private::ToolDescriptor::new(
            "read-note-tool",
            "Reads one of the user's notes.",
            "ReadNote",
            ::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            ::agboss::__private::tool_input_schema::<ReadNote>,
            ::agboss::__private::tool_output_schema::<ReadNote>,
        )
        .with_remote(
            ::agboss::__private::mcp_remote_tool(
                <NotesServer as ::agboss::__private::McpServer>::DESCRIPTOR,
                "read_text_file",
            ),
        )
        .with_dependencies(&__AGBOSS_DEPENDENCIES);
    #[automatically_derived]
    impl ::agboss::__private::Tool for ReadNote {
        const DESCRIPTOR: &'static ::agboss::__private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;
        fn build(
            __agboss_scope: &::agboss::__private::Scope<'_>,
        ) -> ::core::result::Result<Self, ::agboss::__private::DependencyError> {
            ::core::result::Result::Ok(Self {
                __agboss_mcp: match <::agboss::__private::McpClient<
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
    #[automatically_derived]
    impl ::agboss::__private::ToolHandler for ReadNote {
        type Input = NotePath;
        type Output = PlainText;
        async fn run(
            &self,
            input: NotePath,
        ) -> ::core::result::Result<PlainText, ::agboss::__private::ToolError> {
            self.__agboss_mcp.call::<NotePath, PlainText>(&input).await
        }
    }
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::ToolRegistration::of:: < ReadNote > ()
    }
};
