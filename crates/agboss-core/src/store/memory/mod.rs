//! [`MemoryStore`]: executions journaled in this process, with their leases (`journal.rs`,
//! `leases.rs`) and the sub-stores beside them (`artifacts.rs`, `pins.rs`, `sealed.rs`).

mod artifacts;
mod journal;
mod leases;
mod pins;
mod sealed;

use std::collections::HashMap;
use std::sync::Mutex;

use super::{ArtifactStore, PinStore, SealStore, Store};
use crate::journal::{ExecutionRecord, JournalEntry, PauseRecord, ThreadOwner};
use crate::time::Clock;
use artifacts::MemoryArtifacts;
use leases::Held;
use pins::MemoryPins;
use sealed::MemorySealed;

/// The name its errors carry.
const STORE: &str = "memory";

/// Keeps every execution's events, and the indexes derived from them, in memory; lost when the
/// process ends. The reference the other stores are tested against. Leases run out by its
/// clock: the system's, or the one given to [`MemoryStore::with_clock`].
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    clock: Clock,
    artifacts: MemoryArtifacts,
    pins: MemoryPins,
    sealed: MemorySealed,
}

/// The journals and their leases, under one lock: an append checks its fence against the
/// leases, and a claim picks executions by their journal's record, each in one step.
#[derive(Debug, Default)]
struct Inner {
    journals: HashMap<String, Kept>,
    pauses: HashMap<String, PauseRecord>,
    /// Threads by id: their owner, and their executions in the order they started.
    threads: HashMap<String, Thread>,
    /// Execution ids in the order they started.
    started: Vec<String>,
    leases: HashMap<String, Held>,
}

/// One execution's journal and its record.
#[derive(Debug)]
struct Kept {
    entries: Vec<JournalEntry>,
    record: ExecutionRecord,
}

#[derive(Debug)]
struct Thread {
    owner: ThreadOwner,
    executions: Vec<String>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// An empty store whose leases run out by `clock` (a test's manual clock).
    pub fn with_clock(clock: impl Into<Clock>) -> MemoryStore {
        MemoryStore {
            clock: clock.into(),
            ..MemoryStore::default()
        }
    }

    /// The ids of the executions it holds, sorted.
    pub fn execution_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().journals.keys().cloned().collect();
        ids.sort();
        ids
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Every change is made whole before the lock is let go, so a poisoned lock is
        // consistent.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Store for MemoryStore {
    fn artifacts(&self) -> &dyn ArtifactStore {
        &self.artifacts
    }

    fn pins(&self) -> &dyn PinStore {
        &self.pins
    }

    fn sealed(&self) -> &dyn SealStore {
        &self.sealed
    }
}
