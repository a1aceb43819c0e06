//! Execution leases: which instance drives an execution, and the fencing token its journal
//! writes carry.
//!
//! An instance claims an execution before it drives it
//! ([`Leases::acquire`](crate::store::Leases::acquire), or
//! [`Leases::claim`](crate::store::Leases::claim) for a worker looking for work), renews the claim
//! while it drives, and releases it when the run stops. Each claim gets an *epoch*, one more than
//! the execution's last: it is the fencing token every append of the holder carries
//! ([`Fence::Epoch`]), and a store refuses an append whose epoch is not the execution's current
//! one, so an instance that lost its lease (paused by the OS, cut off from the store) cannot
//! write after another took over. Whether a lease has run out is judged by the store's clock,
//! never by the instance's.
//!
//! The stores keep leases ([`Leases`](crate::store::Leases)) and word their refusals
//! ([`fence_refusal`](crate::store::fence_refusal)); what a lease is, and the rules they decide
//! with, are here.

use std::time::Duration;

use super::LoopEvent;

/// A claim on one execution, held by one instance until it runs out, is released, or is taken
/// by another instance after it ran out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The execution.
    pub execution_id: String,
    /// Who holds it: the instance's id.
    pub holder: String,
    /// The claim's fencing token: one more than the execution's previous claim.
    pub epoch: u64,
    /// How long the lease lasts from its claim and from each renewal, on the store's clock.
    pub ttl: Duration,
}

impl Lease {
    /// The fence the holder's appends carry.
    pub fn fence(&self) -> Fence {
        Fence::Epoch(self.epoch)
    }
}

/// Who an append is from, as the store checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fence {
    /// Anyone: answers to pauses and their audit records, which any process may write while
    /// another drives the execution (the driver folds them in).
    Unfenced,
    /// The holder of the claim with this epoch: refused
    /// ([`StoreErrorKind::Fenced`](crate::store::StoreErrorKind::Fenced)) once the execution has a
    /// newer claim, or none.
    Epoch(u64),
}

impl Fence {
    /// The epoch, for a fenced append.
    pub fn epoch(self) -> Option<u64> {
        match self {
            Fence::Unfenced => None,
            Fence::Epoch(epoch) => Some(epoch),
        }
    }
}

/// An execution's lease as the store holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseState {
    /// The last claim's epoch (0: never claimed).
    pub epoch: u64,
    /// Who holds it; `None` once released.
    pub holder: Option<String>,
    /// Whether it still runs, by the store's clock: a live lease is not given to anyone else.
    pub live: bool,
}

/// What a store can tell, beside its clock, of the instance that holds a lease
/// (docs/durability.md, "Liveness"): whether it is gone for good, so its lease is taken over at
/// once instead of when its ttl runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    /// It may still run: stopped, paused, cut off, or a store that cannot tell. Its lease lasts
    /// its ttl.
    MayRun,
    /// It is gone for good (its process exited, its session with the server ended): it renews
    /// and writes nothing more, so its lease is over now. The epoch still fences it, whatever a
    /// store got wrong here. (Said by the SQLite store; the PostgreSQL store says it in SQL.)
    #[cfg_attr(not(feature = "sqlite"), allow(dead_code))]
    Gone,
}

/// Whether a lease keeps its execution from a claim: it has a holder, it has not run out by the
/// store's clock, and its holder is not gone. The rule every store claims by (the PostgreSQL
/// store says it in SQL: `live!` in `store/postgres/liveness.rs`).
pub(crate) fn lease_holds(held: bool, ran_out: bool, holder: Holder) -> bool {
    held && !ran_out && holder == Holder::MayRun
}

/// One event of a journal, with the claim that wrote it.
#[derive(Clone, Debug, PartialEq)]
pub struct JournalEntry {
    /// The event.
    pub event: LoopEvent,
    /// The epoch of the claim whose holder appended it; `None` for an unfenced append.
    pub epoch: Option<u64>,
}

/// Whether an append that releases its claim ([`Leases::append_releasing`](crate::store::Leases::append_releasing)),
/// refused by its fence, is the retry of its own commit, which released the claim: claim
/// `epoch` is the current one and released (`current`: the current claim's epoch and whether
/// it is held), and the event at its seq is the same event from that claim (`written`: the
/// claim that wrote it, and whether it is the same event). Every store decides with this.
pub(crate) fn released_by_itself(
    epoch: u64,
    current: Option<(u64, bool)>,
    written: Option<(Option<u64>, bool)>,
) -> bool {
    current == Some((epoch, false)) && written == Some((Some(epoch), true))
}
