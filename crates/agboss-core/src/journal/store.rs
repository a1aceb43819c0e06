//! [`Store`]: where executions are journaled, one event at a time.

use std::future::Future;
use std::pin::Pin;

use super::LoopEvent;

/// A boxed store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Why a store operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("store `{store}`: {detail}")]
pub struct StoreError {
    /// The store.
    pub store: String,
    /// What went wrong.
    pub detail: String,
}

/// An append-only journal of executions.
pub trait Store: Send + Sync {
    /// Appends `event` as the `seq`-th event (from 0) of execution `execution_id`. A store
    /// refuses a `seq` that is not the next one: two writers of one execution never both win.
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()>;

    /// Every event of execution `execution_id`, in order.
    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>>;
}

crate::infrastructure!(dyn Store, "a store");
