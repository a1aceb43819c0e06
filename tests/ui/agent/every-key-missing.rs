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

#[agent(tools = [SearchJobs])]
pub struct JobScout;

fn main() {}
