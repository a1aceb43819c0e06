//! What the store tests of SQLite and PostgreSQL share: the events they journal, what a store
//! migrated from a schema without thread owners must answer, and a look into a database.

// Each test file that includes this module uses a part of it.
#![allow(dead_code)]

use agboss::journal::{LoopEvent, STATE_VERSION, ThreadOwner};
use agboss::run::Answer;
use agboss::spend::Budgets;
use agboss::store::Store;

/// The `started` event of execution `id`, in no thread.
pub fn started(id: &str) -> LoopEvent {
    LoopEvent::Started {
        version: STATE_VERSION,
        execution_id: id.to_owned(),
        workflow: "desk".into(),
        agent: "notes".into(),
        visit: 1,
        input: "hi".into(),
        thread: None,
        owner: None,
        tenant: None,
        budgets: Budgets::none(),
        history: Vec::new(),
        history_usage: Default::default(),
        history_cost: Default::default(),
        config_hash: None,
    }
}

/// The run's answer, `text`.
pub fn answered(text: &str) -> LoopEvent {
    LoopEvent::Answered {
        answer: Answer::Text(text.to_owned()),
    }
}

/// The rows `sql` reads in the PostgreSQL database of `url`, one text each (NULL as empty).
pub fn texts(url: &str, sql: &str) -> Vec<String> {
    pg_server::query_texts(url, sql)
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
        .into_iter()
        .map(Option::unwrap_or_default)
        .collect()
}

/// The `started` event of execution `id` in `thread`, run by `owner`.
pub fn started_in(id: &str, thread: &str, owner: Option<&str>) -> LoopEvent {
    let mut event = started(id);
    if let LoopEvent::Started {
        thread: in_thread,
        owner: named,
        ..
    } = &mut event
    {
        *in_thread = Some(thread.to_owned());
        *named = owner.map(str::to_owned);
    }
    event
}

/// Starts three threads, in this order: `e-2` by ann is the first run of `t-1`, `e-1` of `t-2`
/// by no one, `e-3` by cy of `t-3` (what [`owners_after_migration`] checks once migrated).
pub async fn three_threads(store: &dyn Store) {
    for (id, thread, owner) in [
        ("e-2", "t-1", Some("ann")),
        ("e-1", "t-2", None),
        ("e-3", "t-3", Some("cy")),
    ] {
        store
            .append(id, 0, &started_in(id, thread, owner))
            .await
            .unwrap();
    }
}

/// A store migrated from a schema without thread owners: each thread has the owner of its first
/// execution (`t-1` ann, `t-2` none, `t-3` cy), a run by another owner is refused, and the
/// thread's executions are listed in order.
pub async fn owners_after_migration(store: &dyn Store) {
    let owned = |owner: &str| Some(ThreadOwner::Owned(owner.to_owned()));
    assert_eq!(store.thread_owner("t-1").await.unwrap(), owned("ann"));
    assert_eq!(
        store.thread_owner("t-2").await.unwrap(),
        Some(ThreadOwner::Unowned)
    );
    assert_eq!(store.thread_owner("t-3").await.unwrap(), owned("cy"));
    assert_eq!(store.thread_owner("t-4").await.unwrap(), None);
    let bob = store
        .append("e-10", 0, &started_in("e-10", "t-1", Some("bob")))
        .await
        .unwrap_err();
    assert!(bob.is_owner_mismatch(), "{bob}");
    store
        .append("e-11", 0, &started_in("e-11", "t-1", Some("ann")))
        .await
        .unwrap();
    let ids: Vec<String> = store
        .thread("t-1")
        .await
        .unwrap()
        .into_iter()
        .map(|r| r.execution_id)
        .collect();
    assert_eq!(ids, ["e-2", "e-9", "e-11"]);
}
