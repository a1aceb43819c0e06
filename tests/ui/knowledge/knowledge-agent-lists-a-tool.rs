use agboss::prelude::*;

#[dto]
pub struct Query {
    /// Words.
    pub words: String,
}

/// Searches.
#[tool(name = "search-tool")]
pub struct Search;

impl ToolHandler for Search {
    type Input = Query;
    type Output = PlainText;

    async fn run(&self, input: Query) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.words))
    }
}

/// Answers.
#[agent(name = "helper", model = "openai/gpt-5-mini", prompt = "helper.prompt.md", knowledge = [Search])]
pub struct Helper;

fn main() {}
