//! [`MemoryStore`]: executions journaled in this process.

use std::collections::HashMap;
use std::sync::Mutex;

use super::{
    ExecutionRecord, LoopEvent, PauseQuery, PauseRecord, Store, StoreError, StoreErrorKind,
    StoreFuture, next_record, pause_change,
};

/// Keeps every execution's events, and the indexes derived from them, in memory; lost when the
/// process ends. The reference the other stores are tested against.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    journals: HashMap<String, Journal>,
    pauses: HashMap<String, PauseRecord>,
    /// Execution ids by thread, in the order they started.
    threads: HashMap<String, Vec<String>>,
}

#[derive(Debug)]
struct Journal {
    events: Vec<LoopEvent>,
    record: ExecutionRecord,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
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

impl Inner {
    fn append(
        &mut self,
        execution_id: &str,
        seq: u64,
        event: &LoopEvent,
    ) -> Result<(), StoreError> {
        let current = self.journals.get(execution_id);
        let held = current.map_or(0, |j| j.events.len() as u64);
        if held != seq {
            return Err(StoreError::new(
                "memory",
                StoreErrorKind::Conflict,
                format!(
                    "execution `{execution_id}` has {held} events: event {seq} would not follow them"
                ),
            ));
        }
        let record =
            next_record(current.map(|j| &j.record), execution_id, seq, event).ok_or_else(|| {
                StoreError::new(
                    "memory",
                    StoreErrorKind::Invalid,
                    format!("execution `{execution_id}`: a journal starts with `started`, once"),
                )
            })?;
        if let Some(change) = pause_change(&record, seq, event) {
            let held = self.pauses.get(change.pause_id()).cloned();
            let (pause, _) = change
                .checked(held)
                .map_err(|refused| StoreError::new("memory", StoreErrorKind::Invalid, refused))?;
            self.pauses.insert(pause.pause_id().to_owned(), pause);
        }
        if seq == 0 {
            self.threads
                .entry(record.thread_id.clone())
                .or_default()
                .push(execution_id.to_owned());
        }
        match self.journals.get_mut(execution_id) {
            Some(journal) => {
                journal.events.push(event.clone());
                journal.record = record;
            }
            // The key is allocated once, with the execution's first event.
            None => {
                self.journals.insert(
                    execution_id.to_owned(),
                    Journal {
                        events: vec![event.clone()],
                        record,
                    },
                );
            }
        }
        Ok(())
    }
}

impl Store for MemoryStore {
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        let result = self.lock().append(execution_id, seq, event);
        Box::pin(std::future::ready(result))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let events = self
            .lock()
            .journals
            .get(execution_id)
            .map(|j| j.events.clone())
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(events)))
    }

    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>> {
        let record = self
            .lock()
            .journals
            .get(execution_id)
            .map(|j| j.record.clone());
        Box::pin(std::future::ready(Ok(record)))
    }

    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>> {
        let record = self.lock().pauses.get(pause_id).cloned();
        Box::pin(std::future::ready(Ok(record)))
    }

    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>> {
        let inner = self.lock();
        let mut found: Vec<PauseRecord> = inner
            .pauses
            .values()
            .filter(|p| query.matches(p))
            .cloned()
            .collect();
        found.sort_by(|a, b| {
            (a.opened.opened_at_ms, &a.execution_id, a.opened_at_seq).cmp(&(
                b.opened.opened_at_ms,
                &b.execution_id,
                b.opened_at_seq,
            ))
        });
        if let Some(limit) = query.limit {
            found.truncate(limit);
        }
        Box::pin(std::future::ready(Ok(found)))
    }

    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>> {
        let inner = self.lock();
        let records = inner
            .threads
            .get(thread_id)
            .into_iter()
            .flatten()
            .filter_map(|id| inner.journals.get(id).map(|j| j.record.clone()))
            .collect();
        Box::pin(std::future::ready(Ok(records)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Answer, STATE_VERSION};
    use crate::spend::Budgets;

    fn started() -> LoopEvent {
        LoopEvent::Started {
            version: STATE_VERSION,
            execution_id: "e-1".into(),
            workflow: "desk".into(),
            agent: "notes".into(),
            visit: 1,
            input: "hi".into(),
            thread: Some("t-1".into()),
            owner: Some("u-1".into()),
            tenant: None,
            budgets: Budgets::none(),
            history: Vec::new(),
            history_usage: Default::default(),
            history_cost: Default::default(),
        }
    }

    #[tokio::test]
    async fn an_event_that_does_not_follow_the_journal_is_refused() {
        let store = MemoryStore::new();
        let event = LoopEvent::Answered {
            answer: Answer::Text("ok".into()),
        };
        assert!(store.append("e-1", 0, &event).await.is_err(), "not first");
        store.append("e-1", 0, &started()).await.unwrap();
        let error = store.append("e-1", 0, &event).await.unwrap_err();
        assert_eq!(
            error.to_string(),
            "store `memory`: execution `e-1` has 1 events: event 0 would not follow them"
        );
        assert!(error.is_conflict());
        assert!(store.append("e-2", 1, &event).await.is_err());
        assert_eq!(store.events("e-1").await.unwrap(), [started()]);
        assert_eq!(store.events("e-2").await.unwrap(), []);
        assert_eq!(
            store.execution_ids(),
            ["e-1"],
            "a refused event starts no journal"
        );
        let record = store.execution("e-1").await.unwrap().unwrap();
        assert_eq!(
            (record.thread_id.as_str(), record.owner_id.as_deref()),
            ("t-1", Some("u-1"))
        );
        assert_eq!(store.thread("t-1").await.unwrap().len(), 1);
    }
}
