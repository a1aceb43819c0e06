//! [`Journal`]: where executions are journaled, one event at a time, with the indexes derived
//! from them (executions by id and thread, pauses by id and by who answers them, threads'
//! owners).

use super::StoreFuture;
use crate::journal::{
    ExecutionRecord, Fence, JournalEntry, LoopEvent, PauseQuery, PauseRecord, ThreadOwner,
};

/// An append-only journal of executions, with the indexes derived from it.
///
/// Implementations derive the indexes with [`next_record`](crate::journal::next_record) and
/// [`pause_change`](crate::journal::pause_change) and apply them in the same atomic step as the
/// append, so an index never says what the journal does not.
///
/// Each append carries a [`Fence`]: the epoch of the claim it is written under, checked against
/// the execution's current claim, which [`Leases`](super::Leases) keeps; an unfenced append
/// ([`Fence::Unfenced`]) is checked against none.
///
/// It also keeps each thread's owner ([`ThreadOwner`]): the one its first run named, checked with
/// [`thread_owner_change`](super::thread_owner_change) in the transaction of every execution's
/// first append.
pub trait Journal: Send + Sync {
    /// Appends `event` as the `seq`-th event (from 0) of execution `execution_id` from writer
    /// `fence`, and updates the indexes, in one atomic step. Refused, writing nothing:
    ///
    /// - [`StoreErrorKind::Fenced`](super::StoreErrorKind::Fenced) when `fence` is a claim's epoch and that claim is not the
    ///   execution's current one (checked first);
    /// - [`StoreErrorKind::Conflict`](super::StoreErrorKind::Conflict) when `seq` is not the next one: two writers of one
    ///   execution never both win. But when `seq` is taken by the same event from the same
    ///   claim, the append succeeds without writing (it is the retry of a commit whose
    ///   acknowledgement was lost); the same claim with another event there is
    ///   [`StoreErrorKind::Diverged`](super::StoreErrorKind::Diverged);
    /// - [`StoreErrorKind::Invalid`](super::StoreErrorKind::Invalid) when the event cannot follow the journal;
    /// - [`StoreErrorKind::OwnerMismatch`](super::StoreErrorKind::OwnerMismatch) when the event starts a run (the execution's first
    ///   event) in a thread that belongs to another owner than the run names. The first run of
    ///   a thread records its owner, in the same transaction.
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()>;

    /// [`append_as`](Self::append_as) without a claim ([`Fence::Unfenced`]).
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        self.append_as(execution_id, seq, event, Fence::Unfenced)
    }

    /// Every event of execution `execution_id`, in order, with the claim that wrote it (none
    /// for an unknown execution).
    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>>;

    /// Every event of execution `execution_id`, in order (none for an unknown one).
    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let entries = self.entries(execution_id);
        Box::pin(async move {
            Ok(entries
                .await?
                .into_iter()
                .map(|entry| entry.event)
                .collect())
        })
    }

    /// The record of execution `execution_id`.
    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>>;

    /// The pause `pause_id`, open or closed.
    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>>;

    /// The open pauses `query` asks for, oldest first.
    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>>;

    /// The executions of thread `thread_id`, in the order they started.
    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>>;

    /// Who owns thread `thread_id`: the owner its first run named (`None`: no run has started
    /// in it yet, and the next one to start makes it its own). What an application checks
    /// before it reads the thread's history or takes an answer to its pauses:
    ///
    /// ```
    /// # async fn example(store: &dyn agboss_core::store::Store) -> Result<(), agboss_core::store::StoreError> {
    /// use agboss_core::journal::owner_mismatch;
    ///
    /// let held = store.thread_owner("t-1").await?;
    /// if let Some(refused) = owner_mismatch("t-1", held.as_ref(), Some("bob")) {
    ///     // [thread.owner-mismatch] refused: neither the history nor a run for bob
    /// }
    /// # Ok(()) }
    /// ```
    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>>;
}
