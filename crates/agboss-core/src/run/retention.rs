//! [`ArtifactRetention`]: how long an execution's artifacts stay in the store.

/// How long an execution's artifacts are kept (`ApplicationBuilder::artifact_retention`).
///
/// Nothing deletes executions themselves; their artifacts, which can be large, go with the end
/// of their run by default. A paused run has not ended: its artifacts wait for it, across
/// processes (a resume from the store finds them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArtifactRetention {
    /// Deleted when the run ends: it answers, fails or is cancelled (the default).
    #[default]
    UntilRunEnds,
    /// Kept until the application deletes them ([`ArtifactStore::delete`](crate::store::ArtifactStore::delete)).
    Kept,
}
