use agboss::prelude::*;
use agboss::units::millis;

#[dto]
pub struct Query {
    pub query: String,
}

/// Looks up.
#[tool(name = "none-tool", retries = 0)]
pub struct NoRetries;

impl ToolHandler for NoRetries {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

/// Looks up.
#[tool(name = "many-tool", retries = 11)]
pub struct ManyRetries;

impl ToolHandler for ManyRetries {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

/// Looks up.
#[tool(name = "words-tool", retries = "twice")]
pub struct WordRetries;

impl ToolHandler for WordRetries {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

/// Looks up.
#[tool(name = "backoff-tool", retry_backoff = millis(500))]
pub struct BackoffAlone;

impl ToolHandler for BackoffAlone {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

fn main() {}
