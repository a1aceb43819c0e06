//! An agent whose tools are MCP tools over the official filesystem server.
//!
//! ```text
//! cargo run --example mcp_notes                 # notes in target/mcp-notes
//! NOTES_DIR=/path/to/notes cargo run --example mcp_notes
//! cargo run --example mcp_notes -- describe
//! ```
//!
//! The server is `@modelcontextprotocol/server-filesystem`, started with `npx` (which fetches it
//! from npm the first time), allowed to read and write only under `NOTES_DIR`. As in the desk,
//! a provider key in the environment (`OPENAI_API_KEY`, ...) makes the agent talk to that model;
//! without one it runs on a scripted model.

use std::process::ExitCode;
use std::sync::Arc;

use agboss::config::Config;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::{Answer, RunOutcome};
use agboss::{Application, Workflow};
use serde_json::json;

/// The providers looked for, the variable that enables each, and the model then used.
const PROVIDERS: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GEMINI_API_KEY", "google/gemini-2.5-flash"),
    ("OPENROUTER_API_KEY", "moonshotai/kimi-k2.6"),
];

/// The official filesystem server, confined to the notes directory.
#[mcp_server(
    name = "notes-fs",
    command = "npx",
    args = ["-y", "@modelcontextprotocol/server-filesystem@2026.8.31", "${NOTES_DIR}"],
    tools = ["read_text_file", "write_file", "list_directory"],
    env = ["NOTES_DIR"],
)]
pub struct NotesFs;

/// A note's file name.
#[dto]
pub struct NoteName {
    /// The note's file name, such as `dentist.md`.
    pub name: String,
}

/// A note to save.
#[dto]
pub struct NewNote {
    /// The note's file name, such as `dentist.md`.
    pub name: String,
    /// What the note says.
    pub text: String,
}

/// Nothing: the tool takes no arguments.
#[dto]
pub struct Nothing {}

/// The filesystem server's arguments: absolute paths under the notes directory.
#[dto]
pub struct PathArguments {
    /// The absolute path of the file or directory.
    path: String,
    /// The text to write, for `write_file`.
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<String>,
}

fn notes_dir() -> String {
    std::env::var("NOTES_DIR")
        .unwrap_or_else(|_| format!("{}/../../target/mcp-notes", env!("CARGO_MANIFEST_DIR")))
}

/// The absolute path of note `name`, refusing names that leave the directory.
fn path_of(name: &str) -> Result<String, ToolError> {
    if name.is_empty() || name.contains('/') || name.contains("..") {
        return Err(ToolError::new(format!(
            "`{name}` is not a note's file name: no slashes, no `..`"
        )));
    }
    Ok(format!("{}/{name}", notes_dir()))
}

#[mcp_tool(name = "read-note-tool", description = "Reads one of the user's notes", server = NotesFs, calls = "read_text_file", read_only = true)]
pub struct ReadNote {
    notes: McpClient<NotesFs>,
}

impl ToolHandler for ReadNote {
    type Input = NoteName;
    type Output = PlainText;

    async fn run(&self, input: NoteName) -> Result<PlainText, ToolError> {
        let arguments = PathArguments {
            path: path_of(&input.name)?,
            content: None,
        };
        self.notes.call(&arguments).await
    }
}

#[mcp_tool(name = "save-note-tool", description = "Saves a note for the user", server = NotesFs, calls = "write_file")]
pub struct SaveNote {
    notes: McpClient<NotesFs>,
}

impl ToolHandler for SaveNote {
    type Input = NewNote;
    type Output = PlainText;

    async fn run(&self, input: NewNote) -> Result<PlainText, ToolError> {
        let arguments = PathArguments {
            path: path_of(&input.name)?,
            content: Some(input.text),
        };
        self.notes.call(&arguments).await
    }
}

#[mcp_tool(name = "list-notes-tool", description = "Lists the user's notes", server = NotesFs, calls = "list_directory", read_only = true)]
pub struct ListNotes {
    notes: McpClient<NotesFs>,
}

impl ToolHandler for ListNotes {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, _: Nothing) -> Result<PlainText, ToolError> {
        let arguments = PathArguments {
            path: notes_dir(),
            content: None,
        };
        self.notes.call(&arguments).await
    }
}

#[agent(
    name = "notes",
    description = "Keeps the user's notes in files",
    prompt = "notes.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [ReadNote, SaveNote, ListNotes],
)]
pub struct Notes;

#[tokio::main]
async fn main() -> ExitCode {
    let dir = notes_dir();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("cannot create the notes directory {dir}: {e}");
        return ExitCode::FAILURE;
    }
    // The model of the first provider whose key is set; the notes agent is sent to it.
    let provider = PROVIDERS
        .iter()
        .find(|(variable, _)| std::env::var_os(variable).is_some())
        .map(|(_, model)| *model);
    let mut builder = Application::builder("mcp-notes")
        .workflow(Workflow::new("notes").agent::<Notes>())
        .env(agboss::app::Env::process().with("NOTES_DIR", dir.clone()));
    if let Some(model) = provider {
        let toml = format!("[agents.notes]\nmodel = {model:?}\n");
        builder = builder.config(Config::from_toml("the environment", &toml));
    } else {
        builder = builder.chat_model(Arc::new(ScriptedModel::new([
            Turn::call(
                "save-note-tool",
                json!({"name": "dentist.md", "text": "Dentist on Tuesday at 9"}),
            ),
            Turn::text("Saved dentist.md.").expect_tool_result("Successfully wrote"),
            Turn::call("list-notes-tool", json!({})),
            Turn::call("read-note-tool", json!({"name": "dentist.md"}))
                .expect_tool_result("dentist.md"),
            Turn::text("Your dentist appointment is on Tuesday at 9.")
                .expect_tool_result("Tuesday at 9"),
        ])));
    }
    let app = match builder.build() {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    if let Some(command) = agboss::cli::command() {
        return command.run(&app).await;
    }
    match provider {
        Some(model) => println!("model: {model}"),
        None => println!(
            "no model provider configured (set OPENAI_API_KEY, ...): running on a scripted model"
        ),
    }
    println!("notes directory: {dir} (starting the filesystem server; npx may fetch it first)");
    if let Err(problems) = app.start_mcp_servers().await {
        eprintln!("{problems}");
        return ExitCode::FAILURE;
    }
    let mut status = ExitCode::SUCCESS;
    for question in [
        "Remember: the dentist is on Tuesday at 9.",
        "When is the dentist?",
    ] {
        println!("\nnotes <- {question}");
        match app
            .run("notes", question)
            .on_tool_end(|end| println!("  · {} ({}) -> {}", end.tool, end.source, end.content))
            .await
        {
            Ok(RunOutcome::Completed(outcome)) => match outcome.answer {
                Answer::Text(text) => println!("notes -> {text}"),
                Answer::Structured(value) => println!("notes -> {value}"),
            },
            Ok(RunOutcome::Paused(paused)) => {
                eprintln!(
                    "notes waits for {} answers, which this example never gives",
                    paused.pending.len()
                );
                status = ExitCode::FAILURE;
            }
            Ok(RunOutcome::Elsewhere(_)) => {
                eprintln!("notes goes on in another instance, which this example never starts");
                status = ExitCode::FAILURE;
            }
            Err(error) => {
                eprintln!("notes failed: {error}");
                status = ExitCode::FAILURE;
                break;
            }
        }
    }
    app.shutdown().await;
    status
}
