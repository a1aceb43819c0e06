//! The cases of claims and fencing: claims, their epochs, running out by the store's clock,
//! renewals, releases, workers' claims of runnable executions, and the fence every append of a
//! holder carries.

use agboss_rules::codes;
use std::sync::Arc;
use std::time::Duration;

use agboss_core::journal::{Fence, JournalEntry, Lease, LoopEvent};
use agboss_core::store::{Leases, StoreErrorKind};

use super::{LONG, fenced};
use crate::conformance::Backend;
use crate::conformance::events::*;
use crate::conformance::support::{append_all, refusal};

/// A claim holds an execution against everyone (its holder too) until it is released or runs
/// out; each new claim has the next epoch; a replaced claim can no longer renew.
pub async fn claims_an_execution_once_until_released_or_run_out(
    mut backend: Box<dyn Backend<dyn Leases>>,
) {
    let store = backend.open().await;
    assert_eq!(store.lease("e-1").await.unwrap(), None, "never claimed");
    let a = store
        .acquire("e-1", "a", LONG)
        .await
        .unwrap()
        .expect("free");
    assert_eq!(
        (a.execution_id.as_str(), a.holder.as_str(), a.epoch, a.ttl),
        ("e-1", "a", 1, LONG)
    );
    assert_eq!(store.acquire("e-1", "b", LONG).await.unwrap(), None);
    assert_eq!(
        store.acquire("e-1", "a", LONG).await.unwrap(),
        None,
        "its own too"
    );
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!(
        (state.epoch, state.holder.as_deref(), state.live),
        (1, Some("a"), true)
    );
    store.renew(&a).await.unwrap();
    store.release(&a).await.unwrap();
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!((state.epoch, state.holder, state.live), (1, None, false));
    assert_eq!(
        refusal(store.renew(&a).await),
        fenced("e-1", 1, "the claim was released")
    );
    let b = store
        .acquire("e-1", "b", LONG)
        .await
        .unwrap()
        .expect("released");
    assert_eq!(b.epoch, 2);
    assert_eq!(
        refusal(store.renew(&a).await),
        fenced("e-1", 1, "claim 2 holds it now")
    );
    store.release(&a).await.unwrap();
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!(
        (state.epoch, state.holder.as_deref(), state.live),
        (2, Some("b"), true),
        "releasing a replaced claim changes nothing"
    );
    // Leases of executions are apart.
    let other = store
        .acquire("e-2", "a", LONG)
        .await
        .unwrap()
        .expect("free");
    assert_eq!(other.epoch, 1);
}

/// A lease that ran out (by the store's clock) is taken over with the next epoch; the old
/// holder can neither renew nor write. One that ran out but that nobody took can be renewed.
pub async fn a_lease_that_ran_out_is_taken_over(mut backend: Box<dyn Backend<dyn Leases>>) {
    let store = backend.open().await;
    let a = store
        .acquire("e-1", "a", Duration::ZERO)
        .await
        .unwrap()
        .expect("free");
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert!(!state.live, "a zero ttl runs out at once");
    assert_eq!(state.holder.as_deref(), Some("a"));
    // Renewed before anyone took it: held again, for the ttl the lease says.
    let longer = Lease {
        ttl: LONG,
        ..a.clone()
    };
    store.renew(&longer).await.unwrap();
    assert!(store.lease("e-1").await.unwrap().unwrap().live);
    assert_eq!(store.acquire("e-1", "b", LONG).await.unwrap(), None);
    // Run out again, and taken.
    store.renew(&a).await.unwrap();
    let b = store
        .acquire("e-1", "b", LONG)
        .await
        .unwrap()
        .expect("ran out");
    assert_eq!((b.holder.as_str(), b.epoch), ("b", 2));
    assert_eq!(
        refusal(store.renew(&longer).await),
        fenced("e-1", 1, "claim 2 holds it now")
    );
    let late = store
        .append_as("e-1", 0, &started("e-1", None, None), a.fence())
        .await;
    assert_eq!(refusal(late), fenced("e-1", 1, "claim 2 holds it now"));
    assert_eq!(store.events("e-1").await.unwrap(), []);
    store
        .append_as("e-1", 0, &started("e-1", None, None), b.fence())
        .await
        .unwrap();
}

/// Appends carry their writer: a holder's are checked against the current claim, unfenced
/// ones (answers to pauses) are taken whoever holds the execution; the journal keeps who wrote
/// each event.
pub async fn fenced_appends_are_checked_against_the_current_claim(
    mut backend: Box<dyn Backend<dyn Leases>>,
) {
    let store = backend.open().await;
    let never = store
        .append_as("e-1", 0, &started("e-1", None, Some("u")), Fence::Epoch(1))
        .await;
    assert_eq!(refusal(never), fenced("e-1", 1, "it was never claimed"));
    assert_eq!(store.execution("e-1").await.unwrap(), None);
    let a = store.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    let journal = [
        started("e-1", None, Some("u")),
        model_answered(1, &["c-1"]),
        pause_opened("p-1", "c-1", Some("u"), 1),
        pause_awaiting("p-1"),
    ];
    for (seq, event) in journal.iter().enumerate() {
        store
            .append_as("e-1", seq as u64, event, a.fence())
            .await
            .unwrap();
    }
    // An answer from another process, while `a` holds the execution.
    let answer = pause_resolved("p-1", resolutions().remove(1));
    store.append("e-1", 4, &answer).await.unwrap();
    let stale = store
        .append_as("e-1", 5, &tool_finished("c-1"), Fence::Epoch(7))
        .await;
    assert_eq!(refusal(stale), fenced("e-1", 7, "claim 1 holds it now"));
    store
        .append_as("e-1", 5, &tool_finished("c-1"), a.fence())
        .await
        .unwrap();
    store.release(&a).await.unwrap();
    let released = store
        .append_as("e-1", 6, &answered("done"), a.fence())
        .await;
    assert_eq!(
        refusal(released),
        fenced("e-1", 1, "the claim was released")
    );
    let entries = store.entries("e-1").await.unwrap();
    let epochs: Vec<Option<u64>> = entries.iter().map(|e| e.epoch).collect();
    assert_eq!(
        epochs,
        [Some(1), Some(1), Some(1), Some(1), None, Some(1)],
        "who wrote each event"
    );
    let events: Vec<LoopEvent> = entries.into_iter().map(|e: JournalEntry| e.event).collect();
    assert_eq!(events, store.events("e-1").await.unwrap());
}

/// A commit whose acknowledgement was lost is retried: the same event at the same seq from the
/// same claim is taken without a second row; another event there from that claim has
/// diverged; from anyone else it is a conflict.
pub async fn a_retried_append_is_taken_once_and_a_different_one_diverges(
    mut backend: Box<dyn Backend<dyn Leases>>,
) {
    let store = backend.open().await;
    let a = store.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    let first = started("e-1", None, Some("u"));
    store.append_as("e-1", 0, &first, a.fence()).await.unwrap();
    store.append_as("e-1", 0, &first, a.fence()).await.unwrap();
    assert_eq!(
        store.events("e-1").await.unwrap(),
        std::slice::from_ref(&first)
    );
    assert_eq!(store.execution("e-1").await.unwrap().unwrap().events, 1);
    let other = started("e-1", None, Some("v"));
    assert_eq!(
        refusal(store.append_as("e-1", 0, &other, a.fence()).await),
        (
            StoreErrorKind::Diverged,
            "execution `e-1`: claim 1 wrote another event at 0 already".to_owned()
        )
    );
    let conflict = (
        StoreErrorKind::Conflict,
        "execution `e-1` has 1 events: event 0 would not follow them".to_owned(),
    );
    assert_eq!(refusal(store.append("e-1", 0, &first).await), conflict);
    store.release(&a).await.unwrap();
    let b = store.acquire("e-1", "b", LONG).await.unwrap().unwrap();
    assert_eq!(
        refusal(store.append_as("e-1", 0, &first, b.fence()).await),
        conflict,
        "another claim's retry is a conflict"
    );
    assert_eq!(store.events("e-1").await.unwrap(), [first]);
}

/// Releases that come at once each give up their own claim and nothing else: a claim taken
/// over meanwhile stays with its new holder.
pub async fn releases_at_once_each_give_up_their_own_claim(
    mut backend: Box<dyn Backend<dyn Leases>>,
) {
    let store = backend.open().await;
    let id = |i: usize| format!("e-{i:02}");
    let mut leases = Vec::new();
    for i in 0..40 {
        // The first ten run out at once, and another holder takes them over.
        let ttl = if i < 10 { Duration::ZERO } else { LONG };
        leases.push(
            store
                .acquire(&id(i), "a", ttl)
                .await
                .unwrap()
                .expect("free"),
        );
    }
    for i in 0..10 {
        let b = store.acquire(&id(i), "b", LONG).await.unwrap();
        assert_eq!(b.map(|b| b.epoch), Some(2), "{} ran out", id(i));
    }
    let releases: Vec<_> = leases
        .into_iter()
        .map(|lease| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.release(&lease).await })
        })
        .collect();
    for release in releases {
        release.await.expect("a release").unwrap();
    }
    for i in 0..40 {
        let state = store.lease(&id(i)).await.unwrap().unwrap();
        let expected = if i < 10 {
            (2, Some("b"), true)
        } else {
            (1, None, false)
        };
        assert_eq!(
            (state.epoch, state.holder.as_deref(), state.live),
            expected,
            "{}",
            id(i)
        );
    }
    let again = store.acquire(&id(39), "c", LONG).await.unwrap();
    assert_eq!(again.map(|c| c.epoch), Some(2), "released: free to claim");
}

/// A worker's claim takes the executions that can go on (not ended, not only waiting for
/// answers) that no live lease holds, oldest first, at most `limit`; two claims at once never
/// share an execution.
pub async fn claims_runnable_executions_oldest_first_and_once(
    mut backend: Box<dyn Backend<dyn Leases>>,
) {
    let store = backend.open().await;
    let waiting = |id: &str, pause: &str| {
        vec![
            started(id, None, Some("u")),
            model_answered(1, &["c-1"]),
            pause_opened(pause, "c-1", Some("u"), 1),
            pause_awaiting(pause),
        ]
    };
    append_all(&*store, "e-1", &[started("e-1", None, None)]).await;
    append_all(&*store, "e-2", &[started("e-2", None, None), answered("x")]).await;
    append_all(&*store, "e-3", &waiting("e-3", "p-3")).await;
    append_all(
        &*store,
        "e-4",
        &[started("e-4", None, None), model_answered(1, &["c-1"])],
    )
    .await;
    let mut answered_pause = waiting("e-5", "p-5");
    answered_pause.push(pause_resolved("p-5", resolutions().remove(1)));
    append_all(&*store, "e-5", &answered_pause).await;
    // Opened, but the channel's word not journaled: its channel must be asked again.
    let mut asked = waiting("e-6", "p-6");
    asked.pop();
    append_all(&*store, "e-6", &asked).await;
    append_all(
        &*store,
        "e-7",
        &[started("e-7", None, None), failed(codes::CANCELLED.id())],
    )
    .await;
    let runnable: Vec<bool> = runnable_of(&*store, 1..=7).await;
    assert_eq!(runnable, [true, false, false, true, true, true, false]);

    let held = store.acquire("e-4", "x", LONG).await.unwrap().unwrap();
    let first = store.claim("w-1", LONG, 2).await.unwrap();
    let ids = |leases: &[Lease]| {
        leases
            .iter()
            .map(|l| (l.execution_id.clone(), l.holder.clone(), l.epoch))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(&first),
        [
            ("e-1".into(), "w-1".into(), 1),
            ("e-5".into(), "w-1".into(), 1)
        ]
    );
    let rest = store.claim("w-2", LONG, 10).await.unwrap();
    assert_eq!(ids(&rest), [("e-6".into(), "w-2".into(), 1)]);
    assert_eq!(store.claim("w-3", LONG, 10).await.unwrap(), []);
    store.release(&held).await.unwrap();
    let freed = store.claim("w-3", LONG, 10).await.unwrap();
    assert_eq!(ids(&freed), [("e-4".into(), "w-3".into(), 2)]);
    assert_eq!(store.claim("w-3", LONG, 0).await.unwrap(), []);

    // Racing claims over many executions: each claimed exactly once.
    for i in 0..40 {
        let id = format!("r-{i:02}");
        append_all(&*store, &id, &[started(&id, None, None)]).await;
    }
    let claims: Vec<_> = (0..8)
        .map(|w| {
            let store = Arc::clone(&store);
            tokio::spawn(async move { store.claim(&format!("racer-{w}"), LONG, 7).await })
        })
        .collect();
    let mut claimed = Vec::new();
    for claim in claims {
        claimed.extend(claim.await.expect("a claimer").unwrap());
    }
    let mut claimed: Vec<String> = claimed.into_iter().map(|l| l.execution_id).collect();
    claimed.sort();
    let expected: Vec<String> = (0..40).map(|i| format!("r-{i:02}")).collect();
    assert_eq!(claimed, expected, "every one claimed, none twice");
}

async fn runnable_of(store: &dyn Leases, ids: std::ops::RangeInclusive<u32>) -> Vec<bool> {
    let mut runnable = Vec::new();
    for i in ids {
        let record = store.execution(&format!("e-{i}")).await.unwrap().unwrap();
        runnable.push(record.is_runnable());
    }
    runnable
}

/// A lease's state and its epochs survive reopening the store, and its holder renews it
/// through the reopened store. (Whether it is live in between is the store's liveness: a store
/// whose closing ends the holder's session with the server counts the holder gone until it
/// renews; docs/durability.md, "Liveness".)
pub async fn keeps_leases_across_reopening(mut backend: Box<dyn Backend<dyn Leases>>) {
    let store = backend.open().await;
    let a = store.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    store
        .append_as("e-1", 0, &started("e-1", None, None), a.fence())
        .await
        .unwrap();
    drop(store);
    let store = backend.open().await;
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!((state.epoch, state.holder.as_deref()), (1, Some("a")));
    store.renew(&a).await.unwrap();
    let state = store.lease("e-1").await.unwrap().unwrap();
    assert_eq!(
        (state.epoch, state.holder.as_deref(), state.live),
        (1, Some("a"), true)
    );
    assert_eq!(store.acquire("e-1", "b", LONG).await.unwrap(), None);
    store.release(&a).await.unwrap();
    let b = store.acquire("e-1", "b", LONG).await.unwrap().unwrap();
    assert_eq!(b.epoch, 2);
    assert_eq!(store.entries("e-1").await.unwrap()[0].epoch, Some(1));
}
