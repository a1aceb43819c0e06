//! [`StoreError`]: why a store operation failed, and [`StoreFuture`], the future of one.

use std::future::Future;
use std::pin::Pin;

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

    /// Whether the writer's claim on the execution is no longer its current one.
    pub fn is_fenced(&self) -> bool {
        self.kind == StoreErrorKind::Fenced
    }

    /// Whether the append started a run in a thread that belongs to another owner
    /// (`thread.owner-mismatch`; the detail is that code's message).
    pub fn is_owner_mismatch(&self) -> bool {
        self.kind == StoreErrorKind::OwnerMismatch
    }
}

/// What kind of failure a [`StoreError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreErrorKind {
    /// The sequence number was not the next one: another writer appended first.
    Conflict,
    /// The store could not be reached or could not write (I/O, a lost connection, a full disk).
    Unavailable,
    /// What the store holds cannot be read (a corrupt row, an event of a newer layout), or the
    /// append cannot follow the journal.
    Invalid,
    /// The append (or renewal) carried the epoch of a claim that is no longer the execution's:
    /// another instance took the lease over, or the claim was released.
    Fenced,
    /// The holder of a claim appended, at a sequence number it had written already, an event
    /// that differs from the one written there: two different steps at one place. The first
    /// stays; the holder must stop (it is not the process that wrote it, or it lost track).
    Diverged,
    /// The append was the first event of a run in a thread that belongs to another owner (or
    /// to none, the run naming one; or to one, the run naming none): the thread keeps the owner
    /// its first run named ([`thread_owner_change`](super::thread_owner_change)). The detail is
    /// the message of `agboss_rules::codes::THREAD_OWNER_MISMATCH`, which never names the
    /// thread's owner.
    OwnerMismatch,
}
