use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

use agboss::units::kilobytes;

#[tool(name = "search-issues-tool", description = "Search", max_result_size = kilobytes(0.1))]
pub struct SearchIssues;

impl ToolHandler for SearchIssues {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
