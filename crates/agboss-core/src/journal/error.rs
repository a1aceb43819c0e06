//! [`JournalError`]: a journal this build cannot fold.

/// A journal this build cannot fold.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    /// It was written by a newer layout than this build reads.
    #[error(
        "the journal was written with event layout {found}, newer than the {reads} this build reads: run it with the newer build"
    )]
    NewerLayout {
        /// The layout of its `started` event.
        found: u32,
        /// [`STATE_VERSION`](super::STATE_VERSION) of this build.
        reads: u32,
    },
    /// It does not start with `started`.
    #[error("the journal does not start with a `started` event")]
    NotStarted,
}
