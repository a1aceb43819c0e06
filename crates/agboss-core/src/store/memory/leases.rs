//! The [`Leases`] of a [`MemoryStore`]: claims held in its lock beside the journals, run out by
//! its clock.

use std::time::Duration;

use super::{Inner, MemoryStore, STORE};
use crate::journal::{Holder, Lease, LeaseState, lease_holds};
use crate::store::{Leases, StoreFuture, renew_refusal};
use crate::time::ClockTime;

/// A lease as the store holds it.
#[derive(Debug, Default)]
pub(super) struct Held {
    pub(super) epoch: u64,
    pub(super) holder: Option<String>,
    expires: Option<ClockTime>,
}

impl Held {
    /// Its holders all run in this process, which is running: only the ttl ends a lease.
    fn is_live(&self, now: ClockTime) -> bool {
        let ran_out = self.expires.is_none_or(|at| at <= now);
        lease_holds(self.holder.is_some(), ran_out, Holder::MayRun)
    }

    fn is(&self, lease: &Lease) -> bool {
        self.epoch == lease.epoch && self.holder.as_deref() == Some(lease.holder.as_str())
    }
}

impl Inner {
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

impl Leases for MemoryStore {
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
}
