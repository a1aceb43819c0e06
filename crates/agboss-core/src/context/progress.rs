//! [`Progress`]: how far a running tool call has got, as it reports it through its
//! [`ExecutionContext`](super::ExecutionContext) while someone watches the run.

use std::sync::Arc;

/// How far a call has got: a count done, of a total when known, and a line saying what it does.
///
/// ```
/// use agboss_core::context::Progress;
///
/// let progress = Progress::new(40, Some(100)).message("indexing docs/");
/// assert_eq!(progress.fraction(), Some(0.4));
/// assert_eq!(progress.to_string(), "40/100: indexing docs/");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Units done so far (files, rows, bytes: the tool's own).
    pub done: u64,
    /// Units in all, when known.
    pub total: Option<u64>,
    /// What it does now, in a few words.
    pub message: Option<String>,
}

impl Progress {
    /// `done` of `total` (none when not known).
    pub fn new(done: u64, total: Option<u64>) -> Progress {
        Progress {
            done,
            total,
            message: None,
        }
    }

    /// The same, saying `message`.
    pub fn message(mut self, message: impl Into<String>) -> Progress {
        self.message = Some(message.into());
        self
    }

    /// `done / total`, at most 1, when the total is known and not zero.
    pub fn fraction(&self) -> Option<f64> {
        self.total
            .filter(|total| *total > 0)
            .map(|total| (self.done as f64 / total as f64).min(1.0))
    }
}

impl std::fmt::Display for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.total {
            Some(total) => write!(f, "{}/{total}", self.done)?,
            None => write!(f, "{}", self.done)?,
        }
        match &self.message {
            Some(message) => write!(f, ": {message}"),
            None => Ok(()),
        }
    }
}

/// Where a call's progress goes (to the run's watchers); it must not block.
pub type ProgressSink = Arc<dyn Fn(&Progress) + Send + Sync>;
