//! The built-in channels approve calls of any tool: a tool names one as is, whatever its input.
#![deny(warnings)]

use agboss::channel::{AutoApproveChannel, AutoRejectChannel, TerminalUserChannel};
use agboss::prelude::*;
use agboss::tool::Tool;

/// A note.
#[dto]
pub struct Note {
    /// Its text.
    pub text: String,
}

/// Saves a note at once.
#[tool(name = "note-save-tool", channel = AutoApproveChannel)]
pub struct NoteSave;

impl ToolHandler for NoteSave {
    type Input = Note;
    type Output = PlainText;

    async fn run(&self, input: Note) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(input.text))
    }
}

/// Deletes everything, never.
#[tool(name = "delete-all-tool", channel = AutoRejectChannel)]
pub struct DeleteAll;

impl ToolHandler for DeleteAll {
    type Input = PlainText;
    type Output = PlainText;

    async fn run(&self, input: PlainText) -> Result<PlainText, ToolError> {
        Ok(input)
    }
}

/// Sends a message, asking the person at the terminal first.
#[tool(name = "send-message-tool", channel = agboss::channel::TerminalUserChannel)]
pub struct SendMessage;

impl ToolHandler for SendMessage {
    type Input = Note;
    type Output = Note;

    async fn run(&self, input: Note) -> Result<Note, ToolError> {
        Ok(input)
    }
}

fn main() {
    let role = |d: &'static agboss::tool::ToolDescriptor| d.approval().map(|a| a.role());
    assert_eq!(role(NoteSave::DESCRIPTOR), Some("auto-approve-channel"));
    assert_eq!(role(DeleteAll::DESCRIPTOR), Some("auto-reject-channel"));
    assert_eq!(role(SendMessage::DESCRIPTOR), Some("terminal-user-channel"));
    let _ = TerminalUserChannel;
}
