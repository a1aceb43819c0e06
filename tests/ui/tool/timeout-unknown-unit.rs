use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

use agboss::units::seconds;

#[tool(name = "search-issues-tool", description = "Search", timeout = weeks(1))]
pub struct SearchIssues;

impl ToolHandler for SearchIssues {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
