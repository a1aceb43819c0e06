//! The journal and the leases of a [`FaultyStore`]: the wrapped store's, each operation gated.
//! An append (or a run's last append) is what freezes it, when its event matches.

use std::time::Duration;

use agboss_core::journal::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, PauseQuery, PauseRecord,
    ThreadOwner,
};
use agboss_core::store::{Journal, Leases, StoreFuture};

use super::FaultyStore;

impl Journal for FaultyStore {
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()> {
        self.gate.gated(Some(event), move || {
            self.inner.append_as(execution_id, seq, event, fence)
        })
    }

    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>> {
        self.gate
            .gated(None, move || self.inner.entries(execution_id))
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        self.gate
            .gated(None, move || self.inner.events(execution_id))
    }

    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>> {
        self.gate
            .gated(None, move || self.inner.execution(execution_id))
    }

    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>> {
        self.gate.gated(None, move || self.inner.pause(pause_id))
    }

    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>> {
        self.gate.gated(None, move || self.inner.open_pauses(query))
    }

    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>> {
        self.gate.gated(None, move || self.inner.thread(thread_id))
    }

    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>> {
        self.gate
            .gated(None, move || self.inner.thread_owner(thread_id))
    }
}

impl Leases for FaultyStore {
    fn append_releasing<'a>(
        &'a self,
        lease: &'a Lease,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        self.gate.gated(Some(event), move || {
            self.inner.append_releasing(lease, seq, event)
        })
    }

    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>> {
        self.gate
            .gated(None, move || self.inner.acquire(execution_id, holder, ttl))
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        self.gate.gated(None, move || self.inner.renew(lease))
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        self.gate.gated(None, move || self.inner.release(lease))
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>> {
        self.gate.gated(None, move || {
            Box::pin(async move {
                let leases = self.inner.claim(holder, ttl, limit).await?;
                self.claims
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((limit, leases.len()));
                Ok(leases)
            })
        })
    }

    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>> {
        self.gate
            .gated(None, move || self.inner.lease(execution_id))
    }
}
