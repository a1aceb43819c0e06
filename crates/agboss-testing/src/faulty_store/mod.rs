//! [`FaultyStore`]: a store that fails when a test says, to see what a run does when its
//! process stops at a journal boundary, or when its store is out of reach. Every operation, of
//! the journal, the leases and each sub-store (`journal.rs`, `parts.rs`), passes its
//! [`Gate`](gate::Gate) first.

mod gate;
mod journal;
mod parts;

use std::sync::{Arc, Mutex};

use agboss_core::journal::LoopEvent;
use agboss_core::store::{ArtifactStore, PinStore, SealStore, Store};
use agboss_core::time::Clock;

use gate::Gate;
use parts::{FaultyArtifacts, FaultyPins, FaultySealed};

/// Wraps a store and, when told, stands for a crash or an outage:
///
/// - [`freeze_before`](Self::freeze_before): the first append whose event matches never
///   completes, and neither does anything after it: what a process killed right before that
///   append leaves in the store. Abort the task of the run (or drop its future) to finish the
///   "crash"; [`frozen`](Self::frozen) waits for it to happen.
/// - [`set_unavailable`](Self::set_unavailable): every operation, of the journal, the leases
///   and each sub-store, fails with
///   [`StoreErrorKind::Unavailable`](agboss_core::store::StoreErrorKind::Unavailable) until it
///   is set back, as when the database is down.
///
/// The wrapped store holds what was written; hand it to a new application to recover.
///
/// ```
/// # use std::sync::Arc;
/// use agboss::journal::LoopEvent;
/// use agboss::store::{MemoryStore, Store};
/// use agboss::testing::FaultyStore;
///
/// let store = Arc::new(MemoryStore::new());
/// let faulty = FaultyStore::new(store.clone());
/// // The process "dies" right before the first call's result is saved.
/// faulty.freeze_before(|e| matches!(e, LoopEvent::ToolFinished { .. }));
/// # let _ = faulty;
/// ```
pub struct FaultyStore {
    inner: Arc<dyn Store>,
    gate: Arc<Gate>,
    claims: Mutex<Vec<(usize, usize)>>,
    artifacts: FaultyArtifacts,
    pins: FaultyPins,
    sealed: FaultySealed,
}

impl FaultyStore {
    /// `inner`, failing only when told to.
    pub fn new(inner: Arc<dyn Store>) -> FaultyStore {
        let gate = Arc::new(Gate::default());
        FaultyStore {
            artifacts: FaultyArtifacts {
                inner: Arc::clone(&inner),
                gate: Arc::clone(&gate),
            },
            pins: FaultyPins {
                inner: Arc::clone(&inner),
                gate: Arc::clone(&gate),
            },
            sealed: FaultySealed {
                inner: Arc::clone(&inner),
                gate: Arc::clone(&gate),
            },
            inner,
            gate,
            claims: Mutex::new(Vec::new()),
        }
    }

    /// Freezes before the first append whose event `matches`.
    pub fn freeze_before(&self, matches: impl Fn(&LoopEvent) -> bool + Send + Sync + 'static) {
        self.gate.freeze_before(Box::new(matches));
    }

    /// Waits until an append froze.
    pub async fn frozen(&self) {
        self.gate.frozen().await;
    }

    /// Makes every operation fail as a store out of reach would (`true`), or work again.
    pub fn set_unavailable(&self, unavailable: bool) {
        self.gate.set_unavailable(unavailable);
    }

    /// How many operations failed because the store was set unavailable.
    pub fn refused(&self) -> u64 {
        self.gate.refused()
    }

    /// Every claim the wrapped store answered, in order: how many executions it asked for (its
    /// limit) and how many it got. To see how a worker claims.
    pub fn claims(&self) -> Vec<(usize, usize)> {
        self.claims
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The wrapped store.
    pub fn inner(&self) -> &Arc<dyn Store> {
        &self.inner
    }
}

impl Store for FaultyStore {
    fn artifacts(&self) -> &dyn ArtifactStore {
        &self.artifacts
    }

    fn pins(&self) -> &dyn PinStore {
        &self.pins
    }

    fn sealed(&self) -> &dyn SealStore {
        &self.sealed
    }

    fn use_clock(&self, clock: &Clock) {
        self.inner.use_clock(clock);
    }
}
