// #[mcp_server(name = "notes-http" , url = "http://127.0.0.1:3001/${PATH}" , tools = ["read_text_file"] , env = ["PATH"])]
// # [doc = r" Notes over HTTP."] pub struct NotesHttp ;

/// Notes over HTTP.
pub struct NotesHttp;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_TOOLS: [&str; 1usize] = ["read_text_file"];
    #[doc(hidden)]
    static __AGBOSS_ARGS: [&str; 0usize] = [];
    #[doc(hidden)]
    static __AGBOSS_ENV: [&str; 1usize] = ["PATH"];
    #[doc(hidden)]
    static __AGBOSS_SERVER: ::agboss::__private::McpServerDescriptor = ::agboss::__private::McpServerDescriptor::new(
            "notes-http",
            "NotesHttp",
            ::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            ::agboss::__private::McpTransport::Http {
                url: "http://127.0.0.1:3001/${PATH}",
            },
            &__AGBOSS_TOOLS,
        )
        .with_env(&__AGBOSS_ENV);
    #[automatically_derived]
    impl ::agboss::__private::McpServer for NotesHttp {
        const DESCRIPTOR: &'static ::agboss::__private::McpServerDescriptor = &__AGBOSS_SERVER;
    }
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::McpServerRegistration::of:: < NotesHttp > ()
    }
};
