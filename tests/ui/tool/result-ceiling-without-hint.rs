use agboss::prelude::*;
use agboss::units::kilobytes;
#[dto]
pub struct Query {
    pub query: String,
}

/// Searches the logs.
#[tool(name = "search-logs-tool", result_ceiling = kilobytes(64))]
pub struct SearchLogs;

impl ToolHandler for SearchLogs {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
