//! The desk: a notes assistant's tools on a local notes file.
//!
//! ```text
//! cargo run --example desk
//! ```
//!
//! The notes file is named by the environment variable `NOTES_FILE` (default:
//! `target/desk-notes.jsonl`). This example calls the tools the way the agent loop does and
//! prints what a model would read; the agents that call them come with the application.

use std::path::PathBuf;
use std::sync::Arc;

use agboss::context::{Execution, Step};
use agboss::deps::Providers;
use agboss::prelude::*;
use agboss::tool::{CallFrame, Invoker, ToolEnv};
use agboss::units::{kilobytes, seconds};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;

/// A saved note.
#[dto]
pub struct Note {
    /// The note's text.
    pub text: String,
}

/// What to look for in the notes.
#[dto]
pub struct NoteQuery {
    /// Words the notes must contain; empty lists every note.
    pub words: String,
}

/// The notes found.
#[dto]
pub struct Notes {
    /// The matching notes, oldest first.
    pub notes: Vec<String>,
}

/// Whether a note was saved.
#[dto]
pub struct Saved {
    /// How many notes the file now holds.
    pub total: usize,
}

/// The notes file: one JSON object per line. Writes are serialized so that concurrent calls
/// never interleave lines.
pub struct NotesFile {
    path: PathBuf,
    write: Mutex<()>,
}

impl NotesFile {
    /// The file the environment variable `variable` names, or `default`.
    pub fn from_env(variable: &str, default: &str) -> NotesFile {
        NotesFile {
            path: std::env::var_os(variable).map_or_else(|| PathBuf::from(default), PathBuf::from),
            write: Mutex::new(()),
        }
    }

    async fn all(&self) -> Result<Vec<String>, ToolError> {
        let text = match tokio::fs::read_to_string(&self.path).await {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e.into()),
        };
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| {
                serde_json::from_str::<Note>(line)
                    .map(|note| note.text)
                    .map_err(|e| ToolError::new(format!("the notes file has a damaged line: {e}")))
            })
            .collect()
    }

    async fn append(&self, text: &str) -> Result<usize, ToolError> {
        let _guard = self.write.lock().await;
        if let Some(dir) = self.path.parent() {
            tokio::fs::create_dir_all(dir).await?;
        }
        let mut line = serde_json::to_string(&Note { text: text.into() })?;
        line.push('\n');
        let mut file = tokio::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .await?;
        file.write_all(line.as_bytes()).await?;
        file.flush().await?;
        Ok(self.all().await?.len())
    }
}

#[tool(
    name = "note-search-tool",
    description = "Find the user's saved notes that contain some words",
    timeout = seconds(5),
    max_result_size = kilobytes(64),
)]
pub struct NoteSearch {
    notes: Arc<NotesFile>,
}

impl ToolHandler for NoteSearch {
    type Input = NoteQuery;
    type Output = Notes;

    async fn run(&self, NoteQuery { words }: NoteQuery) -> Result<Notes, ToolError> {
        let words: Vec<String> = words.split_whitespace().map(str::to_lowercase).collect();
        let notes = self
            .notes
            .all()
            .await?
            .into_iter()
            .filter(|note| {
                let note = note.to_lowercase();
                words.iter().all(|w| note.contains(w.as_str()))
            })
            .collect();
        Ok(Notes { notes })
    }
}

#[tool(
    name = "note-save-tool",
    description = "Save a note for the user",
    timeout = seconds(5),
)]
pub struct NoteSave {
    notes: Arc<NotesFile>,
}

impl ToolHandler for NoteSave {
    type Input = Note;
    type Output = Saved;

    async fn run(&self, Note { text }: Note) -> Result<Saved, ToolError> {
        if text.trim().is_empty() {
            return Err(ToolError::new("a note needs some text"));
        }
        Ok(Saved {
            total: self.notes.append(&text).await?,
        })
    }
}

#[tokio::main]
async fn main() {
    let notes = NotesFile::from_env("NOTES_FILE", "target/desk-notes.jsonl");
    println!("notes file: {}", notes.path.display());
    let mut providers = Providers::new();
    providers.provide(Arc::new(notes));
    let env = ToolEnv::new(Arc::new(providers), Clock::system());
    let save = Invoker::<NoteSave>::new(env.clone());
    let search = Invoker::<NoteSearch>::new(env);

    let execution = Execution::builder("desk-1")
        .thread("t-1")
        .owner("u-1")
        .build();
    let frame = |n: u32| {
        CallFrame::new(
            execution.clone(),
            Step::new("notes", 1, format!("call_{n}")),
        )
    };
    let calls = [
        ("note-save-tool", r#"{"text": "Dentist on Tuesday at 9"}"#),
        ("note-save-tool", r#"{"text": "Buy oat milk"}"#),
        ("note-save-tool", r#"{"text": "   "}"#),
        ("note-search-tool", r#"{"words": "dentist"}"#),
        ("note-search-tool", r#"{"word": "milk"}"#),
    ];
    for (n, (tool, arguments)) in (1..).zip(calls) {
        let outcome = match tool {
            "note-save-tool" => save.invoke(arguments, &frame(n)).await,
            _ => search.invoke(arguments, &frame(n)).await,
        };
        println!("{tool} {arguments}\n  -> {}", outcome.content);
    }
}
