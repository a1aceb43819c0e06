//! [`ResumeError`]: why an answer to a pause was not taken, or what failed after it was.

use agboss_rules::codes::{self, Code};

use crate::run::RunError;
use crate::store::StoreError;

/// Why an answer was not taken, or what failed after it was. Every refusal but a store failure
/// leaves the pause open; a refusal of an open pause is audited (a `pause_answer_rejected` event
/// in the journal, and a warning in the traces).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("[{code}] {message}")]
pub struct ResumeError {
    code: String,
    message: String,
    /// The run that went on after the answer failed (the answer itself was taken).
    run: Option<Box<RunError>>,
    /// The store failed.
    store: Option<StoreError>,
}

impl ResumeError {
    /// Its code: `pause.unknown`, `pause.wrong-answerer`, `pause.already-answered`, ... for a
    /// refused answer; `store` when the store failed; for a run that went on after the answer
    /// and failed, the code that run failed with (`answer.empty`, `budgets.usd`, `lease.lost`,
    /// `cancelled`, `agents.<name>.limits.turns`, ...), as its journal says.
    pub fn code(&self) -> &str {
        &self.code
    }

    /// The error of the run that went on after the answer was taken, if that is what failed.
    pub fn run_error(&self) -> Option<&RunError> {
        self.run.as_deref()
    }

    /// Whether the answer was taken (journaled), and what failed is the run that went on.
    pub fn answer_was_taken(&self) -> bool {
        self.run.is_some()
    }

    pub(super) fn of(
        code: &'static Code,
        values: &[(&str, &dyn std::fmt::Display)],
    ) -> ResumeError {
        ResumeError {
            code: code.id().to_owned(),
            message: code.fill(values),
            run: None,
            store: None,
        }
    }

    pub(super) fn store(error: StoreError) -> ResumeError {
        ResumeError {
            code: codes::STORE.id().to_owned(),
            message: error.to_string(),
            run: None,
            store: Some(error),
        }
    }

    /// The run that went on after the answer failed with `error`: its own code and message.
    pub(super) fn run(error: RunError) -> ResumeError {
        let message = match &error {
            // Its display is `[code] message` already.
            RunError::Ended { message, .. } => message.clone(),
            other => other.to_string(),
        };
        ResumeError {
            code: error.code(),
            message,
            run: Some(Box::new(error)),
            store: None,
        }
    }
}

/// The error of a run that went on after its answer was taken, as [`Application::resume`]
/// gives it: for the outcome of a [`resume_stream`](crate::app::Application::resume_stream).
///
/// [`Application::resume`]: crate::app::Application::resume
impl From<RunError> for ResumeError {
    fn from(error: RunError) -> ResumeError {
        ResumeError::run(error)
    }
}
