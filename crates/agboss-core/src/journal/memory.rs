//! [`MemoryStore`]: executions journaled in this process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, McpApproval,
    McpDefinitionSeen, McpPin, PauseQuery, PauseRecord, Store, StoreError, StoreErrorKind,
    StoreFuture, ThreadOwner, fence_refusal, next_record, pause_change, renew_refusal, taken_seq,
    thread_owner_change,
};

/// The name its errors carry.
const STORE: &str = "memory";
use crate::time::{Clock, ClockTime};

/// Keeps every execution's events, and the indexes derived from them, in memory; lost when the
/// process ends. The reference the other stores are tested against. Leases run out by its
/// clock: the system's, or the one given to [`MemoryStore::with_clock`].
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    clock: Clock,
    artifacts: super::memory_artifacts::MemoryArtifacts,
}

#[derive(Debug, Default)]
struct Inner {
    journals: HashMap<String, Journal>,
    pauses: HashMap<String, PauseRecord>,
    /// Threads by id: their owner, and their executions in the order they started.
    threads: HashMap<String, Thread>,
    /// Execution ids in the order they started.
    started: Vec<String>,
    leases: HashMap<String, Held>,
    /// Pinned MCP definitions by application, server and tool (sorted, as listed).
    mcp_pins: std::collections::BTreeMap<(String, String, String), McpPin>,
}

#[derive(Debug)]
struct Journal {
    entries: Vec<JournalEntry>,
    record: ExecutionRecord,
}

#[derive(Debug)]
struct Thread {
    owner: ThreadOwner,
    executions: Vec<String>,
}

/// A lease as the store holds it.
#[derive(Debug, Default)]
struct Held {
    epoch: u64,
    holder: Option<String>,
    expires: Option<ClockTime>,
}

impl Held {
    /// Its holders all run in this process, which is running: only the ttl ends a lease.
    fn is_live(&self, now: ClockTime) -> bool {
        let ran_out = self.expires.is_none_or(|at| at <= now);
        super::lease_holds(self.holder.is_some(), ran_out, super::Holder::MayRun)
    }

    fn is(&self, lease: &Lease) -> bool {
        self.epoch == lease.epoch && self.holder.as_deref() == Some(lease.holder.as_str())
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// An empty store whose leases run out by `clock` (a test's manual clock).
    pub fn with_clock(clock: impl Into<Clock>) -> MemoryStore {
        MemoryStore {
            inner: Mutex::default(),
            clock: clock.into(),
            artifacts: Default::default(),
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
                    Journal {
                        entries: vec![entry],
                        record,
                    },
                );
            }
        }
        Ok(())
    }

    fn acquire(
        &mut self,
        execution_id: &str,
        holder: &str,
        ttl: Duration,
        now: ClockTime,
    ) -> Option<Lease> {
        let held = self.leases.entry(execution_id.to_owned()).or_default();
        if held.is_live(now) {
            return None;
        }
        held.epoch += 1;
        held.holder = Some(holder.to_owned());
        held.expires = Some(now.saturating_add(ttl));
        Some(Lease {
            execution_id: execution_id.to_owned(),
            holder: holder.to_owned(),
            epoch: held.epoch,
            ttl,
        })
    }
}

impl Store for MemoryStore {
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

    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>> {
        let now = self.clock.now();
        let lease = self.lock().acquire(execution_id, holder, ttl, now);
        Box::pin(std::future::ready(Ok(lease)))
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        let now = self.clock.now();
        let mut inner = self.lock();
        let result = match inner.leases.get_mut(&lease.execution_id) {
            Some(held) if held.is(lease) => {
                held.expires = Some(now.saturating_add(lease.ttl));
                Ok(())
            }
            held => Err(renew_refusal(
                STORE,
                lease,
                held.map(|h| (h.epoch, h.holder.is_some())),
            )),
        };
        Box::pin(std::future::ready(result))
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        let now = self.clock.now();
        if let Some(held) = self.lock().leases.get_mut(&lease.execution_id)
            && held.is(lease)
        {
            held.holder = None;
            held.expires = Some(now);
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>> {
        let now = self.clock.now();
        let mut inner = self.lock();
        let runnable: Vec<String> = inner
            .started
            .iter()
            .filter(|id| inner.journals[*id].record.is_runnable())
            .filter(|id| !inner.leases.get(*id).is_some_and(|h| h.is_live(now)))
            .take(limit)
            .cloned()
            .collect();
        let leases = runnable
            .iter()
            .filter_map(|id| inner.acquire(id, holder, ttl, now))
            .collect();
        Box::pin(std::future::ready(Ok(leases)))
    }

    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>> {
        let now = self.clock.now();
        let state = self.lock().leases.get(execution_id).map(|held| LeaseState {
            epoch: held.epoch,
            holder: held.holder.clone(),
            live: held.is_live(now),
        });
        Box::pin(std::future::ready(Ok(state)))
    }

    // Artifacts (issue 17): kept beside the journals (`memory_artifacts.rs`).

    fn put_artifact<'a>(&'a self, artifact: &'a crate::tool::Artifact) -> StoreFuture<'a, ()> {
        self.artifacts.put(artifact);
        Box::pin(std::future::ready(Ok(())))
    }

    fn artifact<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<crate::tool::Artifact>> {
        let found = self.artifacts.get(execution_id, reference);
        Box::pin(std::future::ready(Ok(found)))
    }

    fn artifacts<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<crate::tool::ArtifactRef>> {
        let listed = self.artifacts.list(execution_id, kind);
        Box::pin(std::future::ready(Ok(listed)))
    }

    fn delete_artifacts<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        let deleted = self.artifacts.delete(execution_id);
        Box::pin(std::future::ready(Ok(deleted)))
    }

    fn mcp_pin<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        let key = (application.to_owned(), server.to_owned(), tool.to_owned());
        let pin = self.lock().mcp_pins.get(&key).cloned();
        Box::pin(std::future::ready(Ok(pin)))
    }

    fn mcp_pins<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        let pins = self
            .lock()
            .mcp_pins
            .values()
            .filter(|pin| pin.application == application)
            .cloned()
            .collect();
        Box::pin(std::future::ready(Ok(pins)))
    }

    fn see_mcp_definition<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        let key = (
            seen.application.clone(),
            seen.server.clone(),
            seen.tool.clone(),
        );
        let mut inner = self.lock();
        if let Some(next) = super::pin_after_seen(inner.mcp_pins.get(&key), seen) {
            inner.mcp_pins.insert(key.clone(), next);
        }
        let pin = inner.mcp_pins[&key].clone();
        Box::pin(std::future::ready(Ok(pin)))
    }

    fn approve_mcp_definition<'a>(
        &'a self,
        approval: &'a McpApproval,
    ) -> StoreFuture<'a, Option<McpPin>> {
        let key = (
            approval.application.clone(),
            approval.server.clone(),
            approval.tool.clone(),
        );
        let mut inner = self.lock();
        let result = match inner.mcp_pins.get(&key) {
            None => Ok(None),
            Some(held) => super::pin_after_approval(STORE, held, approval).map(|pin| {
                inner.mcp_pins.insert(key, pin.clone());
                Some(pin)
            }),
        };
        Box::pin(std::future::ready(result))
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
