//! The scout agent: finds jobs on the company's job board.

use std::path::PathBuf;
use std::sync::Arc;

use agboss::app::{Env, FromEnv};
use agboss::prelude::*;
use agboss::units::seconds;

/// One job opening.
#[dto]
pub struct Job {
    /// The role.
    pub title: String,
    /// Where it is.
    pub location: String,
    /// Where to apply.
    #[schemars(url)]
    pub url: String,
}

/// What to look for.
#[dto]
pub struct JobQuery {
    /// Words the title or place must contain, such as "rust remote".
    pub words: String,
}

/// The openings found.
#[dto]
pub struct Jobs {
    /// The matching openings.
    pub jobs: Vec<Job>,
}

/// The job board: a JSON list of openings in the file `JOBS_FILE` names (default: the sample
/// board next to this example).
pub struct JobBoard {
    path: PathBuf,
}

impl FromEnv for JobBoard {
    const VARIABLES: &'static [&'static str] = &["JOBS_FILE"];

    fn from_env(env: &Env) -> Result<Self, String> {
        let path = env.get("JOBS_FILE").map_or_else(
            || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/desk/jobs.json"),
            PathBuf::from,
        );
        Ok(JobBoard { path })
    }
}

#[tool(
    name = "greenhouse-jobs-tool",
    description = "Search the company's open jobs by title or place",
    timeout = seconds(10),
    read_only = true,
)]
pub struct GreenhouseJobs {
    board: Arc<JobBoard>,
}

impl ToolHandler for GreenhouseJobs {
    type Input = JobQuery;
    type Output = Jobs;

    async fn run(&self, JobQuery { words }: JobQuery) -> Result<Jobs, ToolError> {
        let text = tokio::fs::read_to_string(&self.board.path).await?;
        let all: Vec<Job> = serde_json::from_str(&text)
            .map_err(|e| ToolError::new(format!("the job board is not readable: {e}")))?;
        let words: Vec<String> = words.split_whitespace().map(str::to_lowercase).collect();
        let jobs = all
            .into_iter()
            .filter(|job| {
                let text = format!("{} {}", job.title, job.location).to_lowercase();
                words.iter().all(|w| text.contains(w.as_str()))
            })
            .collect();
        Ok(Jobs { jobs })
    }
}

/// Advice on looking for work: remote roles, what Rust teams ask for, how to apply.
#[knowledge(
    name = "career-rag",
    folder = "examples/desk/career",
    mode = "context",
    top_k = 3
)]
pub struct CareerRag;

#[agent(
    name = "scout",
    description = "Finds jobs",
    prompt = "scout.prompt.md",
    model = "moonshotai/kimi-k2.6",
    tools = [GreenhouseJobs],
    knowledge = [CareerRag],
    max_tool_calls = 4,
)]
pub struct Scout;
