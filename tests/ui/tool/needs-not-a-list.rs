use agboss::prelude::*;

#[dto]
pub struct Query {
    pub query: String,
}

/// Opens an issue.
#[tool(name = "open-issue-tool", needs = "github")]
pub struct OpenIssue {
    credentials: Credentials,
}

impl ToolHandler for OpenIssue {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        let _ = self.credentials.get("github");
        Ok(input)
    }
}

fn main() {}
