//! The [`Journal`] of a [`MemoryStore`]: appends checked and indexed in one step under its
//! lock, and the reads of what it holds.

use super::{Inner, Kept, MemoryStore, STORE, Thread};
use crate::journal::{
    ExecutionRecord, Fence, JournalEntry, LoopEvent, PauseQuery, PauseRecord, ThreadOwner,
    next_record, pause_change,
};
use crate::store::{
    Journal, StoreError, StoreErrorKind, StoreFuture, fence_refusal, taken_seq, thread_owner_change,
};

impl Inner {
    fn append(
        &mut self,
        execution_id: &str,
        seq: u64,
        event: &LoopEvent,
        fence: Fence,
    ) -> Result<(), StoreError> {
        if let Fence::Epoch(epoch) = fence {
            let current = self
                .leases
                .get(execution_id)
                .map(|h| (h.epoch, h.holder.is_some()));
            if let Some(refused) = fence_refusal(STORE, execution_id, epoch, current) {
                return Err(refused);
            }
        }
        let current = self.journals.get(execution_id);
        let held = current.map_or(0, |j| j.entries.len() as u64);
        if held != seq {
            let written = current
                .and_then(|j| j.entries.get(usize::try_from(seq).ok()?))
                .map(|w| (w.epoch, &w.event == event));
            return taken_seq(STORE, execution_id, held, seq, fence, written);
        }
        let mut record = next_record(current.map(|j| &j.record), execution_id, seq, event)
            .ok_or_else(|| {
                StoreError::new(
                    STORE,
                    StoreErrorKind::Invalid,
                    format!("execution `{execution_id}`: a journal starts with `started`, once"),
                )
            })?;
        let new_thread = if seq == 0 {
            let held = self.threads.get(&record.thread_id).map(|t| &t.owner);
            thread_owner_change(STORE, &record, held)?
        } else {
            None
        };
        if let Some(change) = pause_change(&record, seq, event) {
            let held = self.pauses.get(change.pause_id()).cloned();
            let (pause, _) = change
                .checked(held, &mut record)
                .map_err(|refused| StoreError::new(STORE, StoreErrorKind::Invalid, refused))?;
            self.pauses.insert(pause.pause_id().to_owned(), pause);
        }
        if seq == 0 {
            let thread = self.threads.entry(record.thread_id.clone());
            // A new thread's owner comes with it; a thread known has one.
            let thread = thread.or_insert_with(|| Thread {
                owner: new_thread.unwrap_or(ThreadOwner::Unowned),
                executions: Vec::new(),
            });
            thread.executions.push(execution_id.to_owned());
            self.started.push(execution_id.to_owned());
        }
        let entry = JournalEntry {
            event: event.clone(),
            epoch: fence.epoch(),
        };
        match self.journals.get_mut(execution_id) {
            Some(journal) => {
                journal.entries.push(entry);
                journal.record = record;
            }
            // The key is allocated once, with the execution's first event.
            None => {
                self.journals.insert(
                    execution_id.to_owned(),
                    Kept {
                        entries: vec![entry],
                        record,
                    },
                );
            }
        }
        Ok(())
    }
}

impl Journal for MemoryStore {
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()> {
        let result = self.lock().append(execution_id, seq, event, fence);
        Box::pin(std::future::ready(result))
    }

    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>> {
        let entries = self
            .lock()
            .journals
            .get(execution_id)
            .map(|j| j.entries.clone())
            .unwrap_or_default();
        Box::pin(std::future::ready(Ok(entries)))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let events = self
            .lock()
            .journals
            .get(execution_id)
            .map(|j| j.entries.iter().map(|e| e.event.clone()).collect())
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
            .flat_map(|thread| &thread.executions)
            .filter_map(|id| inner.journals.get(id).map(|j| j.record.clone()))
            .collect();
        Box::pin(std::future::ready(Ok(records)))
    }

    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>> {
        let owner = self.lock().threads.get(thread_id).map(|t| t.owner.clone());
        Box::pin(std::future::ready(Ok(owner)))
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
            config_hash: None,
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
