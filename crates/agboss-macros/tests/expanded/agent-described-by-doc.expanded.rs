// #[agent(name = "notes" , prompt = "notes.prompt.md" , model = "moonshotai/kimi-k2.6")]
// # [doc = r" Keeps the user's notes."] pub struct Notes ;

/// Keeps the user's notes.
pub struct Notes;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_TOOLS: [::agboss::__private::ToolRegistration; 0usize] = [];
    #[doc(hidden)]
    static __AGBOSS_PROMPTS: [::agboss::__private::PromptFile; 1usize] = [
        ::agboss::__private::PromptFile::new(
            "notes.prompt.md",
            ::core::include_str!("notes.prompt.md"),
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_AGENT: ::agboss::__private::AgentDescriptor = ::agboss::__private::AgentDescriptor::new(
            "notes",
            "Keeps the user's notes.",
            "Notes",
            ::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            "moonshotai/kimi-k2.6",
            &__AGBOSS_PROMPTS,
            &__AGBOSS_TOOLS,
        )
        .with_thinking(::agboss::__private::Thinking::Default)
        .with_history(::agboss::__private::History::new(5u32, 10u32));
    #[automatically_derived]
    impl ::agboss::__private::Agent for Notes {
        const DESCRIPTOR: &'static ::agboss::__private::AgentDescriptor = &__AGBOSS_AGENT;
    }
    ::agboss::__private::inventory::submit! {
        ::agboss::__private::AgentRegistration::of:: < Notes > ()
    }
};
