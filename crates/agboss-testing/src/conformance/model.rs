//! The state-machine property test: random operations applied to the store under test and to a
//! [`MemoryStore`] side by side, compared after every step: appends (some at stale or early
//! seqs, some refused, some from a lease's holder with its fence, a run's last ones releasing
//! the lease with them), and claims, renewals, releases and expiries of leases.

use agboss_rules::codes;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use agboss_core::journal::{Fence, Lease, LoopEvent, PauseQuery};
use agboss_core::store::{Journal, Leases, MemoryStore, StoreError, StoreErrorKind};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::Backend;
use super::events::*;

/// How many random sequences [`differential`] tries (shrinking a failure adds more); ten times
/// as many with `AGBOSS_FAULTS_LONG` set (the long lane of the fault tests).
pub const DIFFERENTIAL_CASES: u32 = 64;

fn cases() -> u32 {
    if std::env::var_os("AGBOSS_FAULTS_LONG").is_some() {
        DIFFERENTIAL_CASES * 10
    } else {
        DIFFERENTIAL_CASES
    }
}

const EXECUTIONS: u8 = 3;
const PAUSES: u8 = 4;

const HOLDERS: u8 = 2;

/// One operation on execution `execution`: an event appended at its next seq moved by `skew`
/// (0 most of the time; -1 or +1 for a stale or early seq), unfenced or from `writer`'s last
/// lease of it (`releasing`: an event that ends the run releases that lease with it,
/// [`Store::append_releasing`]); or an operation on leases.
#[derive(Clone, Debug)]
struct Op {
    execution: u8,
    skew: i8,
    writer: Option<u8>,
    releasing: bool,
    event: Kind,
}

/// What happens to leases.
#[derive(Clone, Debug)]
enum LeaseOp {
    /// Holder `holder` claims the execution, for long or for no time (it runs out at once).
    Acquire { holder: u8, long: bool },
    /// Holder `holder` renews its last lease of the execution.
    Renew { holder: u8 },
    /// Holder `holder` releases it.
    Release { holder: u8 },
    /// Holder `holder` claims up to `limit` runnable executions.
    Claim { holder: u8, long: bool, limit: u8 },
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
    Lease(LeaseOp),
}

fn lease_ops() -> impl Strategy<Value = LeaseOp> {
    let holder = 0..HOLDERS;
    prop_oneof![
        3 => (holder.clone(), any::<bool>()).prop_map(|(holder, long)| LeaseOp::Acquire { holder, long }),
        2 => holder.clone().prop_map(|holder| LeaseOp::Renew { holder }),
        1 => holder.clone().prop_map(|holder| LeaseOp::Release { holder }),
        2 => (holder, any::<bool>(), 0..3u8).prop_map(|(holder, long, limit)| LeaseOp::Claim { holder, long, limit }),
    ]
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
        4 => lease_ops().prop_map(Kind::Lease),
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    let skew = prop_oneof![8 => Just(0i8), 1 => Just(-1i8), 1 => Just(1i8)];
    let writer = prop_oneof![2 => Just(None), 1 => (0..HOLDERS).prop_map(Some)];
    proptest::collection::vec(
        (0..EXECUTIONS, skew, writer, any::<bool>(), kinds()).prop_map(
            |(execution, skew, writer, releasing, event)| Op {
                execution,
                skew,
                writer,
                releasing,
                event,
            },
        ),
        1..48,
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
                answer_rejected(&format!("p-{pause}"), codes::PAUSE_EXPIRED.id())
            }
            Kind::Answered => answered("ok"),
            Kind::Failed { cancelled } => failed(if *cancelled {
                codes::CANCELLED.id()
            } else {
                codes::MODEL.id()
            }),
            Kind::Lease(_) => unreachable!("not an event"),
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

async fn agree(reference: &dyn Leases, tested: &dyn Leases) -> Result<(), TestCaseError> {
    for e in 0..EXECUTIONS {
        let id = format!("e-{e}");
        prop_assert_eq!(reference.entries(&id).await, tested.entries(&id).await);
        prop_assert_eq!(reference.execution(&id).await, tested.execution(&id).await);
        prop_assert_eq!(reference.lease(&id).await, tested.lease(&id).await);
    }
    for p in 0..PAUSES {
        let id = format!("p-{p}");
        prop_assert_eq!(reference.pause(&id).await, tested.pause(&id).await);
    }
    for t in 0..2 {
        let id = format!("t-{t}");
        prop_assert_eq!(reference.thread(&id).await, tested.thread(&id).await);
        let owner = reference.thread_owner(&id).await;
        prop_assert_eq!(owner, tested.thread_owner(&id).await);
    }
    for query in queries() {
        let expected = reference.open_pauses(&query).await;
        prop_assert_eq!(expected, tested.open_pauses(&query).await, "{:?}", query);
    }
    Ok(())
}

/// A result as compared: what it gave, or its error's kind and detail (stores differ only in
/// their names).
fn compared<T>(result: Result<T, StoreError>) -> Result<T, (StoreErrorKind, String)> {
    result.map_err(|e| (e.kind, e.detail))
}

const LONG: Duration = Duration::from_secs(3_600);

fn ttl(long: bool) -> Duration {
    if long { LONG } else { Duration::ZERO }
}

async fn run_ops(ops: &[Op], tested: Arc<dyn Leases>) -> Result<(), TestCaseError> {
    let reference = MemoryStore::new();
    // Each holder's last lease of each execution, as the stores gave it.
    let mut leases: HashMap<(u8, String), Lease> = HashMap::new();
    for (step, op) in ops.iter().enumerate() {
        let id = format!("e-{}", op.execution);
        let holder = |h: u8| format!("h-{h}");
        if let Kind::Lease(lease_op) = &op.event {
            match *lease_op {
                LeaseOp::Acquire { holder: h, long } => {
                    let expected = compared(reference.acquire(&id, &holder(h), ttl(long)).await);
                    let got = compared(tested.acquire(&id, &holder(h), ttl(long)).await);
                    prop_assert_eq!(&expected, &got, "step {}: {:?}", step, op);
                    if let Ok(Some(lease)) = expected {
                        leases.insert((h, id.clone()), lease);
                    }
                }
                LeaseOp::Renew { holder: h } | LeaseOp::Release { holder: h } => {
                    let Some(lease) = leases.get(&(h, id.clone())) else {
                        continue;
                    };
                    let (expected, got) = if matches!(lease_op, LeaseOp::Renew { .. }) {
                        (reference.renew(lease).await, tested.renew(lease).await)
                    } else {
                        (reference.release(lease).await, tested.release(lease).await)
                    };
                    prop_assert_eq!(compared(expected), compared(got), "step {}: {:?}", step, op);
                }
                LeaseOp::Claim {
                    holder: h,
                    long,
                    limit,
                } => {
                    let limit = usize::from(limit);
                    let expected = compared(reference.claim(&holder(h), ttl(long), limit).await);
                    let got = compared(tested.claim(&holder(h), ttl(long), limit).await);
                    prop_assert_eq!(&expected, &got, "step {}: {:?}", step, op);
                    for lease in expected.unwrap_or_default() {
                        leases.insert((h, lease.execution_id.clone()), lease);
                    }
                }
            }
            agree(&reference, &*tested).await?;
            continue;
        }
        let next = reference
            .execution(&id)
            .await
            .ok()
            .flatten()
            .map_or(0, |r| r.events);
        let seq = next.saturating_add_signed(i64::from(op.skew));
        let event = op.event();
        let lease = op.writer.and_then(|h| leases.get(&(h, id.clone())));
        let fence = match (op.writer, lease) {
            (None, _) => Fence::Unfenced,
            (Some(_), lease) => lease.map_or(Fence::Epoch(99), Lease::fence),
        };
        let (expected, got) = match lease {
            Some(lease) if op.releasing && event.ends_run() => (
                reference.append_releasing(lease, seq, &event).await,
                tested.append_releasing(lease, seq, &event).await,
            ),
            _ => (
                reference.append_as(&id, seq, &event, fence).await,
                tested.append_as(&id, seq, &event, fence).await,
            ),
        };
        let (expected, got) = (compared(expected), compared(got));
        prop_assert_eq!(expected, got, "step {}: {:?}", step, op);
        agree(&reference, &*tested).await?;
    }
    Ok(())
}

/// Runs [`DIFFERENTIAL_CASES`] random operation sequences against a fresh store of
/// `make_backend` each and a `MemoryStore`; panics with the shrunk sequence on a difference.
/// What it compares is the journal and its leases: a backend of a lease store
/// (`Backend<dyn Leases>`), which a whole store's backend is.
pub fn differential<B: Backend<dyn Leases>>(make_backend: impl Fn() -> B) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&ops(), |ops| {
        runtime.block_on(async {
            let mut backend = make_backend();
            let tested = Backend::<dyn Leases>::open(&mut backend).await;
            run_ops(&ops, tested).await
        })
    });
    if let Err(failure) = result {
        panic!("the store differs from MemoryStore: {failure}");
    }
}
