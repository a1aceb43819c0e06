//! Agents in every form compile without a warning, and a workflow takes them.
#![deny(warnings)]

use agboss::prelude::*;
use agboss::agent::Agent;
use agboss::units::{kilobytes, minutes};
use agboss::{Application, Workflow};

/// Words to look for.
#[dto]
pub struct Query {
    /// The words.
    pub query: String,
}

/// A structured answer.
#[dto]
pub struct JobList {
    /// The jobs found.
    pub jobs: Vec<String>,
}

#[tool(name = "search-jobs-tool", description = "Searches jobs", read_only = true)]
pub struct SearchJobs;

impl ToolHandler for SearchJobs {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

#[agent(
    name = "scout",
    description = "Finds jobs",
    prompt = "scout.prompt.md",
    model = "moonshotai/kimi-k2.6",
    tools = [SearchJobs],
    max_tool_calls = 4,
    thinking = "low",
    history_turns = 3,
    history_summaries = 1,
    history_max_size = kilobytes(8),
    output = JobList,
    max_duration = minutes(2),
)]
pub struct Scout;

/// An agent with no tools and two prompt files.
#[agent(
    name = "greeter",
    description = "Says hello",
    prompts = ["scout.prompt.md", "scout.prompt.md"],
    model = "openai/gpt-5-mini",
)]
pub struct Greeter;

fn main() {
    assert_eq!(Scout::DESCRIPTOR.answer().unwrap().tool_name(), "answer-job-list");
    assert_eq!(Greeter::DESCRIPTOR.tools().len(), 0);
    assert_eq!(Scout::DESCRIPTOR.history_max_size(), Some(kilobytes(8)));
    assert_eq!(Scout::DESCRIPTOR.max_duration(), Some(minutes(2)));
    let app = Application::builder("jobs")
        .workflow(Workflow::new("search").agent::<Scout>().agent::<Greeter>())
        .build()
        .unwrap();
    assert_eq!(app.workflows()[0].agents().len(), 2);
}
