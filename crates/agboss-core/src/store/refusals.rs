//! The refusals every store words alike: a write from a claim that is not the execution's
//! current one ([`fence_refusal`], [`renew_refusal`]), an append at a sequence number taken
//! already ([`taken_seq`]), and a run in a thread of another owner ([`thread_owner_change`]).
//! Each takes the store's name, which its error carries; what they decide on is the journal's
//! ([`Fence`], [`Lease`], [`ThreadOwner`]).

use super::{StoreError, StoreErrorKind};
use crate::journal::{ExecutionRecord, Fence, Lease, ThreadOwner, owner_mismatch};

/// The refusal of a write (an append or a renewal) of claim `epoch` to execution
/// `execution_id` in store `store`, whose current claim is `current` (its epoch, and whether it
/// is still held), if it is refused. Every store refuses with these words.
pub fn fence_refusal(
    store: &str,
    execution_id: &str,
    epoch: u64,
    current: Option<(u64, bool)>,
) -> Option<StoreError> {
    let why = match current {
        Some((current, true)) if current == epoch => return None,
        Some((current, false)) if current == epoch => "the claim was released".to_owned(),
        Some((current, _)) => format!("claim {current} holds it now"),
        None => "it was never claimed".to_owned(),
    };
    Some(StoreError::new(
        store,
        StoreErrorKind::Fenced,
        format!("execution `{execution_id}`: claim {epoch} may not write: {why}"),
    ))
}

/// The result of an append at `seq` to a journal of `held` events, `seq` not being the next one.
/// `written` is, when `seq` is taken, the epoch of the claim that wrote it and whether it is the
/// same event. The same event from the same claim is a retried commit whose acknowledgement was
/// lost: taken. Another event from that claim has diverged. Anything else is a conflict. Every
/// store decides with this.
pub fn taken_seq(
    store: &str,
    execution_id: &str,
    held: u64,
    seq: u64,
    fence: Fence,
    written: Option<(Option<u64>, bool)>,
) -> Result<(), StoreError> {
    match (fence, written) {
        (Fence::Epoch(epoch), Some((Some(by), true))) if by == epoch => Ok(()),
        (Fence::Epoch(epoch), Some((Some(by), false))) if by == epoch => Err(StoreError::new(
            store,
            StoreErrorKind::Diverged,
            format!(
                "execution `{execution_id}`: claim {epoch} wrote another event at {seq} already"
            ),
        )),
        _ => Err(StoreError::new(
            store,
            StoreErrorKind::Conflict,
            format!(
                "execution `{execution_id}` has {held} events: event {seq} would not follow them"
            ),
        )),
    }
}

/// The refusal of a renewal of `lease`, the execution's current claim being `current` (its
/// epoch, and whether it is held).
pub fn renew_refusal(store: &str, lease: &Lease, current: Option<(u64, bool)>) -> StoreError {
    fence_refusal(store, &lease.execution_id, lease.epoch, current).unwrap_or_else(|| {
        StoreError::new(
            store,
            StoreErrorKind::Fenced,
            format!(
                "execution `{}`: claim {} is another instance's",
                lease.execution_id, lease.epoch
            ),
        )
    })
}

/// The rule every store applies when it appends the first event (`seq` 0) of an execution,
/// `record` being the execution's record after it ([`next_record`](crate::journal::next_record)) and
/// `held` the owner the store holds for the record's thread (`None`: no run has started in it).
///
/// - `Ok(Some(owner))`: the thread is new: the store records `owner` for it, in the append's
///   transaction;
/// - `Ok(None)`: a later run of the thread's owner: nothing changes;
/// - `Err`: the run names another owner: [`StoreErrorKind::OwnerMismatch`], and the append
///   writes nothing.
///
/// The check comes after the fence and the sequence number, so an append that is not the next
/// one is a conflict first. Applied in the same transaction as the append (the thread's row
/// locked or made there), it leaves exactly one owner when first runs of different owners race.
pub fn thread_owner_change(
    store: &str,
    record: &ExecutionRecord,
    held: Option<&ThreadOwner>,
) -> Result<Option<ThreadOwner>, StoreError> {
    let asked = record.owner_id.as_deref();
    if let Some(refused) = owner_mismatch(&record.thread_id, held, asked) {
        return Err(StoreError::new(
            store,
            StoreErrorKind::OwnerMismatch,
            refused,
        ));
    }
    Ok(held.is_none().then(|| ThreadOwner::of(asked)))
}
