//! The cases of appends and reads: the order, the refusals, racing writers, the records derived
//! after every event, a thread's listing, reopening, and every event read back as written.

use agboss_rules::codes;
use std::sync::Arc;

use agboss_core::journal::{Answer, ExecutionStatus, LoopEvent, PauseQuery, PauseResolution};
use agboss_core::store::{Journal, StoreErrorKind};

use crate::conformance::Backend;
use crate::conformance::events::*;
use crate::conformance::support::{append_all, refusal};

fn conflict(execution: &str, held: u64, seq: u64) -> (StoreErrorKind, String) {
    (
        StoreErrorKind::Conflict,
        format!("execution `{execution}` has {held} events: event {seq} would not follow them"),
    )
}

pub(super) fn pause_ids(pauses: &[agboss_core::journal::PauseRecord]) -> Vec<&str> {
    pauses.iter().map(|p| p.pause_id()).collect()
}

/// Events come back in the order appended; a seq already taken or past the next is a
/// `Conflict`, and changes nothing.
pub async fn appends_in_order_and_refuses_a_stale_or_early_seq(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    let store = backend.open().await;
    let journal = [
        started("e-1", None, None),
        model_answered(1, &["c-1"]),
        tool_finished("c-1"),
        answered("done"),
    ];
    append_all(&*store, "e-1", &journal[..2]).await;
    let stale = store.append("e-1", 1, &journal[2]).await;
    assert_eq!(refusal(stale), conflict("e-1", 2, 1));
    let early = store.append("e-1", 3, &journal[2]).await;
    assert_eq!(refusal(early), conflict("e-1", 2, 3));
    let error = store.append("e-1", 0, &journal[0]).await.unwrap_err();
    assert!(error.is_conflict(), "{error}");
    assert!(!error.store.is_empty(), "an error names its store");
    store.append("e-1", 2, &journal[2]).await.unwrap();
    store.append("e-1", 3, &journal[3]).await.unwrap();
    assert_eq!(store.events("e-1").await.unwrap(), journal);
    assert_eq!(store.execution("e-1").await.unwrap().unwrap().events, 4);
    let unknown = store.append("e-2", 1, &journal[0]).await;
    assert_eq!(refusal(unknown), conflict("e-2", 0, 1));
    assert_eq!(store.events("e-2").await.unwrap(), []);
    assert_eq!(store.execution("e-2").await.unwrap(), None);
}

/// The refusals of `MemoryStore`: a journal starts with `started`, once; a pause is opened
/// once, resolved once, and changed only once opened. A refused event writes nothing, and its seq stays free.
pub async fn refuses_what_memory_refuses(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    let not_started = store.append("e-1", 0, &answered("hi")).await;
    let starts = |e: &str| {
        (
            StoreErrorKind::Invalid,
            format!("execution `{e}`: a journal starts with `started`, once"),
        )
    };
    assert_eq!(refusal(not_started), starts("e-1"));
    assert_eq!(store.execution("e-1").await.unwrap(), None);
    assert_eq!(store.thread("e-1").await.unwrap(), []);
    append_all(&*store, "e-1", &[started("e-1", Some("t"), Some("u"))]).await;
    let twice = store.append("e-1", 1, &started("e-1", None, None)).await;
    assert_eq!(refusal(twice), starts("e-1"));
    let never = |p: &str| {
        (
            StoreErrorKind::Invalid,
            format!("pause `{p}` was never opened"),
        )
    };
    let awaiting = store.append("e-1", 1, &pause_awaiting("p-0")).await;
    assert_eq!(refusal(awaiting), never("p-0"));
    let resolved = resolutions().remove(0);
    let resolving = store
        .append("e-1", 1, &pause_resolved("p-0", resolved))
        .await;
    assert_eq!(refusal(resolving), never("p-0"));
    store
        .append("e-1", 1, &pause_opened("p-1", "c-1", Some("u"), 5))
        .await
        .unwrap();
    let again = store
        .append("e-1", 2, &pause_opened("p-1", "c-2", None, 6))
        .await;
    let opened_twice = (
        StoreErrorKind::Invalid,
        "pause `p-1` is opened twice".to_owned(),
    );
    assert_eq!(refusal(again), opened_twice);
    append_all(&*store, "e-2", &[started("e-2", Some("t"), Some("u"))]).await;
    let elsewhere = store
        .append("e-2", 1, &pause_opened("p-1", "c-1", None, 7))
        .await;
    assert_eq!(refusal(elsewhere), opened_twice, "pause ids are global");
    assert_eq!(store.events("e-1").await.unwrap().len(), 2);
    assert_eq!(store.execution("e-1").await.unwrap().unwrap().events, 2);
    assert_eq!(store.execution("e-2").await.unwrap().unwrap().events, 1);
    let pause = store.pause("p-1").await.unwrap().unwrap();
    assert_eq!(
        (pause.execution_id.as_str(), pause.opened.call_id.as_str()),
        ("e-1", "c-1")
    );
    assert_eq!(store.pause("p-0").await.unwrap(), None);
    // The first resolution stands: a second one (two answers that both passed their checks)
    // is refused, and a late word of the channel that it awaits changes nothing that matters.
    let mut answers = resolutions();
    let (first, second) = (answers.remove(0), answers.remove(0));
    store
        .append("e-1", 2, &pause_resolved("p-1", first.clone()))
        .await
        .unwrap();
    let again = store.append("e-1", 3, &pause_resolved("p-1", second)).await;
    assert_eq!(
        refusal(again),
        (
            StoreErrorKind::Invalid,
            "pause `p-1` is resolved already".to_owned()
        )
    );
    store
        .append("e-1", 3, &pause_awaiting("p-1"))
        .await
        .unwrap();
    let pause = store.pause("p-1").await.unwrap().unwrap();
    assert_eq!(pause.resolution, Some(first));
    assert!(!pause.is_open());
    assert_eq!(store.events("e-1").await.unwrap().len(), 4);
}

/// Many tasks race to append each seq of one execution: exactly one wins each, every other
/// gets `Conflict`, and the journal holds the winners in order.
pub async fn exactly_one_of_racing_appends_wins_each_seq(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    const RACERS: usize = 16;
    const SEQS: u64 = 12;
    let store = backend.open().await;
    let mut winners = Vec::new();
    for seq in 0..SEQS {
        let tasks: Vec<_> = (0..RACERS)
            .map(|racer| {
                let store = Arc::clone(&store);
                let event = if seq == 0 {
                    started("e-race", None, Some(&format!("racer-{racer}")))
                } else {
                    tool_finished(&format!("c-{seq}-{racer}"))
                };
                tokio::spawn(async move {
                    let result = store.append("e-race", seq, &event).await;
                    (event, result)
                })
            })
            .collect();
        let mut won = Vec::new();
        for task in tasks {
            let (event, result) = task.await.expect("a racer");
            match result {
                Ok(()) => won.push(event),
                Err(e) => assert_eq!(e.kind, StoreErrorKind::Conflict, "{e}"),
            }
        }
        assert_eq!(won.len(), 1, "seq {seq}: exactly one winner");
        winners.extend(won);
    }
    assert_eq!(store.events("e-race").await.unwrap(), winners);
    assert_eq!(
        store.execution("e-race").await.unwrap().unwrap().events,
        SEQS
    );
}

/// Executions appended to concurrently, each by its own task, are all kept whole.
pub async fn concurrent_executions_all_append(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    let tasks: Vec<_> = (0..40)
        .map(|i| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let id = format!("e-{i:02}");
                let pause = format!("p-{i:02}");
                let journal = [
                    started(&id, Some("t-shared"), Some("u-1")),
                    model_answered(1, &["c-1"]),
                    pause_opened(&pause, "c-1", Some("u-1"), i),
                    pause_awaiting(&pause),
                ];
                append_all(&*store, &id, &journal).await;
                (id, journal)
            })
        })
        .collect();
    for task in tasks {
        let (id, journal) = task.await.expect("a writer");
        assert_eq!(store.events(&id).await.unwrap(), journal);
    }
    let all = PauseQuery::default();
    let open = store.open_pauses(&all).await.unwrap();
    let expected: Vec<String> = (0..40).map(|i| format!("p-{i:02}")).collect();
    assert_eq!(pause_ids(&open), expected, "oldest first");
    assert_eq!(store.thread("t-shared").await.unwrap().len(), 40);
}

/// The execution record after each kind of event: its thread, owner, tenant, input, status,
/// open pauses and event count.
pub async fn derives_the_execution_record_after_every_event(
    mut backend: Box<dyn Backend<dyn Journal>>,
) {
    let store = backend.open().await;
    let journal = every_variant("e-1");
    for (seq, event) in journal.iter().enumerate() {
        store.append("e-1", seq as u64, event).await.unwrap();
        let record = store.execution("e-1").await.unwrap().expect("a record");
        assert_eq!(record.events, seq as u64 + 1);
        // Each pause takes four events from `FIRST_PAUSE_AT`: opened, awaiting, rejected,
        // resolved; the journal ends with the answer and the summary a later run of the
        // thread made.
        let open = match seq {
            FIRST_PAUSE_AT.. if seq < journal.len() - 2 => {
                u32::from((seq - FIRST_PAUSE_AT) % 4 != 3)
            }
            _ => 0,
        };
        assert_eq!(record.open_pauses, open, "after event {seq}");
        assert_eq!(record.is_paused(), open > 0);
    }
    let record = store.execution("e-1").await.unwrap().unwrap();
    assert_eq!(
        (record.workflow.as_str(), record.agent.as_str()),
        ("desk", "notes")
    );
    assert_eq!(record.thread_id, "t-1");
    assert_eq!(record.owner_id.as_deref(), Some("u-1"));
    assert_eq!(record.tenant_id.as_deref(), Some("acme"));
    assert_eq!(record.input, "the input of e-1");
    assert_eq!(
        record.summary.as_deref(),
        Some("saved two notes; the user wants them dated")
    );
    assert!(matches!(
        record.status,
        ExecutionStatus::Answered {
            answer: Answer::Structured(_)
        }
    ));
    for (id, end, status) in [
        (
            "e-2",
            answered("ok"),
            ExecutionStatus::Answered {
                answer: Answer::Text("ok".into()),
            },
        ),
        (
            "e-3",
            failed(codes::BUDGETS_USD.id()),
            ExecutionStatus::Failed {
                code: codes::BUDGETS_USD.id().into(),
            },
        ),
        (
            "e-4",
            failed(codes::CANCELLED.id()),
            ExecutionStatus::Cancelled,
        ),
    ] {
        append_all(&*store, id, &[started(id, None, None), end]).await;
        let record = store.execution(id).await.unwrap().unwrap();
        assert_eq!(record.status, status);
        assert_eq!(record.thread_id, id, "no thread: its own id");
        assert_eq!(record.owner_id, None);
    }
    let running = store.execution("e-5").await.unwrap();
    assert_eq!(running, None);
    append_all(&*store, "e-5", &[started("e-5", None, None)]).await;
    let running = store.execution("e-5").await.unwrap().unwrap();
    assert_eq!(running.status, ExecutionStatus::Running);
}

/// A thread's executions in the order they started (not by id); an unknown thread has none.
pub async fn lists_a_thread_in_start_order(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    for id in ["e-3", "e-1", "e-2"] {
        append_all(&*store, id, &[started(id, Some("t-1"), Some("u-1"))]).await;
    }
    append_all(&*store, "e-0", &[started("e-0", Some("t-2"), None)]).await;
    store.append("e-1", 1, &answered("ok")).await.unwrap();
    let thread = store.thread("t-1").await.unwrap();
    let ids: Vec<&str> = thread.iter().map(|r| r.execution_id.as_str()).collect();
    assert_eq!(ids, ["e-3", "e-1", "e-2"]);
    assert_eq!(thread[1], store.execution("e-1").await.unwrap().unwrap());
    assert_eq!(store.thread("t-2").await.unwrap().len(), 1);
    assert_eq!(store.thread("t-none").await.unwrap(), []);
    append_all(&*store, "e-9", &[started("e-9", None, None)]).await;
    assert_eq!(store.thread("e-9").await.unwrap()[0].execution_id, "e-9");
}

/// What a store took is still there, and still checked, after it is dropped and opened again.
pub async fn keeps_everything_across_reopening(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    let journal = every_variant("e-1");
    append_all(&*store, "e-1", &journal).await;
    let paused = [
        started("e-2", Some("t-1"), Some("u-1")),
        pause_opened("p-open", "c-1", Some("u-1"), 3),
    ];
    append_all(&*store, "e-2", &paused).await;
    let before = (
        store.execution("e-1").await.unwrap(),
        store.pause("p-open").await.unwrap(),
        store.thread("t-1").await.unwrap(),
    );
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.events("e-1").await.unwrap(), journal);
    assert_eq!(store.events("e-2").await.unwrap(), paused);
    let after = (
        store.execution("e-1").await.unwrap(),
        store.pause("p-open").await.unwrap(),
        store.thread("t-1").await.unwrap(),
    );
    assert_eq!(after, before);
    let open = store.open_pauses(&PauseQuery::default()).await.unwrap();
    assert_eq!(pause_ids(&open), ["p-open"]);
    let stale = store.append("e-2", 1, &answered("late")).await;
    assert_eq!(refusal(stale), conflict("e-2", 2, 1));
    let resolved = pause_resolved("p-open", PauseResolution::Decided { answer: 1.into() });
    store.append("e-2", 2, &resolved).await.unwrap();
    assert_eq!(store.open_pauses(&PauseQuery::default()).await.unwrap(), []);
}

/// Every event variant comes back equal, and serializes to the very bytes it did before.
pub async fn round_trips_every_event_byte_for_byte(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    let mut journals = vec![("e-1", every_variant("e-1"))];
    journals.push((
        "e-2",
        vec![started("e-2", None, None), failed(codes::MODEL.id())],
    ));
    for (id, journal) in &journals {
        append_all(&*store, id, journal).await;
        let read = store.events(id).await.unwrap();
        assert_eq!(&read, journal);
        for (written, read) in journal.iter().zip(&read) {
            let written = serde_json::to_string(written).unwrap();
            assert_eq!(serde_json::to_string(read).unwrap(), written);
        }
    }
}

/// A journal of the first layout (a `started` of version 1, without thread, owner, tenant or
/// budgets) is taken and read back as it was, in the execution's own thread.
pub async fn reads_a_journal_of_the_first_layout(mut backend: Box<dyn Backend<dyn Journal>>) {
    let store = backend.open().await;
    let v1 = r#"{"event":"started","version":1,"execution_id":"e-old","workflow":"desk","agent":"notes","visit":1,"input":"hi"}"#;
    let first: LoopEvent = serde_json::from_str(v1).expect("a version 1 event");
    let journal = [first, model_answered(1, &["c-1"]), tool_finished("c-1")];
    append_all(&*store, "e-old", &journal).await;
    let read = store.events("e-old").await.unwrap();
    assert_eq!(read, journal);
    assert_eq!(serde_json::to_string(&read[0]).unwrap(), {
        let mut now = v1.trim_end_matches('}').to_owned();
        now.push_str(r#","budgets":{}}"#);
        now
    });
    let record = store.execution("e-old").await.unwrap().unwrap();
    assert_eq!(record.thread_id, "e-old");
    assert_eq!((record.owner_id, record.tenant_id), (None, None));
    assert_eq!(store.thread("e-old").await.unwrap().len(), 1);
}
