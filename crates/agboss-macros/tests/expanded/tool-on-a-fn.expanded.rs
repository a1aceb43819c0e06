// #[tool(name = "search-issues-tool")]
// pub fn search_issues () { }

pub fn search_issues() {}
::core::compile_error! {
    "#[tool] goes on a struct: its fields are the tool's dependencies, and its `ToolHandler` impl is the code"
}
