//! A tool described only by its doc comment: the model reads the doc's text.
#![deny(warnings)]

use agboss::prelude::*;
use agboss::tool::Tool;

/// Words to look for.
#[dto]
pub struct Query {
    /// The words.
    pub query: String,
}

/// Searches the team's issues.
///
/// Call it before filing a new one.
#[tool(name = "search-issues-tool")]
pub struct SearchIssues;

/// For the reader of the code, not the model.
#[tool(name = "described-tool", description = "What the model reads")]
pub struct Described;

macro_rules! echo {
    ($($ty:ty),*) => {$(
        impl ToolHandler for $ty {
            type Input = Query;
            type Output = Query;

            async fn run(&self, input: Query) -> Result<Query, ToolError> {
                Ok(input)
            }
        }
    )*};
}

echo!(SearchIssues, Described);

fn main() {
    assert_eq!(
        SearchIssues::DESCRIPTOR.description(),
        "Searches the team's issues.\n\nCall it before filing a new one."
    );
    assert_eq!(Described::DESCRIPTOR.description(), "What the model reads");
}
