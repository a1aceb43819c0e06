//! The cases about pauses: their records, and listing the open ones.

use agboss_core::journal::{LoopEvent, PauseQuery};
use agboss_rules::codes;

use agboss_core::store::Journal;

use super::appends::pause_ids;
use crate::conformance::Backend;
use crate::conformance::events::*;
use crate::conformance::support::append_all;

/// A pause's record as it opens, awaits, sees an answer refused, and closes each way.
pub async fn derives_pause_records(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    append_all(&*store, "e-1", &every_variant("e-1")).await;
    for (i, resolution) in resolutions().into_iter().enumerate() {
        let pause = store.pause(&format!("e-1-p{i}")).await.unwrap().unwrap();
        assert_eq!(pause.execution_id, "e-1");
        assert_eq!(pause.thread_id, "t-1");
        assert_eq!(pause.opened_at_seq, (FIRST_PAUSE_AT + 4 * i) as u64);
        assert!(pause.awaiting);
        assert_eq!(pause.resolution, Some(resolution));
        assert!(!pause.is_open());
        let LoopEvent::PauseOpened(opened) = &every_variant("e-1")[FIRST_PAUSE_AT + 4 * i] else {
            unreachable!("every_variant opens a pause there")
        };
        assert_eq!(&pause.opened, opened);
    }
    let journal = [
        started("e-2", None, Some("u-2")),
        pause_opened("p-2", "c-1", Some("u-2"), 9),
    ];
    append_all(&*store, "e-2", &journal).await;
    let pause = store.pause("p-2").await.unwrap().unwrap();
    assert!(pause.is_open() && !pause.awaiting && pause.resolution.is_none());
    store
        .append(
            "e-2",
            2,
            &answer_rejected("p-2", codes::PAUSE_WRONG_ANSWERER.id()),
        )
        .await
        .unwrap();
    assert_eq!(store.pause("p-2").await.unwrap().unwrap(), pause);
    store
        .append("e-2", 3, &pause_awaiting("p-2"))
        .await
        .unwrap();
    assert!(store.pause("p-2").await.unwrap().unwrap().awaiting);
    assert_eq!(store.pause("p-none").await.unwrap(), None);
}

/// A pause to open: its id, its owner (none: answered by its channel), when.
type Opened<'a> = (&'a str, Option<&'a str>, u64);

/// `open_pauses`: open ones only; by owner (thread-owner pauses only), thread and execution,
/// combined; oldest first (then by execution id, then journal position); at most `limit`.
pub async fn lists_open_pauses_by_filter_oldest_first_with_limit(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    let store = backend.open().await;
    let journals: [(&str, &str, &[Opened<'_>]); 3] = [
        (
            "e-b",
            "t-1",
            &[
                ("b1", Some("ann"), 30),
                ("b2", None, 10),
                ("b3", Some("ann"), 20),
            ],
        ),
        (
            "e-a",
            "t-1",
            &[("a1", Some("ann"), 20), ("a2", Some("bob"), 5)],
        ),
        (
            "e-c",
            "t-2",
            &[("c1", Some("ann"), 20), ("c2", Some("ann"), 20)],
        ),
    ];
    for (id, thread, pauses) in journals {
        let mut journal = vec![started(id, Some(thread), Some("ann"))];
        for (pause, owner, at) in pauses {
            journal.push(pause_opened(pause, "c-1", *owner, *at));
        }
        append_all(&*store, id, &journal).await;
    }
    let closed = pause_resolved("c2", resolutions().remove(1));
    store.append("e-c", 3, &closed).await.unwrap();
    let query = |owner: Option<&str>, thread: Option<&str>, execution: Option<&str>| PauseQuery {
        owner: owner.map(str::to_owned),
        thread: thread.map(str::to_owned),
        execution: execution.map(str::to_owned),
        limit: None,
    };
    let cases: [(PauseQuery, &[&str]); 8] = [
        (
            query(None, None, None),
            &["a2", "b2", "a1", "b3", "c1", "b1"],
        ),
        (query(Some("ann"), None, None), &["a1", "b3", "c1", "b1"]),
        (query(Some("bob"), None, None), &["a2"]),
        (query(Some("nobody"), None, None), &[]),
        (
            query(None, Some("t-1"), None),
            &["a2", "b2", "a1", "b3", "b1"],
        ),
        (query(None, None, Some("e-b")), &["b2", "b3", "b1"]),
        (query(Some("ann"), Some("t-1"), None), &["a1", "b3", "b1"]),
        (query(Some("ann"), Some("t-2"), Some("e-b")), &[]),
    ];
    for (query, expected) in cases {
        let found = store.open_pauses(&query).await.unwrap();
        assert_eq!(pause_ids(&found), expected, "{query:?}");
        for limit in [0, 1, 2, 10] {
            let limited = PauseQuery {
                limit: Some(limit),
                ..query.clone()
            };
            let found = store.open_pauses(&limited).await.unwrap();
            let cut = &expected[..limit.min(expected.len())];
            assert_eq!(pause_ids(&found), cut, "{limited:?}");
        }
    }
    // Two pauses of one execution opened at the same millisecond: journal order.
    let journal = [
        started("e-d", Some("t-3"), None),
        pause_opened("d2", "c-1", None, 1),
        pause_opened("d1", "c-2", None, 1),
    ];
    append_all(&*store, "e-d", &journal).await;
    let found = store
        .open_pauses(&query(None, Some("t-3"), None))
        .await
        .unwrap();
    assert_eq!(pause_ids(&found), ["d2", "d1"]);
}
