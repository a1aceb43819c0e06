//! [`MemoryStore`]: executions journaled in this process.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{Store, StoreError, StoreFuture};
use crate::run::LoopEvent;

/// Keeps every execution's events in memory; lost when the process ends.
#[derive(Debug, Default)]
pub struct MemoryStore {
    journals: Mutex<HashMap<String, Vec<LoopEvent>>>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// The ids of the executions it holds, sorted.
    pub fn execution_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.lock().keys().cloned().collect();
        ids.sort();
        ids
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Vec<LoopEvent>>> {
        // Appending one event cannot be interrupted half-way, so a poisoned lock is consistent.
        self.journals.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Store for MemoryStore {
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        let result = {
            let mut journals = self.lock();
            // Looked up before inserting: appending must not allocate a key each time.
            if !journals.contains_key(execution_id) {
                journals.insert(execution_id.to_owned(), Vec::new());
            }
            let journal = journals.get_mut(execution_id).expect("inserted above");
            if journal.len() as u64 == seq {
                journal.push(event.clone());
                Ok(())
            } else {
                Err(StoreError {
                    store: "memory".into(),
                    detail: format!(
                        "execution `{execution_id}` has {} events: event {seq} would not follow them",
                        journal.len()
                    ),
                })
            }
        };
        Box::pin(std::future::ready(result))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let events = self.lock().get(execution_id).cloned().unwrap_or_default();
        Box::pin(std::future::ready(Ok(events)))
    }
}
