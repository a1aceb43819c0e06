//! [`Store`]: where executions are journaled, one event at a time, with the indexes derived
//! from them (executions by id and thread, pauses by id and by who answers them).

use std::future::Future;
use std::pin::Pin;

use super::{ExecutionRecord, LoopEvent, PauseQuery, PauseRecord};

/// A boxed store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("store `{store}`: {detail}")]
pub struct StoreError {
    /// The store.
    pub store: String,
    /// What kind of failure: a lost race, a store out of reach, or data it cannot read.
    pub kind: StoreErrorKind,
    /// What went wrong.
    pub detail: String,
}

impl StoreError {
    /// A failure of `kind` in store `store`.
    pub fn new(store: &str, kind: StoreErrorKind, detail: impl Into<String>) -> StoreError {
        StoreError {
            store: store.to_owned(),
            kind,
            detail: detail.into(),
        }
    }

    /// Whether another writer appended first: re-read the journal and decide again.
    pub fn is_conflict(&self) -> bool {
        self.kind == StoreErrorKind::Conflict
    }
}

/// What kind of failure a [`StoreError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreErrorKind {
    /// The sequence number was not the next one: another writer appended first.
    Conflict,
    /// The store could not be reached or could not write (I/O, a lost connection, a full disk).
    Unavailable,
    /// What the store holds cannot be read (a corrupt row, an event of a newer layout).
    Invalid,
}

/// An append-only journal of executions, with the indexes derived from it.
///
/// Implementations derive the indexes with [`next_record`](super::next_record) and
/// [`pause_change`](super::pause_change) and apply them in the same atomic step as the append,
/// so an index never says what the journal does not.
pub trait Store: Send + Sync {
    /// Appends `event` as the `seq`-th event (from 0) of execution `execution_id`, and updates
    /// the indexes. A store refuses a `seq` that is not the next one
    /// ([`StoreErrorKind::Conflict`]): two writers of one execution never both win.
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()>;

    /// Every event of execution `execution_id`, in order (none for an unknown one).
    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>>;

    /// The record of execution `execution_id`.
    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>>;

    /// The pause `pause_id`, open or closed.
    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>>;

    /// The open pauses `query` asks for, oldest first.
    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>>;

    /// The executions of thread `thread_id`, in the order they started.
    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>>;
}

crate::infrastructure!(dyn Store, "a store");
