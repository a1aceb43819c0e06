//! [`MemoryStore`]: executions journaled in this process.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{LoopEvent, Store, StoreError, StoreFuture};

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
        let mut journals = self.lock();
        let held = journals.get(execution_id).map_or(0, Vec::len);
        let result = if held as u64 != seq {
            Err(StoreError {
                store: "memory".into(),
                detail: format!(
                    "execution `{execution_id}` has {held} events: event {seq} would not follow them"
                ),
            })
        } else {
            match journals.get_mut(execution_id) {
                Some(journal) => journal.push(event.clone()),
                // The key is allocated once, with the execution's first event.
                None => {
                    journals.insert(execution_id.to_owned(), vec![event.clone()]);
                }
            }
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let events = self.lock().get(execution_id).cloned().unwrap_or_default();
        Box::pin(std::future::ready(Ok(events)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Answer;

    #[tokio::test]
    async fn an_event_that_does_not_follow_the_journal_is_refused() {
        let store = MemoryStore::new();
        let event = LoopEvent::Answered {
            answer: Answer::Text("ok".into()),
        };
        store.append("e-1", 0, &event).await.unwrap();
        let error = store.append("e-1", 0, &event).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "store `memory`: execution `e-1` has 1 events: event 0 would not follow them"
        );
        assert!(store.append("e-2", 1, &event).await.is_err());
        assert_eq!(store.events("e-1").await.unwrap(), [event]);
        assert_eq!(store.events("e-2").await.unwrap(), []);
        assert_eq!(
            store.execution_ids(),
            ["e-1"],
            "a refused event starts no journal"
        );
    }
}
