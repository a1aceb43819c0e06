//! The cases of threads' owners: a thread belongs to the owner its first run named, and a store
//! refuses, atomically, a later run of it that names another.

use std::sync::Arc;

use agboss_core::journal::ThreadOwner;
use agboss_core::store::{Journal, StoreErrorKind};

use crate::conformance::Backend;
use crate::conformance::events::*;
use crate::conformance::support::{append_all, refusal};

fn mismatch(thread: &str, owner: &str, asked: &str) -> (StoreErrorKind, String) {
    (
        StoreErrorKind::OwnerMismatch,
        format!(
            "thread `{thread}` belongs to {owner}, so {asked} may not run in it, read its \
             history or answer its pauses: start a new thread"
        ),
    )
}

async fn executions_of(store: &dyn Journal, thread: &str) -> Vec<String> {
    let records = store.thread(thread).await.unwrap();
    records.into_iter().map(|r| r.execution_id).collect()
}

/// A thread belongs to the owner its first run named, or to nobody when it named none, for
/// good: a later run naming another owner (or none, or one in a thread of nobody) is refused
/// with `OwnerMismatch` and writes nothing; its seq stays free, and the same execution may
/// start in a thread of its own. The owners survive reopening the store.
pub async fn a_thread_belongs_to_the_owner_its_first_run_named(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    let store = backend.open().await;
    assert_eq!(store.thread_owner("t-1").await.unwrap(), None, "no run yet");
    append_all(&*store, "e-1", &[started("e-1", Some("t-1"), Some("ann"))]).await;
    let ann = Some(ThreadOwner::Owned("ann".into()));
    assert_eq!(store.thread_owner("t-1").await.unwrap(), ann);
    append_all(&*store, "e-2", &[started("e-2", Some("t-1"), Some("ann"))]).await;
    let bob = store
        .append("e-3", 0, &started("e-3", Some("t-1"), Some("bob")))
        .await;
    assert_eq!(refusal(bob), mismatch("t-1", "another owner", "`bob`"));
    let nobody = store
        .append("e-3", 0, &started("e-3", Some("t-1"), None))
        .await;
    let asked = "a caller who names no owner";
    assert_eq!(refusal(nobody), mismatch("t-1", "an owner", asked));
    assert_eq!(
        store.execution("e-3").await.unwrap(),
        None,
        "nothing written"
    );
    assert_eq!(store.events("e-3").await.unwrap(), []);
    assert_eq!(executions_of(&*store, "t-1").await, ["e-1", "e-2"]);
    assert_eq!(store.thread_owner("t-1").await.unwrap(), ann, "unchanged");
    // The refused execution starts in a thread of its own (its id), which it owns.
    append_all(&*store, "e-3", &[started("e-3", None, Some("bob"))]).await;
    let bobs = Some(ThreadOwner::Owned("bob".into()));
    assert_eq!(store.thread_owner("e-3").await.unwrap(), bobs);
    // A first run without an owner: the thread is nobody's, and takes no run naming one.
    append_all(&*store, "e-4", &[started("e-4", Some("t-2"), None)]).await;
    let unowned = Some(ThreadOwner::Unowned);
    assert_eq!(store.thread_owner("t-2").await.unwrap(), unowned);
    let claiming = store
        .append("e-5", 0, &started("e-5", Some("t-2"), Some("ann")))
        .await;
    assert_eq!(refusal(claiming), mismatch("t-2", "no owner", "`ann`"));
    append_all(&*store, "e-5", &[started("e-5", Some("t-2"), None)]).await;
    assert_eq!(executions_of(&*store, "t-2").await, ["e-4", "e-5"]);
    // A stale or early first event is a conflict before the owner is looked at.
    let stale = store
        .append("e-1", 0, &started("e-1", Some("t-1"), Some("bob")))
        .await;
    assert_eq!(refusal(stale).0, StoreErrorKind::Conflict);
    // Later events of a thread's executions are not checked again.
    store.append("e-1", 1, &answered("ok")).await.unwrap();
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.thread_owner("t-1").await.unwrap(), ann);
    assert_eq!(store.thread_owner("t-2").await.unwrap(), unowned);
    let bob = store
        .append("e-6", 0, &started("e-6", Some("t-1"), Some("bob")))
        .await;
    assert_eq!(refusal(bob), mismatch("t-1", "another owner", "`bob`"));
}

/// First runs of one new thread racing, each its own execution, two per owner: exactly one
/// owner's runs are taken (both of them), every other is refused with `OwnerMismatch`, and the
/// thread's owner and listing say so.
pub async fn racing_first_runs_of_a_thread_leave_exactly_one_owner(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    const OWNERS: usize = 8;
    let store = backend.open().await;
    for round in 0..3 {
        let thread = format!("t-race-{round}");
        let tasks: Vec<_> = (0..OWNERS * 2)
            .map(|i| {
                let store = Arc::clone(&store);
                let (owner, id) = (format!("u-{}", i % OWNERS), format!("e-{round}-{i:02}"));
                let event = started(&id, Some(&thread), Some(&owner));
                tokio::spawn(async move {
                    let result = store.append(&id, 0, &event).await;
                    (owner, id, result)
                })
            })
            .collect();
        let mut taken = Vec::new();
        for task in tasks {
            let (owner, id, result) = task.await.expect("a racer");
            match result {
                Ok(()) => taken.push((owner, id)),
                Err(e) => assert_eq!(e.kind, StoreErrorKind::OwnerMismatch, "{e}"),
            }
        }
        let winner = taken.first().expect("one owner wins").0.clone();
        assert!(taken.iter().all(|(owner, _)| *owner == winner), "{taken:?}");
        assert_eq!(taken.len(), 2, "both runs of the winner: {taken:?}");
        let owner = store.thread_owner(&thread).await.unwrap();
        assert_eq!(owner, Some(ThreadOwner::Owned(winner)));
        let mut listed = executions_of(&*store, &thread).await;
        listed.sort();
        let mut ids: Vec<String> = taken.into_iter().map(|(_, id)| id).collect();
        ids.sort();
        assert_eq!(listed, ids);
    }
}
