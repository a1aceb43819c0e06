use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

/// Searches the logs.
#[tool(name = "search-logs-tool", result_ceiling = 65536, ceiling_hint = "ask for one day at a time")]
pub struct SearchLogs;

impl ToolHandler for SearchLogs {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
