//! [`ResumeError`]: why an answer to a pause was not taken, or what failed after it was.

use agboss_rules::codes::{self, Code};

use crate::journal::StoreError;
use crate::run::RunError;

/// Why an answer was not taken. Every refusal but a store failure leaves the pause open and
/// is audited (a `pause_answer_rejected` event in the journal, and a warning in the traces).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("[{}] {message}", code.id())]
pub struct ResumeError {
    code: &'static Code,
    message: String,
    /// The run that went on after the answer failed (the answer itself was taken).
    run: Option<Box<RunError>>,
    /// The store failed.
    store: Option<StoreError>,
}

impl ResumeError {
    /// Its code: `pause.unknown`, `pause.wrong-answerer`, `pause.already-answered`, ...; `run`
    /// or `store` for a failure after the answer or of the store.
    pub fn code(&self) -> &'static str {
        self.code.id()
    }

    /// Its catalogued code, for the audit of a refusal.
    pub(super) fn code_entry(&self) -> &'static Code {
        self.code
    }

    /// The error of the run that went on after the answer was taken, if that is what failed.
    pub fn run_error(&self) -> Option<&RunError> {
        self.run.as_deref()
    }

    pub(super) fn of(
        code: &'static Code,
        values: &[(&str, &dyn std::fmt::Display)],
    ) -> ResumeError {
        ResumeError {
            code,
            message: code.fill(values),
            run: None,
            store: None,
        }
    }

    pub(super) fn store(error: StoreError) -> ResumeError {
        ResumeError {
            code: &codes::STORE,
            message: error.to_string(),
            run: None,
            store: Some(error),
        }
    }

    pub(super) fn run(error: RunError) -> ResumeError {
        ResumeError {
            code: match &error {
                RunError::Store(_) => &codes::STORE,
                _ => &codes::MODEL,
            },
            message: error.to_string(),
            run: Some(Box::new(error)),
            store: None,
        }
    }
}
