// #[agent(name = "JobScout" , prompts = ["a.md" , 3] , model = "gpt" , tools = [1] , max_tool_calls = 0 , thinking = "extreme")]
// pub struct Scout < T > (T) ;

pub struct Scout<T>(T);
::core::compile_error! {
    "[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\""
}
::core::compile_error! {
    "#[agent] needs a description, which says what the agent does: add a doc comment (`/// Finds jobs that fit the user`) or `description = \"...\"`"
}
::core::compile_error! {
    "a prompt is a file name in quotes"
}
::core::compile_error! {
    "[agent.model-invalid] model \"gpt\" is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\""
}
::core::compile_error! {
    "a tool is named by its type: `SearchIssues`"
}
::core::compile_error! {
    "[agent.max-tool-calls-invalid] agent `JobScout`: max tool calls of 0 would stop it before its first call: give at least 1"
}
::core::compile_error! {
    "`extreme` is not a thinking level: use one of \"default\", \"off\", \"low\", \"medium\", \"high\""
}
::core::compile_error! {
    "an agent is a unit struct (`pub struct Scout;`): its tools, prompt and model are in the attribute"
}
::core::compile_error! {
    "an agent cannot be generic"
}
