//! [`Leases`]: which instance drives each execution, and the claims its appends are fenced by.

use std::time::Duration;

use super::{Journal, StoreFuture};
use crate::journal::{Lease, LeaseState, LoopEvent};

/// Execution leases ([`Lease`]): who drives each execution, and the epoch of that claim, which
/// fenced appends carry. Expiry is judged by the store's own clock, never the application's.
///
/// A lease store is a [`Journal`] too, and must be: a claim's epoch fences the journal's
/// appends (checked in the append's own atomic step), a worker's [`claim`](Self::claim) picks
/// executions by their journal's record, and a run's last append releases its claim
/// ([`append_releasing`](Self::append_releasing)), in one commit where the store can. Leases
/// kept apart from the journal could do none of these atomically.
pub trait Leases: Journal {
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
    /// [`LoopEvent::ends_run`]), as [`append_as`](Journal::append_as) with the lease's fence
    /// does, and then releases `lease`. Refused as `append_as` refuses, releasing nothing.
    ///
    /// A store that can make both in one commit does (the PostgreSQL store): the release then
    /// costs nothing of its own. A retry after a commit whose answer was lost finds the claim
    /// released: when event `seq` is this same event from this claim, the retry succeeds
    /// without writing or changing anything, as `append_as`'s retry of a taken seq does.
    ///
    /// By default the append, then the release (a release that fails is logged and left to
    /// run out: the append stands), and that retry answered from
    /// [`lease`](Self::lease) and [`entries`](Journal::entries).
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
                    let retried = crate::journal::released_by_itself(lease.epoch, current, written);
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
    /// ([`ExecutionRecord::is_runnable`](crate::journal::ExecutionRecord::is_runnable)) and
    /// that no live lease holds, oldest first: what a worker does to find work. Two instances
    /// claiming at once never get the same execution.
    fn claim<'a>(
        &'a self,
        holder: &'a str,
        ttl: Duration,
        limit: usize,
    ) -> StoreFuture<'a, Vec<Lease>>;

    /// The lease of execution `execution_id` as the store holds it (`None`: never claimed).
    fn lease<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, Option<LeaseState>>;
}
