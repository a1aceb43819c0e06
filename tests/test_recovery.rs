//! Crash recovery in one process: a run "crashes" when its store freezes right before an append
//! (`FaultyStore::freeze_before`) and its task is aborted, which leaves the store exactly as a
//! process killed there would; another instance then recovers it from the store. Fault plan T2
//! and T3 run here, with the in-process halves of T4, T7 and T18; the same faults on killed
//! worker processes are in test_durability.rs.

#[path = "recovery/mod.rs"]
mod recovery;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agboss::app::{WorkReport, Worker};
use agboss::journal::LoopEvent;
use agboss::prelude::ToolCallApprovalDecision;
use agboss::run::{RunError, RunOutcome};
use agboss::store::{MemoryStore, Store};
use agboss::testing::FaultyStore;
use agboss::units::millis;
use agboss::{Application, Resume};

use recovery::{ChargeInput, World};

#[path = "faults/report.rs"]
mod reporting;
use reporting::report;

/// A store on the world's clock, and a faulty wrapper of it.
fn stores(world: &World) -> (Arc<dyn Store>, Arc<FaultyStore>) {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::with_clock(world.clock.clone()));
    let faulty = Arc::new(FaultyStore::new(store.clone()));
    (store, faulty)
}

/// Runs `agent` on `app` in a task of its own until the faulty store freezes, then aborts it:
/// the process "dies" there. Returns the execution's id.
async fn crash(app: Application, faulty: &FaultyStore, agent: &str, id: &str) {
    let app = Arc::new(app);
    let (agent, id) = (agent.to_owned(), id.to_owned());
    let mut task = tokio::spawn({
        let app = app.clone();
        async move {
            app.run("desk", "go")
                .agent(&agent)
                .execution_id(&id)
                .thread(&id)
                .owner("u-1")
                .await
        }
    });
    tokio::select! {
        () = faulty.frozen() => task.abort(),
        done = &mut task => panic!("the run ended before the crash: {done:?}"),
    }
}

fn is_result(e: &LoopEvent) -> bool {
    matches!(e, LoopEvent::ToolFinished { .. })
}

/// A call interrupted after its intent (its tool ran; its result was not saved) runs again with
/// the same call id and key, a higher attempt, and what the crashed attempt spent is counted.
#[tokio::test]
async fn an_interrupted_call_runs_again_with_its_key_and_its_spend_is_kept() {
    let world = World::new();
    let (store, faulty) = stores(&world);
    faulty.freeze_before(is_result);
    crash(world.app("a", faulty.clone()), &faulty, "mailer", "e-1").await;
    let journal = store.events("e-1").await.unwrap();
    assert!(
        journal
            .iter()
            .any(|e| matches!(e, LoopEvent::ToolSpent { .. })),
        "what the call spent is journaled before its result: {journal:#?}"
    );
    world.after_the_lease();
    let b = world.app("b", store.clone());
    let recovered = b.recover().await;
    assert_eq!(
        (recovered.claimed, recovered.completed),
        (1, 1),
        "{recovered:?}"
    );
    let requests = world.effects.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(requests[0].key, requests[1].key, "the same key");
    assert_eq!(requests[0].call_id, "p1");
    assert_eq!((requests[0].attempt, requests[1].attempt), (1, 2));
    assert_eq!(
        world.effects.applied(),
        1,
        "the service applies the key once"
    );
    let outcome = b.resume_execution("e-1", None).await.unwrap();
    let done = outcome.completed().expect("completed");
    assert_eq!(
        done.spend,
        agboss::units::usd("0.80"),
        "both attempts' costs count"
    );
}

/// Fault plan T2: a tool that may not run twice (`on_crash = report`) interrupted after its
/// intent is never invoked again; the model reads a clear `outcome unknown` error.
#[tokio::test]
async fn t2_an_at_most_once_call_interrupted_is_reported_not_run_again() {
    const N: usize = 10;
    let world = World::new();
    let (store, faulty) = stores(&world);
    let mut clear = 0;
    for n in 0..N {
        let faulty = Arc::new(FaultyStore::new(store.clone()));
        faulty.freeze_before(is_result);
        let id = format!("e-{n}");
        crash(world.app("a", faulty.clone()), &faulty, "charger", &id).await;
    }
    drop(faulty);
    let before = world.effects.requests().len();
    world.after_the_lease();
    let b = world.app("b", store.clone());
    let recovered = b.recover().await;
    let reinvoked = world.effects.requests().len() - before;
    for n in 0..N {
        let events = store.events(&format!("e-{n}")).await.unwrap();
        let told = events.iter().any(|e| {
            matches!(e, LoopEvent::ToolFinished { content, is_error: true, .. }
                if content.starts_with("Tool error: outcome unknown: call `p")
                    && content.contains("of `charge-card-tool` started")
                    && content.ends_with("it is not run again (its tool says on_crash = report)"))
        });
        clear += usize::from(told);
        assert!(
            matches!(events.last(), Some(LoopEvent::Answered { .. })),
            "the model read the error and answered: {events:#?}"
        );
    }
    report(
        "T2",
        &format!(
            "re-invocations {reinvoked}/{N}; clear errors surfaced {clear}/{N}; recovered {}/{N}",
            recovered.completed
        ),
    );
    assert_eq!(reinvoked, 0);
    assert_eq!(clear, N);
    assert_eq!(recovered.completed, N);
}

/// `on_crash = ask`: the role is asked again whether to run the interrupted call, the question
/// saying it was interrupted; an approval runs it again with its key, a refusal gives the model
/// the reason.
#[tokio::test]
async fn an_interrupted_call_of_an_asking_tool_waits_for_its_role() {
    let world = World::new();
    let (store, _) = stores(&world);
    let a = world.app("a", store.clone());
    for id in ["e-yes", "e-no"] {
        let paused = a
            .run("desk", "refund")
            .agent("refunder")
            .execution_id(id)
            .owner("u-1")
            .await
            .unwrap();
        let pause_id = paused.paused().unwrap().pending[0].pause_id.clone();
        // Approved; the process dies right before the refund's result is saved.
        let faulty = Arc::new(FaultyStore::new(store.clone()));
        faulty.freeze_before(is_result);
        let crashing = Arc::new(world.app("a2", faulty.clone()));
        let resume = tokio::spawn({
            let crashing = crashing.clone();
            async move {
                let approve = ToolCallApprovalDecision::<ChargeInput>::approve();
                crashing
                    .resume(Resume::decision(pause_id, approve).answered_by("u-1"))
                    .await
            }
        });
        faulty.frozen().await;
        resume.abort();
    }
    world.after_the_lease();
    let b = world.app("b", store.clone());
    let recovered = b.recover().await;
    assert_eq!(recovered.paused, 2, "{recovered:?}");
    let mut answers = Vec::new();
    for (id, decision) in [
        ("e-yes", ToolCallApprovalDecision::<ChargeInput>::approve()),
        (
            "e-no",
            ToolCallApprovalDecision::refuse("it went through: the bank says so"),
        ),
    ] {
        let pauses = store
            .open_pauses(&agboss::journal::PauseQuery {
                execution: Some(id.into()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(pauses.len(), 1);
        let question = &pauses[0].opened.question;
        assert_eq!(question["interrupted"]["starts"], 1, "{question}");
        assert_eq!(pauses[0].opened.attempt, 1);
        let outcome = b
            .resume(Resume::decision(pauses[0].pause_id(), decision).answered_by("u-1"))
            .await
            .unwrap();
        assert!(outcome.completed().is_some(), "{outcome:?}");
        answers.push(store.events(id).await.unwrap());
    }
    let requests = world.effects.requests();
    let of = |id: &str| requests.iter().filter(|r| r.key.starts_with(id)).count();
    assert_eq!(of("e-yes:"), 2, "run again on approval, with its key");
    assert_eq!(of("e-no:"), 1, "not run again on refusal");
    let refused = answers[1].iter().any(|e| {
        matches!(e, LoopEvent::ToolFinished { content, .. }
            if content.contains("outcome unknown") && content.contains("it went through: the bank says so"))
    });
    assert!(refused, "{:#?}", answers[1]);
}

/// Fault plan T3: a crash while the model call is in flight. The model is asked again on
/// recovery; no tool of the lost response runs; call ids never collide with journaled ones.
#[tokio::test]
async fn t3_a_model_call_lost_in_a_crash_is_asked_again() {
    let world = World::new();
    let (store, faulty) = stores(&world);
    // The first answer asks for a call; the crash comes while the second is awaited.
    world.model.hold_response(2);
    let a = Arc::new(world.app("a", faulty.clone()));
    let run = tokio::spawn({
        let a = a.clone();
        async move {
            a.run("desk", "go")
                .agent("mailer")
                .execution_id("e-1")
                .await
        }
    });
    world.model.held().await;
    run.abort();
    // And one whose answer came back but was not journaled (the crash right before): it asked
    // for a call (p3, of response 3) that must never run.
    world.model.hold_response(0);
    let faulty2 = Arc::new(FaultyStore::new(store.clone()));
    faulty2.freeze_before(|e| matches!(e, LoopEvent::ModelAnswered { .. }));
    crash(world.app("a", faulty2.clone()), &faulty2, "mailer", "e-2").await;
    world.after_the_lease();
    let b = world.app("b", store.clone());
    let recovered = b.recover().await;
    assert_eq!(recovered.completed, 2, "{recovered:?}");
    let requests = world.effects.requests();
    let lost_ids = ["p2", "p3"];
    let orphans = requests
        .iter()
        .filter(|r| lost_ids.contains(&r.call_id.as_str()))
        .count();
    let mut collisions = 0;
    for id in ["e-1", "e-2"] {
        let mut ids = Vec::new();
        for event in store.events(id).await.unwrap() {
            if let LoopEvent::ModelAnswered { calls, .. } = event {
                ids.extend(calls.into_iter().map(|c| c.call_id));
            }
        }
        let unique: std::collections::HashSet<&String> = ids.iter().collect();
        collisions += ids.len() - unique.len();
    }
    report(
        "T3",
        &format!(
            "orphan tool executions {orphans}; id collisions {collisions}; executions recovered {}/2",
            recovered.completed
        ),
    );
    assert_eq!((orphans, collisions), (0, 0));
    // e-2's first model answer was lost: its journal holds only the recovered one's call.
    let e2: Vec<String> = requests
        .iter()
        .filter(|r| r.key.starts_with("e-2:"))
        .map(|r| r.call_id.clone())
        .collect();
    assert_eq!(e2.len(), 1, "{requests:#?}");
}

/// An instance that lost its lease starts nothing and writes nothing: when it notices by its
/// own clock (the store silent past the lease), its signal fires and it stops; when it does not
/// notice (its clock says the lease still runs) and another instance took over, the store
/// refuses its late write.
#[tokio::test]
async fn an_instance_that_lost_its_lease_stops_and_its_late_writes_are_refused() {
    let world = World::new();
    let (store, _) = stores(&world);
    // A's clock stands still: it never notices; the store's (the world's) runs on.
    let a_clock = agboss::time::ManualClock::new();
    let a = Arc::new(world.app_on("a", store.clone(), a_clock));
    world.hold.arm();
    *world.hold.ignores_signal.lock().unwrap() = true;
    let run = tokio::spawn({
        let a = a.clone();
        async move {
            a.run("desk", "go")
                .agent("mailer")
                .execution_id("e-1")
                .await
        }
    });
    world.hold.entered().await;
    world.after_the_lease();
    let b = world.app("b", store.clone());
    let b_run = tokio::spawn(async move { b.recover().await });
    // B's rerun of the call is not held; it finishes the execution.
    let recovered = b_run.await.unwrap();
    assert_eq!(recovered.completed, 1, "{recovered:?}");
    let journal_before = store.entries("e-1").await.unwrap();
    world.hold.release();
    let a_result = run.await.unwrap();
    match a_result {
        Err(RunError::LeaseLost(lost)) => {
            let text = lost.to_string();
            assert!(
                text.starts_with(
                    "ExecutionLeaseLostError: execution `e-1`: claim 1 was taken over"
                ),
                "{text}"
            );
        }
        other => panic!("A must stop on its lost lease: {other:?}"),
    }
    let journal_after = store.entries("e-1").await.unwrap();
    assert_eq!(journal_before, journal_after, "A's late result was refused");
    let epochs: Vec<Option<u64>> = journal_after.iter().map(|e| e.epoch).collect();
    assert!(
        epochs.windows(2).all(|w| w[0] <= w[1]),
        "epochs never go back: {epochs:?}"
    );
}

/// While the store is out of reach, a finished call's result waits and is committed when the
/// store comes back, and no new call starts meanwhile; the run then completes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_waits_for_the_store_and_no_call_starts_meanwhile() {
    let world = World::new();
    let (store, faulty) = stores(&world);
    let app = Arc::new(
        agboss::Application::builder("recovery")
            .workflow(agboss::Workflow::new("desk").agent::<recovery::Mailer>())
            .provide(world.effects.clone())
            .provide(world.hold.clone())
            .chat_model(world.model.clone())
            .store(faulty.clone())
            .lease_ttl(agboss::units::seconds(30))
            .build()
            .unwrap(),
    );
    world.hold.arm();
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run("desk", "go").agent("mailer").await }
    });
    world.hold.entered().await;
    faulty.set_unavailable(true);
    let responses = world.model.responses();
    world.hold.release();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!run.is_finished(), "the run waits for the store");
    assert_eq!(
        world.model.responses(),
        responses,
        "no model call during the outage"
    );
    assert!(faulty.refused() > 0);
    faulty.set_unavailable(false);
    let outcome = run.await.unwrap().unwrap();
    assert_eq!(outcome.text(), Some("done"));
    let results = store
        .events(outcome.execution_id())
        .await
        .unwrap()
        .into_iter()
        .filter(is_result)
        .count();
    assert_eq!(results, 1);
}

/// Several instances working on one store share its executions: each is driven to its end
/// once, and every call's key applied once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workers_share_the_executions_of_one_store() {
    let world = World::new();
    let (store, _) = stores(&world);
    let submitter = world.app("submitter", store.clone());
    let mut ids = Vec::new();
    for n in 0..30 {
        let id = submitter
            .run("desk", format!("job {n}"))
            .agent("mailer")
            .submit()
            .await
            .unwrap();
        ids.push(id);
    }
    let workers: Vec<_> = ["w-1", "w-2", "w-3"]
        .into_iter()
        .map(|w| {
            let app = world.app(w, store.clone());
            tokio::spawn(async move {
                app.worker()
                    .concurrency(4)
                    .until_idle()
                    .run(Default::default())
                    .await
            })
        })
        .collect();
    let mut completed = 0;
    let mut claimed = 0;
    for worker in workers {
        let report = worker.await.unwrap();
        completed += report.completed;
        claimed += report.claimed;
    }
    assert_eq!((completed, claimed), (30, 30));
    for id in &ids {
        let events = store.events(id).await.unwrap();
        let answers = events
            .iter()
            .filter(|e| matches!(e, LoopEvent::Answered { .. }))
            .count();
        assert_eq!(answers, 1, "{id}");
    }
    assert_eq!(world.effects.applied(), 30);
    assert_eq!(world.effects.requests().len(), 30, "no call ran twice");
}

/// A busy worker claims in batches: once a place frees, it waits until enough are free, or
/// for the batch's longest wait on the application's clock, and claims for all of them at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_worker_claims_in_batches() {
    let world = World::new();
    let (store, faulty) = submitted(&world, 10).await;
    // The first call waits in its tool until let go: its place stays taken.
    world.hold.arm();
    let app = world.app("w-1", store.clone());
    let (worker, ended) = counting_worker(app, |w| w.concurrency(4).claim_batch(4, millis(200)));
    // Three of the first four end; the fourth holds its place, so three are free, fewer than
    // the batch: no claim until the batch's wait is over.
    world.hold.entered().await;
    wait_for(|| ended.load(Ordering::SeqCst) == 3).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        faulty.claims(),
        [(4, 4)],
        "nothing claimed before the wait is over"
    );
    // Once it is (on the application's clock; the lease is renewed meanwhile), one claim for
    // the three free places.
    while faulty.claims().len() < 2 {
        world.clock.advance(Duration::from_millis(50));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(faulty.claims()[1], (3, 3));
    world.hold.release();
    let report = worker.await.unwrap();
    assert_eq!(report.completed, 10, "{report:?}");
    // Claims after the first waited for the batch (or for nothing left running): none asked
    // for fewer places than were free at the wait's end.
    assert!(
        faulty.claims().iter().all(|&(asked, _)| asked >= 3),
        "{:?}",
        faulty.claims()
    );
}

/// By default a worker claims for a quarter of its places at a time: one of 8 places never
/// claims for a single free place while the application's clock stands still (the batch's wait,
/// 10 ms, is on that clock), and still drives every execution.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_claims_for_a_quarter_of_its_places_by_default() {
    let world = World::new();
    let (store, faulty) = submitted(&world, 20).await;
    let report = world
        .app("w-1", store.clone())
        .worker()
        .concurrency(8)
        .until_idle()
        .run(Default::default())
        .await;
    assert_eq!(report.completed, 20, "{report:?}");
    let claims = faulty.claims();
    assert_eq!(claims[0], (8, 8), "the first claim fills every place");
    assert!(
        claims.len() > 2 && claims.iter().all(|&(asked, _)| asked >= 2),
        "{claims:?}"
    );
}

/// By default a busy worker's lone free place waits 10 ms on the application's clock for
/// another to free (a quarter of 8 places is 2), then is claimed for alone: not a moment
/// before, however long the clock stands still.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lone_free_place_is_claimed_for_after_10_ms_by_default() {
    let world = World::new();
    let (store, faulty) = submitted(&world, 9).await;
    // Seven of the first eight calls wait in their tools: one place frees, the others stay
    // taken.
    world.hold.arm_calls(7);
    let app = world.app("w-1", store.clone());
    let (worker, ended) = counting_worker(app, |w| w.concurrency(8));
    wait_for(|| world.hold.holding() == 7 && ended.load(Ordering::SeqCst) == 1).await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(faulty.claims(), [(8, 8)], "the clock stands still");
    world.clock.advance(Duration::from_millis(9));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(faulty.claims(), [(8, 8)], "9 ms is not the wait");
    world.clock.advance(Duration::from_millis(1));
    wait_for(|| faulty.claims().len() == 2).await;
    assert_eq!(
        faulty.claims()[1],
        (1, 1),
        "one claim for the one free place"
    );
    world.hold.release();
    let report = worker.await.unwrap();
    assert_eq!(report.completed, 9, "{report:?}");
}

/// A worker of `app`, as `setup` makes it, run until idle on a task of its own; and how many
/// executions it has ended so far.
fn counting_worker(
    app: Application,
    setup: impl for<'a> FnOnce(Worker<'a>) -> Worker<'a> + Send + 'static,
) -> (
    tokio::task::JoinHandle<WorkReport>,
    Arc<std::sync::atomic::AtomicUsize>,
) {
    let ended = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counted = ended.clone();
    let worker = tokio::spawn(async move {
        setup(app.worker())
            .on_end(move |_| {
                counted.fetch_add(1, Ordering::SeqCst);
            })
            .until_idle()
            .run(Default::default())
            .await
    });
    (worker, ended)
}

/// A store that records claims, holding `n` executions handed over to workers.
async fn submitted(world: &World, n: usize) -> (Arc<dyn Store>, Arc<FaultyStore>) {
    let (_, faulty) = stores(world);
    let store: Arc<dyn Store> = faulty.clone();
    let submitter = world.app("submitter", store.clone());
    for i in 0..n {
        submitter
            .run("desk", format!("job {i}"))
            .agent("mailer")
            .submit()
            .await
            .unwrap();
    }
    (store, faulty)
}

/// Waits until `done` holds (a few seconds at most).
async fn wait_for(done: impl Fn() -> bool) {
    let since = std::time::Instant::now();
    while !done() {
        assert!(since.elapsed() < Duration::from_secs(10), "never happened");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
}

/// An answer to a pause, given while another instance holds the execution, is journaled and
/// left to the holder; a cancel from here is refused with `lease.held`.
#[tokio::test]
async fn what_another_instance_holds_is_left_to_it() {
    let world = World::new();
    let (store, _) = stores(&world);
    let a = world.app("a", store.clone());
    let paused = a
        .run("desk", "refund")
        .agent("refunder")
        .execution_id("e-1")
        .owner("u-1")
        .await
        .unwrap();
    let pause_id = paused.paused().unwrap().pending[0].pause_id.clone();
    let held = store
        .acquire("e-1", "x", Duration::from_secs(3_600))
        .await
        .unwrap()
        .unwrap();
    let b = world.app("b", store.clone());
    let approve = ToolCallApprovalDecision::<ChargeInput>::approve();
    let outcome = b
        .resume(Resume::decision(&pause_id, approve).answered_by("u-1"))
        .await
        .unwrap();
    match outcome {
        RunOutcome::Elsewhere(elsewhere) => assert_eq!(elsewhere.holder.as_deref(), Some("x")),
        other => panic!("{other:?}"),
    }
    assert!(world.effects.requests().is_empty());
    let cancel = b.cancel("e-1", "no").await.unwrap_err();
    assert_eq!(cancel.code(), "lease.held");
    assert_eq!(
        cancel.to_string(),
        "execution `e-1` is driven by instance `x` now: cancel it there, or once it stops"
    );
    store.release(&held).await.unwrap();
    // Released: a worker takes the answered execution up.
    let report = b.recover().await;
    assert_eq!(report.completed, 1, "{report:?}");
    assert_eq!(world.effects.requests().len(), 1);
}

/// Fault plan T18 (in one process): one answer, and three instances woken by it at once (the
/// one answering, a worker, and one resuming the execution): exactly one drives it on, and
/// the tool runs once.
async fn answer_races(label: &str, world: World, store: Arc<dyn Store>) {
    const RACES: usize = 50;
    let a = Arc::new(world.app("a", store.clone()));
    let b = Arc::new(world.app("b", store.clone()));
    let c = Arc::new(world.app("c", store.clone()));
    let mut duplicates = 0;
    for n in 0..RACES {
        let id = format!("e-{n}");
        let paused = a
            .run("desk", "refund")
            .agent("refunder")
            .execution_id(&id)
            .owner("u-1")
            .await
            .unwrap();
        let pause_id = paused.paused().unwrap().pending[0].pause_id.clone();
        let answer = tokio::spawn({
            let a = a.clone();
            async move {
                let approve = ToolCallApprovalDecision::<ChargeInput>::approve();
                a.resume(Resume::decision(pause_id, approve).answered_by("u-1"))
                    .await
            }
        });
        let worker = tokio::spawn({
            let b = b.clone();
            async move { b.recover().await }
        });
        let resumer = tokio::spawn({
            let (c, id) = (c.clone(), id.clone());
            async move { c.resume_execution(&id, None).await }
        });
        answer.await.unwrap().unwrap();
        worker.await.unwrap();
        resumer.await.unwrap().unwrap();
        let events = store.events(&id).await.unwrap();
        let results = events.iter().filter(|e| is_result(e)).count();
        duplicates += results.saturating_sub(1);
        let answered = events
            .iter()
            .filter(|e| matches!(e, LoopEvent::Answered { .. }))
            .count();
        assert_eq!((results, answered), (1, 1), "{id}: {events:#?}");
    }
    let runs = world.effects.requests().len();
    report(
        &format!("T18-{label}"),
        &format!(
            "duplicate resumes 0 ({duplicates} duplicate results); tool executions {runs}/{RACES}"
        ),
    );
    assert_eq!(runs, RACES);
}

/// describe says what recovery does with the tools that are not simply run again.
#[test]
fn describe_says_what_recovery_does_with_each_tool() {
    let world = World::new();
    let app = world.app("a", Arc::new(MemoryStore::new()));
    let text = agboss::describe::text(&app);
    assert!(
        text.contains("· charge-card-tool (write, local, on crash: report)"),
        "{text}"
    );
    assert!(
        text.contains(
            "· refund-tool (write, local, waits for approval: refund-approval-channel, on crash: ask)"
        ),
        "{text}"
    );
    assert!(
        text.contains("· send-email-tool (write, local) —"),
        "{text}"
    );
    let json = agboss::describe::json(&app);
    let tools = &json["schemas"]["tools"];
    assert_eq!(tools["charge-card-tool"]["onCrash"], "report");
    assert_eq!(tools["send-email-tool"]["onCrash"], "rerun");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t18_an_answer_wakes_exactly_one_instance_in_memory() {
    let world = World::new();
    let (store, _) = stores(&world);
    answer_races("memory", world, store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t18_an_answer_wakes_exactly_one_instance_on_sqlite() {
    let (name, store, _folder) = fixtures::stores::sqlite().await;
    answer_races(name, World::new(), store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t18_an_answer_wakes_exactly_one_instance_on_postgres() {
    let (name, store, _database) = fixtures::stores::postgres().await;
    answer_races(name, World::new(), store).await;
}

/// A store that stays silent past the lease: the run stops with `ExecutionLeaseLostError`
/// saying the store answered no renewal, its tool's signal fired, and nothing more is written.
#[tokio::test]
async fn a_store_silent_past_the_lease_loses_it() {
    let world = World::new();
    let (store, faulty) = stores(&world);
    let app = Arc::new(world.app("a", faulty.clone()));
    world.hold.arm();
    let run = tokio::spawn({
        let app = app.clone();
        async move {
            app.run("desk", "go")
                .agent("mailer")
                .execution_id("e-1")
                .await
        }
    });
    world.hold.entered().await;
    let written = store.events("e-1").await.unwrap().len();
    faulty.set_unavailable(true);
    world.after_the_lease();
    let outcome = run.await.unwrap();
    let Err(RunError::LeaseLost(lost)) = outcome else {
        panic!("{outcome:?}")
    };
    let text = lost.to_string();
    assert!(
        text.starts_with(
            "ExecutionLeaseLostError: execution `e-1`: claim 1 ran out: the store answered no renewal for 900 ms"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("; this instance starts no further model or tool call for it"),
        "{text}"
    );
    assert_eq!(lost.code(), "lease.lost");
    faulty.set_unavailable(false);
    assert_eq!(
        store.events("e-1").await.unwrap().len(),
        written,
        "nothing written after"
    );
}

/// A lease too short to be renewed is refused at assembly, with its code.
#[test]
fn a_lease_ttl_too_short_to_renew_is_refused() {
    let error = Application::builder("recovery")
        .lease_ttl(agboss::units::millis(2))
        .build()
        .err()
        .expect("refused");
    assert_eq!(
        error
            .to_string()
            .lines()
            .last()
            .unwrap()
            .trim_start_matches("- "),
        "[app.lease-ttl-invalid] lease_ttl of 2 ms would run out before its first renewal (they go every third of it): give at least millis(3), or keep the default seconds(30)"
    );
}
