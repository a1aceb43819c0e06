//! The desk: an application with two agents, `notes` and `scout`.
//!
//! ```text
//! cargo run --example desk               # calls the desk's tools the way its agents do
//! cargo run --example desk -- describe   # who can use which tool, with what limits
//! cargo run --example desk -- describe --json
//! ```
//!
//! `NOTES_FILE` names the notes file, `JOBS_FILE` the job board; `DESK_CONFIG` may name a TOML
//! configuration file (see agboss::config).

mod notes;
mod scout;

use std::process::ExitCode;

use agboss::config::Config;
use agboss::context::{Execution, Step};
use agboss::prelude::*;
use agboss::tool::CallFrame;
use agboss::units::kilobytes;

use notes::{NotesAgent, NotesFile};
use scout::{JobBoard, Scout};

fn desk() -> Result<Application, agboss::AssemblyError> {
    let mut builder = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent::<NotesAgent>().agent::<Scout>())
        .provide_from_env::<NotesFile>()
        .provide_from_env::<JobBoard>()
        .defaults(ToolDefaults::new().max_result_size(kilobytes(64)));
    if let Some(path) = std::env::var_os("DESK_CONFIG") {
        builder = builder.config(Config::load(path));
    }
    builder.build()
}

#[tokio::main]
async fn main() -> ExitCode {
    let app = match desk() {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(command) = agboss::cli::command() {
        return command.run(&app);
    }
    if let Err(problems) = app.check_environment() {
        eprintln!("{problems}");
        return ExitCode::FAILURE;
    }
    let desk = app.workflow("desk").expect("the desk workflow");
    if let Ok(notes) = desk.tool_env().providers().get::<NotesFile>() {
        println!("notes file: {}", notes.path().display());
    }
    let execution = Execution::builder("desk-1")
        .thread("t-1")
        .owner("u-1")
        .workflow("desk")
        .build();
    let calls = [
        (
            "notes",
            "note-save-tool",
            r#"{"text": "Dentist on Tuesday at 9"}"#,
        ),
        ("notes", "note-save-tool", r#"{"text": "   "}"#),
        ("notes", "note-search-tool", r#"{"words": "dentist"}"#),
        ("notes", "note-search-tool", r#"{"word": "milk"}"#),
        (
            "scout",
            "greenhouse-jobs-tool",
            r#"{"words": "rust remote"}"#,
        ),
    ];
    for (n, (agent, tool, arguments)) in (1..).zip(calls) {
        let tool = desk
            .agent(agent)
            .and_then(|a| a.tool(tool))
            .expect("a tool of the desk");
        let frame = CallFrame::new(execution.clone(), Step::new(agent, 1, format!("call_{n}")));
        let outcome = tool.tool().invoke(arguments, &frame).await;
        println!(
            "{agent} · {} {arguments}\n  -> {}",
            tool.descriptor().name(),
            outcome.content
        );
    }
    ExitCode::SUCCESS
}
