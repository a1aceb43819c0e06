//! What the tests of the agent loop (test_agents.rs, test_answers.rs) share: the search tool's
//! words and findings, the judge's structured answer, and an agent's run that fails.

// Each test file that includes this module uses a part of it.
#![allow(dead_code)]

use agboss::Application;
use agboss::prelude::*;
use agboss::run::RunError;

#[dto]
pub struct Words {
    /// Words to look for.
    pub words: String,
}

#[dto]
pub struct Found {
    /// What was found.
    pub found: Vec<String>,
}

/// The structured answer.
#[dto]
pub struct Verdict {
    /// The verdict.
    pub ok: bool,
    /// Why.
    #[schemars(length(min = 3))]
    pub reason: String,
}

/// `input` run by `agent` of the workflow `desk`, which fails.
pub async fn failed(app: &Application, agent: &str, input: &str) -> RunError {
    app.run("desk", input).agent(agent).await.unwrap_err()
}
