use agboss::prelude::*;

#[tool(name = "search-issues-tool", description = "Search the team's issues")]
pub struct SearchIssues;

fn main() {}
