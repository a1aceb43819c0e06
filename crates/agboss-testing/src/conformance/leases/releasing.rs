//! The case of a run's last append, which releases its claim with it
//! ([`Leases::append_releasing`](agboss_core::store::Leases::append_releasing)).

use agboss_rules::codes;
use std::time::Duration;

use agboss_core::journal::{ExecutionStatus, Fence, Lease, LoopEvent};
use agboss_core::store::Leases;

use super::{LONG, fenced};
use crate::conformance::Backend;
use crate::conformance::events::*;
use crate::conformance::support::refusal;

/// A run's last append writes its event and gives the claim up, at once: the execution is free
/// to claim, the old claim can renew and write nothing more, and its retry (the same event)
/// is taken without a second row. A claim that is no longer current writes nothing and
/// releases nothing.
pub async fn the_last_append_of_a_claim_releases_it(mut backend: Box<dyn Backend<dyn Leases>>) {
    let store = backend.open().await;
    let a = store.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    let journal = [started("e-1", None, None), model_answered(1, &[])];
    append_under(&*store, &a, &journal).await;
    store
        .append_releasing(&a, 2, &answered("done"))
        .await
        .unwrap();
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!((state.epoch, state.holder, state.live), (1, None, false));
    let record = store.execution("e-1").await.unwrap().unwrap();
    assert_eq!(record.events, 3);
    assert!(matches!(record.status, ExecutionStatus::Answered { .. }));
    assert_eq!(
        refusal(store.renew(&a).await),
        fenced("e-1", 1, "the claim was released")
    );
    // The retry of a commit whose answer was lost: taken, nothing written. Another event, or
    // the same at another seq, is not that retry.
    store
        .append_releasing(&a, 2, &answered("done"))
        .await
        .unwrap();
    for (seq, event) in [(2, answered("other")), (3, answered("done"))] {
        assert_eq!(
            refusal(store.append_releasing(&a, seq, &event).await),
            fenced("e-1", 1, "the claim was released"),
            "{seq}: {event:?}"
        );
    }
    assert_eq!(
        refusal(
            store
                .append_as("e-1", 3, &answered("again"), a.fence())
                .await
        ),
        fenced("e-1", 1, "the claim was released"),
        "nothing more under the claim"
    );
    let entries = store.entries("e-1").await.unwrap();
    let epochs: Vec<Option<u64>> = entries.iter().map(|e| e.epoch).collect();
    assert_eq!(epochs, [Some(1); 3], "who wrote each event");
    let b = store.acquire("e-1", "b", LONG).await.unwrap();
    assert_eq!(b.map(|b| b.epoch), Some(2), "free to claim at once");

    // A claim taken over: its last append is fenced, and the new holder keeps the lease.
    let stale = store
        .acquire("e-2", "a", Duration::ZERO)
        .await
        .unwrap()
        .unwrap();
    store
        .append_as("e-2", 0, &started("e-2", None, None), Fence::Unfenced)
        .await
        .unwrap();
    let c = store.acquire("e-2", "c", LONG).await.unwrap().unwrap();
    assert_eq!(c.epoch, 2);
    assert_eq!(
        refusal(
            store
                .append_releasing(&stale, 1, &failed(codes::MODEL.id()))
                .await
        ),
        fenced("e-2", 1, "claim 2 holds it now")
    );
    assert_eq!(
        store.events("e-2").await.unwrap().len(),
        1,
        "nothing written"
    );
    let state = store.lease("e-2").await.unwrap().unwrap();
    assert_eq!(
        (state.epoch, state.holder.as_deref(), state.live),
        (2, Some("c"), true),
        "nothing released"
    );

    // The event written already by `append_as` under a claim still held: taken, and the
    // claim released.
    let d = store.acquire("e-3", "d", LONG).await.unwrap().unwrap();
    append_under(&*store, &d, &[started("e-3", None, None), answered("done")]).await;
    store
        .append_releasing(&d, 1, &answered("done"))
        .await
        .unwrap();
    assert_eq!(
        store.events("e-3").await.unwrap().len(),
        2,
        "nothing written"
    );
    let state = store.lease("e-3").await.unwrap().unwrap();
    assert_eq!((state.epoch, state.holder, state.live), (1, None, false));
}

/// Appends `events` from seq 0 under `lease`, each expected to be taken.
async fn append_under(store: &dyn Leases, lease: &Lease, events: &[LoopEvent]) {
    for (seq, event) in events.iter().enumerate() {
        store
            .append_as(&lease.execution_id, seq as u64, event, lease.fence())
            .await
            .unwrap_or_else(|e| panic!("append {seq}: {e}"));
    }
}
