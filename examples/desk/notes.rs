//! The notes agent and its tools, on a local notes file (one JSON object per line).

use std::path::PathBuf;
use std::sync::Arc;

use agboss::app::{Env, FromEnv};
use agboss::prelude::*;
use agboss::units::{kilobytes, seconds};
use tokio::io::AsyncWriteExt;
use tokio::sync::Mutex;

use crate::approval::NoteApproval;

/// A saved note.
#[dto]
pub struct Note {
    /// The note's text, in the user's words.
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

/// The notes file, named by `NOTES_FILE` (default `target/desk-notes.jsonl`). Writes are
/// serialized so that concurrent calls never interleave lines.
pub struct NotesFile {
    path: PathBuf,
    write: Mutex<()>,
}

impl FromEnv for NotesFile {
    const VARIABLES: &'static [&'static str] = &["NOTES_FILE"];

    fn from_env(env: &Env) -> Result<Self, String> {
        let path = env
            .get("NOTES_FILE")
            .unwrap_or_else(|| "target/desk-notes.jsonl".into());
        Ok(NotesFile {
            path: PathBuf::from(path),
            write: Mutex::new(()),
        })
    }
}

impl NotesFile {
    async fn all(&self) -> Result<Vec<String>, ToolError> {
        let text = match tokio::fs::read_to_string(&self.path).await {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e.into()),
        };
        text.lines()
            .filter(|line| !line.trim().is_empty())
            .enumerate()
            .map(|(i, line)| {
                serde_json::from_str::<Note>(line)
                    .map(|note| note.text)
                    .map_err(|e| {
                        ToolError::new(format!("line {} of the notes file is damaged: {e}", i + 1))
                    })
            })
            .collect()
    }

    async fn append(&self, text: &str) -> Result<usize, ToolError> {
        let _guard = self.write.lock().await;
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
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
    read_only = true,
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

/// Waits for the user's approval before it saves (`NoteApproval`).
#[tool(
    name = "note-save-tool",
    description = "Save a note for the user",
    timeout = seconds(5),
    channel = NoteApproval,
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

/// agboss's own guides: how tools, agents, MCP servers, pauses and stores are written and run.
#[knowledge(name = "docs-rag", folder = "docs")]
pub struct DocsRag;

#[agent(
    name = "notes",
    description = "Keeps the user's notes",
    prompt = "notes.prompt.md",
    model = "moonshotai/kimi-k2.6",
    tools = [NoteSearch, NoteSave],
    knowledge = [DocsRag],
    history_turns = 5,
    history_summaries = 10,
)]
pub struct NotesAgent;
