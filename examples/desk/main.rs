//! The desk: an application with two agents, `notes` and `scout`.
//!
//! ```text
//! cargo run --example desk               # asks the agents three questions
//! cargo run --example desk -- describe   # who can use which tool, with what limits
//! cargo run --example desk -- describe --json
//! ```
//!
//! With a provider's key in the environment (`OPENAI_API_KEY`, `ANTHROPIC_API_KEY`,
//! `GEMINI_API_KEY`, `OPENROUTER_API_KEY`), or `DESK_LOCAL_URL` naming an OpenAI-compatible
//! server (llama.cpp, Ollama), the agents talk to that model (`DESK_MODEL` picks another);
//! with none the desk says so and runs on a scripted model. `NOTES_FILE` names the notes file,
//! `JOBS_FILE` the job board; `DESK_CONFIG` may name a TOML configuration file.

mod models;
mod notes;
mod scout;

use std::process::ExitCode;
use std::sync::Arc;

use agboss::run::{Answer, RunOutcome};
use agboss::units::kilobytes;
use agboss::{Application, Config, ToolDefaults, Workflow};

use models::Models;
use notes::{NotesAgent, NotesFile};
use scout::{JobBoard, Scout};

fn desk(models: &Models) -> Result<Application, agboss::AssemblyError> {
    let mut builder = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent::<NotesAgent>().agent::<Scout>())
        .provide_from_env::<NotesFile>()
        .provide_from_env::<JobBoard>()
        .defaults(ToolDefaults::new().max_result_size(kilobytes(64)));
    match models {
        Models::Scripted(model) => builder = builder.chat_model(Arc::new(model.clone())),
        Models::Provider { config, .. } => builder = builder.config(config.clone()),
    }
    if let Some(path) = std::env::var_os("DESK_CONFIG") {
        builder = builder.config(Config::load(path));
    }
    builder.build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let models = models::from_env();
    let app = match desk(&models) {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(command) = agboss::cli::command() {
        return command.run(&app);
    }
    match &models {
        Models::Scripted(_) => println!(
            "no model provider configured (set OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY or DESK_LOCAL_URL): running on a scripted model"
        ),
        Models::Provider { model, .. } => println!("model: {model}"),
    }
    if let Err(problems) = app.check_environment() {
        eprintln!("{problems}");
        return ExitCode::FAILURE;
    }
    let questions = [
        ("notes", "Remember: the dentist is on Tuesday at 9."),
        ("notes", "When is my dentist appointment?"),
        ("scout", "Find me remote Rust jobs."),
    ];
    for (agent, question) in questions {
        println!("\n{agent} <- {question}");
        let run = app
            .run("desk", question)
            .agent(agent)
            .thread("desk-thread")
            .owner("desk-user")
            .on_tool_end(|end| println!("  · {} -> {}", end.tool, end.content));
        match run.await {
            Ok(RunOutcome::Completed(outcome)) => {
                let answer = match &outcome.answer {
                    Answer::Text(text) => text.clone(),
                    Answer::Structured(value) => value.to_string(),
                };
                println!(
                    "{agent} -> {answer}\n  ({} tool calls, {} tokens, {})",
                    outcome.tool_calls,
                    outcome.usage.total(),
                    outcome.spend
                );
            }
            Ok(RunOutcome::Paused(paused)) => {
                println!(
                    "{agent} waits for {} answers (execution {})",
                    paused.pending.len(),
                    paused.execution_id
                );
            }
            Err(error) => {
                eprintln!("{agent} failed: {error}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
