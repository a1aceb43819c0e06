//! [`Store`]: where executions are journaled, one event at a time, with the indexes derived
//! from them (executions by id and thread, pauses by id and by who answers them).

use std::time::Duration;

use super::{
    ExecutionRecord, Fence, JournalEntry, Lease, LeaseState, LoopEvent, McpApproval,
    McpDefinitionSeen, McpPin, PauseQuery, PauseRecord, StoreFuture, ThreadOwner,
};
use crate::time::Clock;
use crate::tool::{Artifact, ArtifactRef};

/// An append-only journal of executions, with the indexes derived from it.
///
/// Implementations derive the indexes with [`next_record`](super::next_record) and
/// [`pause_change`](super::pause_change) and apply them in the same atomic step as the append,
/// so an index never says what the journal does not.
///
/// It also keeps each execution's lease ([`Lease`]): who drives it, and the epoch of that claim,
/// which fenced appends carry. Expiry is judged by the store's own clock.
///
/// And each thread's owner ([`ThreadOwner`]): the one its first run named, checked with
/// [`thread_owner_change`](super::thread_owner_change) in the transaction of every execution's
/// first append.
pub trait Store: Send + Sync {
    /// Appends `event` as the `seq`-th event (from 0) of execution `execution_id` from writer
    /// `fence`, and updates the indexes, in one atomic step. Refused, writing nothing:
    ///
    /// - [`StoreErrorKind::Fenced`](super::StoreErrorKind::Fenced) when `fence` is a claim's epoch and that claim is not the
    ///   execution's current one (checked first);
    /// - [`StoreErrorKind::Conflict`](super::StoreErrorKind::Conflict) when `seq` is not the next one: two writers of one
    ///   execution never both win. But when `seq` is taken by the same event from the same
    ///   claim, the append succeeds without writing (it is the retry of a commit whose
    ///   acknowledgement was lost); the same claim with another event there is
    ///   [`StoreErrorKind::Diverged`](super::StoreErrorKind::Diverged);
    /// - [`StoreErrorKind::Invalid`](super::StoreErrorKind::Invalid) when the event cannot follow the journal;
    /// - [`StoreErrorKind::OwnerMismatch`](super::StoreErrorKind::OwnerMismatch) when the event starts a run (the execution's first
    ///   event) in a thread that belongs to another owner than the run names. The first run of
    ///   a thread records its owner, in the same transaction.
    fn append_as<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
        fence: Fence,
    ) -> StoreFuture<'a, ()>;

    /// [`append_as`](Self::append_as) without a claim ([`Fence::Unfenced`]).
    fn append<'a>(
        &'a self,
        execution_id: &'a str,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        self.append_as(execution_id, seq, event, Fence::Unfenced)
    }

    /// Every event of execution `execution_id`, in order, with the claim that wrote it (none
    /// for an unknown execution).
    fn entries<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<JournalEntry>>;

    /// Every event of execution `execution_id`, in order (none for an unknown one).
    fn events<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Vec<LoopEvent>> {
        let entries = self.entries(execution_id);
        Box::pin(async move {
            Ok(entries
                .await?
                .into_iter()
                .map(|entry| entry.event)
                .collect())
        })
    }

    /// The record of execution `execution_id`.
    fn execution<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<ExecutionRecord>>;

    /// The pause `pause_id`, open or closed.
    fn pause<'a>(&'a self, pause_id: &'a str) -> StoreFuture<'a, Option<PauseRecord>>;

    /// The open pauses `query` asks for, oldest first.
    fn open_pauses<'a>(&'a self, query: &'a PauseQuery) -> StoreFuture<'a, Vec<PauseRecord>>;

    /// The executions of thread `thread_id`, in the order they started.
    fn thread<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Vec<ExecutionRecord>>;

    /// Who owns thread `thread_id`: the owner its first run named (`None`: no run has started
    /// in it yet, and the next one to start makes it its own). What an application checks
    /// before it reads the thread's history or takes an answer to its pauses:
    ///
    /// ```
    /// # async fn example(store: &dyn agboss_core::journal::Store) -> Result<(), agboss_core::journal::StoreError> {
    /// use agboss_core::journal::owner_mismatch;
    ///
    /// let held = store.thread_owner("t-1").await?;
    /// if let Some(refused) = owner_mismatch("t-1", held.as_ref(), Some("bob")) {
    ///     // [thread.owner-mismatch] refused: neither the history nor a run for bob
    /// }
    /// # Ok(()) }
    /// ```
    fn thread_owner<'a>(&'a self, thread_id: &'a str) -> StoreFuture<'a, Option<ThreadOwner>>;

    /// Claims execution `execution_id` for `holder` for `ttl`, unless a live lease holds it
    /// (`None`; a lease its own holder still holds counts too). The execution need not exist
    /// yet: a run claims its execution before its first append. The claim's epoch is one more
    /// than the execution's last.
    fn acquire<'a>(
        &'a self,
        execution_id: &'a str,
        holder: &'a str,
        ttl: Duration,
    ) -> StoreFuture<'a, Option<Lease>>;

    /// Extends `lease` by its ttl from now, on the store's clock, if it is still the
    /// execution's current claim (even one that ran out, as long as nobody took it over);
    /// [`StoreErrorKind::Fenced`](super::StoreErrorKind::Fenced) otherwise.
    fn renew<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()>;

    /// Gives `lease` up, so another instance may claim the execution at once. Nothing happens
    /// when it is no longer the current claim.
    fn release<'a>(&'a self, lease: &'a Lease) -> StoreFuture<'a, ()>;

    /// Appends `event`, the last its holder writes under `lease` (one that ends the run:
    /// [`LoopEvent::ends_run`]), as [`append_as`](Self::append_as) with the lease's fence
    /// does, and then releases `lease`. Refused as `append_as` refuses, releasing nothing.
    ///
    /// A store that can make both in one commit does (the PostgreSQL store): the release then
    /// costs nothing of its own. A retry after a commit whose answer was lost finds the claim
    /// released: when event `seq` is this same event from this claim, the retry succeeds
    /// without writing or changing anything, as `append_as`'s retry of a taken seq does.
    ///
    /// By default the append, then the release (a release that fails is logged and left to
    /// run out: the append stands), and that retry answered from
    /// [`lease`](Self::lease) and [`entries`](Self::entries).
    fn append_releasing<'a>(
        &'a self,
        lease: &'a Lease,
        seq: u64,
        event: &'a LoopEvent,
    ) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let id = &lease.execution_id;
            match self.append_as(id, seq, event, lease.fence()).await {
                Ok(()) => {}
                Err(refused) if refused.is_fenced() => {
                    let current = self.lease(id).await?;
                    let current = current.map(|state| (state.epoch, state.holder.is_some()));
                    let entries = self.entries(id).await?;
                    let written = usize::try_from(seq)
                        .ok()
                        .and_then(|seq| entries.get(seq))
                        .map(|entry| (entry.epoch, entry.event == *event));
                    let retried = super::released_by_itself(lease.epoch, current, written);
                    return if retried { Ok(()) } else { Err(refused) };
                }
                Err(refused) => return Err(refused),
            }
            if let Err(error) = self.release(lease).await {
                tracing::warn!(
                    execution_id = %lease.execution_id,
                    %error,
                    "the lease could not be released; it runs out by itself"
                );
            }
            Ok(())
        })
    }

    /// Claims, for `holder` and `ttl`, up to `limit` executions that can go on
    /// ([`ExecutionRecord::is_runnable`]) and that no live lease holds, oldest first: what a
    /// worker does to find work. Two instances claiming at once never get the same execution.
    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>>;

    /// The lease of execution `execution_id` as the store holds it (`None`: never claimed).
    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>>;

    /// Hands the store the application's clock, for the waits the store makes on its own: the
    /// pause between tries of an operation that failed for a moment, how long it waits for its
    /// server. `ApplicationBuilder::build` calls it with the application's clock (a store
    /// shared by several applications waits on the last one's). On a
    /// [`ManualClock`](crate::time::ManualClock) a store does not wait on time only the test
    /// moves: it tries again at once, and waits for its server without a deadline
    /// (docs/stores.md). Whether a *lease* ran out is the store's own clock's to say, never
    /// this one's. The default ignores it: a store that never waits.
    fn use_clock(&self, clock: &Clock) {
        let _ = clock;
    }

    // Artifacts (issue 17: `result_kind` / `wants`): results kept aside per execution, which the
    // model passes by reference. Not journal events: they are looked up by reference, and
    // deleted with their execution (docs/stores.md, docs/policies.md).

    /// Keeps `artifact` under its reference, in its execution. A reference held already is
    /// left as it is (a retry of the same put); references are random, so two artifacts never
    /// share one.
    fn put_artifact<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()>;

    /// The artifact `reference` of execution `execution_id`: `None` when that execution holds
    /// no such reference (never made, deleted, or another execution's).
    fn artifact<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>>;

    /// The artifacts of kind `kind` execution `execution_id` holds, oldest first, without their
    /// data.
    fn artifacts<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>>;

    /// Deletes every artifact of execution `execution_id`; the number deleted.
    fn delete_artifacts<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64>;

    // Pinned MCP definitions (issue 17, fault plan T20; `mcp_pin.rs`, docs/mcp.md "Pinned
    // definitions"). Pins are kept per application, server and tool.

    /// The pin of tool `tool` of server `server` in application `application` (`None`: the
    /// application never saw that tool).
    fn mcp_pin<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>>;

    /// Every pin of application `application`, by server, then tool.
    fn mcp_pins<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>>;

    /// Records that an application saw definition `seen` of a server tool, by the rule of
    /// [`pin_after_seen`](super::pin_after_seen), in one atomic step (applications racing to
    /// pin a tool's first definition leave one pin); the pin as it is after.
    fn see_mcp_definition<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin>;

    /// Records a person's `approval` of a tool's definition, by the rule of
    /// [`pin_after_approval`](super::pin_after_approval), in one atomic step: the pin as it is
    /// after, or `None` when the application has no pin of that tool;
    /// [`StoreErrorKind::Conflict`](super::StoreErrorKind::Conflict) when the server gave
    /// another definition since the one approved.
    fn approve_mcp_definition<'a>(
        &'a self,
        approval: &'a McpApproval,
    ) -> StoreFuture<'a, Option<McpPin>>;
}

crate::infrastructure!(dyn Store, "a store");
