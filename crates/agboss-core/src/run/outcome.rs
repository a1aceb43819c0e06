//! [`RunOutcome`]: how a run stopped well: with an answer, waiting for one, or going on in
//! another instance.

use serde_json::Value;

use crate::channel::PauseAnswerer;
use crate::journal::Answer;
use crate::model::Usage;
use crate::units::Usd;

/// How a run stopped without an error: it answered, or it waits for a decision.
#[derive(Clone, Debug, PartialEq)]
pub enum RunOutcome {
    /// The agent answered.
    Completed(Completed),
    /// A call waits for a decision; nothing of the run stays in memory: answer with
    /// `Application::resume`, in this process or another reading the same store.
    Paused(Paused),
    /// Another instance holds the execution's lease and drives it: this one did nothing more
    /// (an answer given to `resume` is journaled; the holder goes on with it).
    Elsewhere(Elsewhere),
}

/// An execution that another instance drives.
#[derive(Clone, Debug, PartialEq)]
pub struct Elsewhere {
    /// The execution.
    pub execution_id: String,
    /// The instance that holds its lease, as the store says.
    pub holder: Option<String>,
}

/// A run that answered.
#[derive(Clone, Debug, PartialEq)]
pub struct Completed {
    /// The execution.
    pub execution_id: String,
    /// The answer.
    pub answer: Answer,
    /// Tokens the loop's model calls used.
    pub usage: Usage,
    /// Everything the execution spent: model calls and what tools recorded.
    pub spend: Usd,
    /// Each cost, in the order it was recorded: model calls (`tool: None`) and tools' costs.
    pub spent: Vec<crate::spend::SpendEntry>,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Model answers.
    pub turns: u32,
}

/// A run that waits.
#[derive(Clone, Debug, PartialEq)]
pub struct Paused {
    /// The execution.
    pub execution_id: String,
    /// The open pauses its thread's owner answers. Pauses a channel answers are not listed:
    /// their id is the right to answer, and only the channel holds it.
    pub pending: Vec<PendingPause>,
}

/// One pause the thread's owner may answer.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingPause {
    /// Its id: what `Resume::decision` and `Resume::reply` take.
    pub pause_id: String,
    /// The call it holds back.
    pub call_id: String,
    /// The tool called.
    pub tool: String,
    /// The role asked.
    pub role: String,
    /// Who answers (always the thread's owner here).
    pub answered_by: PauseAnswerer,
    /// The owner.
    pub owner: Option<String>,
    /// The question, as the channel received it.
    pub question: Value,
}

impl RunOutcome {
    /// The execution.
    pub fn execution_id(&self) -> &str {
        match self {
            RunOutcome::Completed(done) => &done.execution_id,
            RunOutcome::Paused(paused) => &paused.execution_id,
            RunOutcome::Elsewhere(elsewhere) => &elsewhere.execution_id,
        }
    }

    /// The answer's text, if the run answered in text.
    pub fn text(&self) -> Option<&str> {
        self.completed().and_then(Completed::text)
    }

    /// The run's end, if it answered.
    pub fn completed(&self) -> Option<&Completed> {
        match self {
            RunOutcome::Completed(done) => Some(done),
            RunOutcome::Paused(_) | RunOutcome::Elsewhere(_) => None,
        }
    }

    /// The run's end if it answered, else how it stands.
    pub fn into_completed(self) -> Result<Completed, Box<RunOutcome>> {
        match self {
            RunOutcome::Completed(done) => Ok(done),
            other => Err(Box::new(other)),
        }
    }

    /// What it waits for, if it is paused.
    pub fn paused(&self) -> Option<&Paused> {
        match self {
            RunOutcome::Paused(paused) => Some(paused),
            RunOutcome::Completed(_) | RunOutcome::Elsewhere(_) => None,
        }
    }
}

impl Completed {
    /// The answer's text, if it is text.
    pub fn text(&self) -> Option<&str> {
        match &self.answer {
            Answer::Text(text) => Some(text),
            Answer::Structured(_) => None,
        }
    }
}
