//! What a watched run tells as it goes: [`RunEvent`]s, sent by the loop to the
//! [`RunStream`](crate::app::RunStream) of `app.run(..).stream()`.
//!
//! Events are for watching: none is journaled, and a run that is resumed (after a crash, a
//! pause) is the same whether it was watched or not. The journal still records whole steps.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::{RunError, RunOutcome};
use crate::context::Progress;
use crate::model::ChatDelta;

/// One thing that happened in a watched run.
///
/// For one turn, in this order: the model's text as it comes ([`Text`](Self::Text)); then its
/// tool calls, which run side by side, so that their events interleave as they happen: each
/// call's [`ToolStarted`](Self::ToolStarted) (once its arguments are accepted) comes before its
/// [`ToolProgress`](Self::ToolProgress) and its [`ToolEnded`](Self::ToolEnded) (once its result
/// is journaled); then, every call of the turn ended, the next turn. [`Finished`](Self::Finished)
/// is always last, and comes once.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunEvent {
    /// Text the model wrote in turn `turn`, as it came.
    Text {
        /// The model turn, from 1.
        turn: u32,
        /// The piece.
        text: String,
    },
    /// The model call of turn `turn` failed after some text came and is tried again: the text
    /// of that turn so far is void.
    TextRestarted {
        /// The model turn.
        turn: u32,
    },
    /// A tool call starts: its arguments were accepted and every gate passed. A call refused
    /// before (invalid arguments, an approval refused) only ends.
    ToolStarted {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// The arguments, as the model sent them and the contract accepted them.
        arguments: serde_json::Value,
    },
    /// A running tool call reported how far it has got.
    ToolProgress {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// What it said.
        progress: Progress,
    },
    /// A tool call ended (its result journaled).
    ToolEnded {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// Whether it failed.
        is_error: bool,
        /// Whether what the model reads was cut to the bound.
        is_result_truncated: bool,
        /// What the model reads of it: bounded, masked, ending with the marker when cut.
        content: String,
    },
    /// A call waits for an answer from outside: its pause is journaled and its channel asked
    /// whoever answers (an approval, or a question the tool asked while it ran). The run goes
    /// on with its other calls, then ends paused; the answer comes by `resume`.
    PauseWaiting {
        /// The pause's id, what the answer names: for a pause the thread's owner answers. A
        /// pause its channel answers has none here: its id is the right to answer it, and
        /// only its channel hands it on (docs/pauses.md).
        pause_id: Option<String>,
        /// Who answers it.
        answered_by: crate::channel::PauseAnswerer,
        /// The call it holds back.
        call_id: String,
        /// The call's tool.
        tool: String,
        /// The role whose answer it waits for.
        role: String,
    },
    /// The run ended, paused or failed: what awaiting it would have returned.
    Finished(Result<RunOutcome, RunError>),
}

/// The events of watched runs, each with the id of its execution (empty for a run watched
/// alone, whose id its watcher knows).
pub(crate) type Events = mpsc::UnboundedReceiver<(Arc<str>, RunEvent)>;

/// Where the loop sends a watched run's events.
#[derive(Clone, Debug)]
pub(crate) struct EventSink {
    sender: mpsc::UnboundedSender<(Arc<str>, RunEvent)>,
    execution_id: Arc<str>,
}

impl EventSink {
    /// A sink for one run, and the receiving end.
    pub(crate) fn new() -> (EventSink, Events) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let sink = EventSink {
            sender,
            execution_id: Arc::from(""),
        };
        (sink, receiver)
    }

    /// A sink that sends execution `execution_id`'s events where this one sends.
    pub(crate) fn for_execution(&self, execution_id: &str) -> EventSink {
        EventSink {
            sender: self.sender.clone(),
            execution_id: Arc::from(execution_id),
        }
    }

    /// Sends `event`; a watcher that went away is not an error.
    pub(crate) fn send(&self, event: RunEvent) {
        let _ = self.sender.send((self.execution_id.clone(), event));
    }

    /// The event of model delta `delta` in turn `turn`, if it makes one.
    pub(crate) fn delta(&self, turn: u32, delta: ChatDelta<'_>) {
        match delta {
            ChatDelta::Text(text) => self.send(RunEvent::Text {
                turn,
                text: text.to_owned(),
            }),
            ChatDelta::Restart => self.send(RunEvent::TextRestarted { turn }),
            // A call is told when it starts running, its arguments whole and accepted.
            ChatDelta::ToolCall { .. } => {}
        }
    }
}
