use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

#[tool(name = "search-jobs-tool", description = "Searches jobs")]
pub struct SearchJobs;

impl ToolHandler for SearchJobs {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

#[agent(name = "a-job-scout-that-reads-every-board-in-every-city-and-never-ever-sleeps", description = "Finds jobs", prompt = "scout.prompt.md", model = "moonshotai/kimi-k2.6")]
pub struct Scout;

fn main() {}
