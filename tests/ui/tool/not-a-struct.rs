use agboss::prelude::*;

#[tool(name = "search-issues-tool", description = "Search the team's issues")]
pub fn search_issues() {}

fn main() {}
