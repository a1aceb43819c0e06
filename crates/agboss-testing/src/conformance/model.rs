//! The state-machine property test: random operations applied to the store under test and to a
//! [`MemoryStore`] side by side, compared after every step.

use std::sync::Arc;

use agboss_core::journal::{LoopEvent, MemoryStore, PauseQuery, Store, StoreErrorKind};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::Backend;
use super::events::*;

/// How many random sequences [`differential`] tries (shrinking a failure adds more).
pub const DIFFERENTIAL_CASES: u32 = 64;

const EXECUTIONS: u8 = 3;
const PAUSES: u8 = 4;

/// One operation: an event appended to execution `execution` at its next seq moved by `skew`
/// (0 most of the time; -1 or +1 for a stale or early seq).
#[derive(Clone, Debug)]
struct Op {
    execution: u8,
    skew: i8,
    event: Kind,
}

#[derive(Clone, Debug)]
enum Kind {
    Started {
        thread: u8,
        owner: Option<u8>,
    },
    ModelAnswered {
        calls: u8,
    },
    ToolFinished,
    PauseOpened {
        pause: u8,
        owner: Option<u8>,
        at: u8,
    },
    PauseAwaiting {
        pause: u8,
    },
    PauseResolved {
        pause: u8,
        how: u8,
    },
    AnswerRejected {
        pause: u8,
    },
    Answered,
    Failed {
        cancelled: bool,
    },
}

fn kinds() -> impl Strategy<Value = Kind> {
    let pause = 0..PAUSES;
    prop_oneof![
        2 => (0..2u8, proptest::option::of(0..2u8))
            .prop_map(|(thread, owner)| Kind::Started { thread, owner }),
        2 => (1..3u8).prop_map(|calls| Kind::ModelAnswered { calls }),
        1 => Just(Kind::ToolFinished),
        3 => (pause.clone(), proptest::option::of(0..2u8), 0..4u8)
            .prop_map(|(pause, owner, at)| Kind::PauseOpened { pause, owner, at }),
        1 => pause.clone().prop_map(|pause| Kind::PauseAwaiting { pause }),
        2 => (pause.clone(), 0..4u8).prop_map(|(pause, how)| Kind::PauseResolved { pause, how }),
        1 => pause.prop_map(|pause| Kind::AnswerRejected { pause }),
        1 => Just(Kind::Answered),
        1 => any::<bool>().prop_map(|cancelled| Kind::Failed { cancelled }),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let skew = prop_oneof![8 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)];
    proptest::collection::vec(
        (0..EXECUTIONS, skew, kinds()).prop_map(|(execution, skew, event)| Op {
            execution,
            skew,
            event,
        }),
        1..40,
    )
}

impl Op {
    fn event(&self) -> LoopEvent {
        let execution = format!("e-{}", self.execution);
        let user = |n: Option<u8>| n.map(|n| format!("u-{n}"));
        match &self.event {
            Kind::Started { thread, owner } => {
                let thread = format!("t-{thread}");
                started(&execution, Some(&thread), user(*owner).as_deref())
            }
            Kind::ModelAnswered { calls } => {
                let ids: Vec<String> = (0..*calls).map(|c| format!("c-{c}")).collect();
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                model_answered(1, &ids)
            }
            Kind::ToolFinished => tool_finished("c-0"),
            Kind::PauseOpened { pause, owner, at } => pause_opened(
                &format!("p-{pause}"),
                "c-0",
                user(*owner).as_deref(),
                u64::from(*at),
            ),
            Kind::PauseAwaiting { pause } => pause_awaiting(&format!("p-{pause}")),
            Kind::PauseResolved { pause, how } => {
                let resolution = resolutions().remove(usize::from(*how));
                pause_resolved(&format!("p-{pause}"), resolution)
            }
            Kind::AnswerRejected { pause } => {
                answer_rejected(&format!("p-{pause}"), "pause.expired")
            }
            Kind::Answered => answered("ok"),
            Kind::Failed { cancelled } => failed(if *cancelled { "cancelled" } else { "model" }),
        }
    }
}

/// The queries compared after every step: every execution, pause and thread of the universe,
/// and `open_pauses` under each filter, with and without a limit.
fn queries() -> Vec<PauseQuery> {
    let mut queries = vec![PauseQuery::default()];
    for n in 0..2 {
        queries.push(PauseQuery {
            owner: Some(format!("u-{n}")),
            ..PauseQuery::default()
        });
        queries.push(PauseQuery {
            thread: Some(format!("t-{n}")),
            owner: Some("u-0".into()),
            ..PauseQuery::default()
        });
        queries.push(PauseQuery {
            thread: Some(format!("t-{n}")),
            limit: Some(2),
            ..PauseQuery::default()
        });
    }
    for e in 0..EXECUTIONS {
        queries.push(PauseQuery {
            execution: Some(format!("e-{e}")),
            limit: Some(1),
            ..PauseQuery::default()
        });
    }
    queries
}

async fn agree(reference: &dyn Store, tested: &dyn Store) -> Result<(), TestCaseError> {
    for e in 0..EXECUTIONS {
        let id = format!("e-{e}");
        prop_assert_eq!(reference.events(&id).await, tested.events(&id).await);
        prop_assert_eq!(reference.execution(&id).await, tested.execution(&id).await);
    }
    for p in 0..PAUSES {
        let id = format!("p-{p}");
        prop_assert_eq!(reference.pause(&id).await, tested.pause(&id).await);
    }
    for t in 0..2 {
        let id = format!("t-{t}");
        prop_assert_eq!(reference.thread(&id).await, tested.thread(&id).await);
    }
    for query in queries() {
        let expected = reference.open_pauses(&query).await;
        prop_assert_eq!(expected, tested.open_pauses(&query).await, "{:?}", query);
    }
    Ok(())
}

async fn run_ops(ops: &[Op], tested: Arc<dyn Store>) -> Result<(), TestCaseError> {
    let reference = MemoryStore::new();
    for (step, op) in ops.iter().enumerate() {
        let id = format!("e-{}", op.execution);
        let next = reference
            .execution(&id)
            .await
            .ok()
            .flatten()
            .map_or(0, |r| r.events);
        let seq = next.saturating_add_signed(i64::from(op.skew));
        let event = op.event();
        let expected = reference.append(&id, seq, &event).await;
        let got = tested.append(&id, seq, &event).await;
        let kind_detail = |r: &Result<(), agboss_core::journal::StoreError>| {
            r.as_ref()
                .err()
                .map(|e| (e.kind, e.detail.clone()))
                .map_or(Ok(()), Err::<(), (StoreErrorKind, String)>)
        };
        prop_assert_eq!(
            kind_detail(&expected),
            kind_detail(&got),
            "step {}: {:?}",
            step,
            op
        );
        agree(&reference, &*tested).await?;
    }
    Ok(())
}

/// Runs [`DIFFERENTIAL_CASES`] random operation sequences against a fresh store of
/// `make_backend` each and a `MemoryStore`; panics with the shrunk sequence on a difference.
pub fn differential<B: Backend>(make_backend: impl Fn() -> B) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut runner = TestRunner::new(Config {
        cases: DIFFERENTIAL_CASES,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&ops(), |ops| {
        runtime.block_on(async {
            let mut backend = make_backend();
            let tested = backend.open().await;
            run_ops(&ops, tested).await
        })
    });
    if let Err(failure) = result {
        panic!("the store differs from MemoryStore: {failure}");
    }
}
