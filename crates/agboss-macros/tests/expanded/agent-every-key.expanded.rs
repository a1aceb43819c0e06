// #[agent(name = "job-scout" , description = "Finds jobs that fit the user" , prompts = ["scout.prompt.md" , "rules.prompt.md"] , model = "openai/gpt-5-mini" , tools = [SearchIssues , web :: FetchPage] , max_tool_calls = 12 , thinking = "low" , history_turns = 3 , history_summaries = 4 , output = JobList , tool_choice = "required" , first_turn_tool_choice = "search-issues-tool" , max_turns = 9 , answer_retries = 1 , crate = my :: agboss)]
// pub struct Scout ;

///Finds jobs that fit the user
pub struct Scout;
#[allow(non_upper_case_globals, clippy::all)]
const _: () = {
    #[doc(hidden)]
    static __AGBOSS_TOOLS: [my::agboss::__private::ToolRegistration; 2usize] = [
        my::agboss::__private::ToolRegistration::of::<SearchIssues>(),
        my::agboss::__private::ToolRegistration::of::<web::FetchPage>(),
    ];
    #[doc(hidden)]
    static __AGBOSS_PROMPTS: [my::agboss::__private::PromptFile; 2usize] = [
        my::agboss::__private::PromptFile::new(
            "scout.prompt.md",
            ::core::include_str!("scout.prompt.md"),
        ),
        my::agboss::__private::PromptFile::new(
            "rules.prompt.md",
            ::core::include_str!("rules.prompt.md"),
        ),
    ];
    #[doc(hidden)]
    static __AGBOSS_AGENT: my::agboss::__private::AgentDescriptor = my::agboss::__private::AgentDescriptor::new(
            "job-scout",
            "Finds jobs that fit the user",
            "Scout",
            my::agboss::__private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            "openai/gpt-5-mini",
            &__AGBOSS_PROMPTS,
            &__AGBOSS_TOOLS,
        )
        .with_thinking(my::agboss::__private::Thinking::Low)
        .with_history(my::agboss::__private::History::new(3u32, 4u32))
        .with_max_tool_calls(12u32)
        .with_tool_choice("required")
        .with_first_turn_tool_choice("search-issues-tool")
        .with_max_turns(9u32)
        .with_answer_retries(1u32)
        .with_answer(
            my::agboss::__private::AnswerSpec::of::<JobList>("answer-job-list"),
        );
    #[automatically_derived]
    impl my::agboss::__private::Agent for Scout {
        const DESCRIPTOR: &'static my::agboss::__private::AgentDescriptor = &__AGBOSS_AGENT;
    }
    my::agboss::__private::inventory::submit! {
        my::agboss::__private::AgentRegistration::of:: < Scout > ()
    }
};
