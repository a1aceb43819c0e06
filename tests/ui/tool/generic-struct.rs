use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

#[tool(name = "search-issues-tool", description = "Search")]
pub struct SearchIssues<T> {
    api: std::sync::Arc<T>,
}

impl<T: Send + Sync + 'static> ToolHandler for SearchIssues<T> {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
