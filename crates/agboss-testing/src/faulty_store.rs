//! [`FaultyStore`]: a store that fails when a test says, to see what a run does when its
//! process stops at a journal boundary, or when its store is out of reach.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss_core::journal::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, McpApproval,
    McpDefinitionSeen, McpPin, PauseQuery, PauseRecord, Store, StoreError, StoreErrorKind,
    StoreFuture, ThreadOwner,
};
use agboss_core::time::Clock;
use agboss_core::tool::{Artifact, ArtifactRef};
use tokio::sync::Notify;

type Matcher = Box<dyn Fn(&LoopEvent) -> bool + Send + Sync>;

/// Wraps a store and, when told, stands for a crash or an outage:
///
/// - [`freeze_before`](Self::freeze_before): the first append whose event matches never
///   completes, and neither does anything after it: what a process killed right before that
///   append leaves in the store. Abort the task of the run (or drop its future) to finish the
///   "crash"; [`frozen`](Self::frozen) waits for it to happen.
/// - [`set_unavailable`](Self::set_unavailable): every operation fails with
///   [`StoreErrorKind::Unavailable`] until it is set back, as when the database is down.
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
    freeze: Mutex<Option<Matcher>>,
    frozen: Mutex<bool>,
    froze: Notify,
    unavailable: Mutex<bool>,
    refused: Mutex<u64>,
    claims: Mutex<Vec<(usize, usize)>>,
}

impl FaultyStore {
    /// `inner`, failing only when told to.
    pub fn new(inner: Arc<dyn Store>) -> FaultyStore {
        FaultyStore {
            inner,
            freeze: Mutex::new(None),
            frozen: Mutex::new(false),
            froze: Notify::new(),
            unavailable: Mutex::new(false),
            refused: Mutex::new(0),
            claims: Mutex::new(Vec::new()),
        }
    }

    /// Freezes before the first append whose event `matches`.
    pub fn freeze_before(&self, matches: impl Fn(&LoopEvent) -> bool + Send + Sync + 'static) {
        *self.freeze.lock().unwrap_or_else(|p| p.into_inner()) = Some(Box::new(matches));
    }

    /// Waits until an append froze.
    pub async fn frozen(&self) {
        loop {
            let notified = self.froze.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if *self.frozen.lock().unwrap_or_else(|p| p.into_inner()) {
                return;
            }
            notified.await;
        }
    }

    /// Makes every operation fail as a store out of reach would (`true`), or work again.
    pub fn set_unavailable(&self, unavailable: bool) {
        *self.unavailable.lock().unwrap_or_else(|p| p.into_inner()) = unavailable;
    }

    /// How many operations failed because the store was set unavailable.
    pub fn refused(&self) -> u64 {
        *self.refused.lock().unwrap_or_else(|p| p.into_inner())
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

    /// `Err` when the store is set unavailable; pending forever once frozen.
    async fn gate(&self, event: Option<&LoopEvent>) -> Result<(), StoreError> {
        let freeze_now = {
            let mut frozen = self.frozen.lock().unwrap_or_else(|p| p.into_inner());
            let matched = event.is_some_and(|event| {
                self.freeze
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_ref()
                    .is_some_and(|m| m(event))
            });
            *frozen |= matched;
            *frozen
        };
        if freeze_now {
            self.froze.notify_waiters();
            std::future::pending::<()>().await;
        }
        if *self.unavailable.lock().unwrap_or_else(|p| p.into_inner()) {
            *self.refused.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            return Err(StoreError::new(
                "faulty",
                StoreErrorKind::Unavailable,
                "the store is out of reach (set so by the test)",
            ));
        }
        Ok(())
    }
}

impl Store for FaultyStore {
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.gate(Some(event)).await?;
            self.inner.append_as(execution_id, seq, event, fence).await
        })
    }

    fn append_releasing<'a>(
        &'a self,
        lease: &'a Lease,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.gate(Some(event)).await?;
            self.inner.append_releasing(lease, seq, event).await
        })
    }

    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.entries(execution_id).await
        })
    }

    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.events(execution_id).await
        })
    }

    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.execution(execution_id).await
        })
    }

    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.pause(pause_id).await
        })
    }

    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.open_pauses(query).await
        })
    }

    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.thread(thread_id).await
        })
    }

    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.thread_owner(thread_id).await
        })
    }

    fn use_clock(&self, clock: &Clock) {
        self.inner.use_clock(clock);
    }

    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.acquire(execution_id, holder, ttl).await
        })
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.renew(lease).await
        })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.release(lease).await
        })
    }

    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>> {
        Box::pin(async move {
            self.gate(None).await?;
            let leases = self.inner.claim(holder, ttl, limit).await?;
            self.claims
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((limit, leases.len()));
            Ok(leases)
        })
    }

    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.lease(execution_id).await
        })
    }

    // Artifacts (issue 17): forwarded, and out of reach with the rest when set unavailable.

    fn put_artifact<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.put_artifact(artifact).await
        })
    }

    fn artifact<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.artifact(execution_id, reference).await
        })
    }

    fn artifacts<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.artifacts(execution_id, kind).await
        })
    }

    fn delete_artifacts<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.delete_artifacts(execution_id).await
        })
    }

    fn mcp_pin<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.mcp_pin(application, server, tool).await
        })
    }

    fn mcp_pins<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.mcp_pins(application).await
        })
    }

    fn see_mcp_definition<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.see_mcp_definition(seen).await
        })
    }

    fn approve_mcp_definition<'a>(
        &'a self,
        approval: &'a McpApproval,
    ) -> StoreFuture<'a, Option<McpPin>> {
        Box::pin(async move {
            self.gate(None).await?;
            self.inner.approve_mcp_definition(approval).await
        })
    }
}
