//! The call that `invoke` measures whole and `contract_parts` measures in parts: the same input,
//! output and arguments on both sides.

use agboss::prelude::*;

/// The benchmark's input.
#[dto]
pub struct Query {
    /// Words to search for.
    pub query: String,
    /// How many items at most.
    #[schemars(range(min = 1))]
    pub limit: u32,
}

/// The benchmark's output.
#[dto]
pub struct Items {
    /// What was found.
    pub items: Vec<String>,
}

/// The arguments, as a model sends them.
pub const ARGUMENTS: &str = r#"{"query": "login timeout", "limit": 3}"#;
