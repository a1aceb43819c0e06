//! Fault plan T6: the instances' wall clocks are off by an hour either way, and stepped while
//! they run. Leases are judged by the store's clock and kept on the monotonic one, so nothing is
//! lost for it, and nothing held longer; tool timeouts run on the monotonic clock too.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agboss::context::Signal;
use agboss::journal::LoopEvent;
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::run::RunError;
use agboss::store::Store;
use agboss::time::{Clock, WallOffset};
use agboss::units::millis;
use agboss::{Application, Workflow};

use super::report;
use fixtures::chat;

const HOUR_MS: i64 = 3_600_000;

#[dto]
pub struct NapInput {
    pub ms: u64,
}

/// Naps for what it is asked (a call that spans lease renewals); `ms` over 10 s naps forever.
#[tool(name = "nap-tool", timeout = millis(300))]
pub struct Nap {
    execution: ExecutionContext,
}

impl ToolHandler for Nap {
    type Input = NapInput;
    type Output = PlainText;

    async fn run(&self, input: NapInput) -> Result<PlainText, ToolError> {
        let nap = if input.ms > 10_000 {
            Duration::from_secs(3_600)
        } else {
            Duration::from_millis(input.ms)
        };
        tokio::select! {
            () = tokio::time::sleep(nap) => Ok(PlainText::new("rested")),
            _ = self.execution.signal().cancelled() => Err(ToolError::new("woken")),
        }
    }
}

/// Naps, then answers.
#[agent(name = "napper", prompt = "../prompts/helper.prompt.md", model = "test/napper", tools = [Nap])]
pub struct Napper;

/// Asks for naps of the length the input says (`nap <ms> x<n>`: n calls in turn), then answers.
#[derive(Default)]
struct NapModel {
    calls: AtomicUsize,
}

impl ChatModel for NapModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let input = chat::user_text(request);
        let mut words = input.split(' ').skip(1);
        let ms: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(50);
        let turns: usize = words
            .next()
            .and_then(|w| w.trim_start_matches('x').parse().ok())
            .unwrap_or(1);
        let done = chat::results_so_far(request);
        let response = if done >= turns {
            chat::answer("rested")
        } else {
            let nap = chat::call(
                format!("nap-{done}"),
                "nap-tool",
                format!(r#"{{"ms": {ms}}}"#),
            );
            chat::calling(vec![nap])
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn app(store: &Arc<dyn Store>, instance: &str, offset: &WallOffset, ttl: Duration) -> Application {
    Application::builder("naps")
        .workflow(Workflow::new("desk").agent::<Napper>())
        .chat_model(Arc::new(NapModel::default()))
        .store(store.clone())
        .clock(Clock::system_with_wall_offset(offset.clone()))
        .instance(instance)
        .lease_ttl(millis(ttl.as_millis() as u64))
        .build()
        .unwrap()
}

/// T6 on `store`.
pub async fn clock_jumps(label: &str, store: Arc<dyn Store>) {
    let ttl = Duration::from_millis(600);
    let (ahead, behind, stepped) = (WallOffset::new(), WallOffset::new(), WallOffset::new());
    ahead.set_millis(HOUR_MS);
    behind.set_millis(-HOUR_MS);
    let apps = [
        Arc::new(app(&store, "ahead", &ahead, ttl)),
        Arc::new(app(&store, "behind", &behind, ttl)),
        Arc::new(app(&store, "stepped", &stepped, ttl)),
    ];
    // The stepped instance's wall clock jumps an hour each way every 50 ms while they run.
    let stepping = tokio::spawn({
        let stepped = stepped.clone();
        async move {
            for n in 0.. {
                stepped.set_millis([HOUR_MS, -HOUR_MS, 0][n % 3]);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    });
    // Runs of four naps of 250 ms each: they outlast the lease several times over, so each
    // lives on renewals.
    let mut runs = Vec::new();
    for (i, app) in apps.iter().enumerate() {
        for n in 0..4 {
            let app = app.clone();
            let id = format!("{label}-{i}-{n}");
            runs.push(tokio::spawn(async move {
                app.run("desk", "nap 250 x4").execution_id(&id).await
            }));
        }
    }
    let mut spurious = 0;
    let mut completed = 0;
    for run in runs {
        match run.await.unwrap() {
            Ok(outcome) if outcome.completed().is_some() => completed += 1,
            Err(RunError::LeaseLost(_)) => spurious += 1,
            other => panic!("{other:?}"),
        }
    }
    // An instance stops (its run dropped mid-nap, its wall clock behind): another, ahead,
    // takes the execution up when the lease runs out by the store's clock, not later.
    let holder = apps[1].clone();
    let crashed = format!("{label}-crashed");
    let held = tokio::spawn({
        let crashed = crashed.clone();
        async move {
            holder
                .run("desk", "nap 99999 x1")
                .execution_id(&crashed)
                .await
        }
    });
    let until = Instant::now() + Duration::from_secs(10);
    while store
        .events(&crashed)
        .await
        .unwrap()
        .iter()
        .all(|e| !matches!(e, LoopEvent::ToolsStarted { .. }))
    {
        assert!(Instant::now() < until, "the nap never started");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    held.abort();
    let stopped = Instant::now();
    let mut taken = None;
    while taken.is_none() {
        let claimed = store.claim("ahead-recoverer", ttl, 1).await.unwrap();
        if let Some(lease) = claimed.into_iter().next() {
            taken = Some(stopped.elapsed());
            store.release(&lease).await.unwrap();
        }
        assert!(
            stopped.elapsed() < Duration::from_secs(10),
            "never taken up"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let taken = taken.unwrap();
    // The lease may be taken up no later than a ttl after its last renewal, which came at most
    // a third of a ttl before the stop: a grace of 150 ms for the polling and the machine.
    let overrun = taken > ttl + Duration::from_millis(150);
    // The tool's 300 ms timeout, on the monotonic clock, with the wall an hour ahead.
    let started = Instant::now();
    let outcome = apps[0]
        .run("desk", "nap 99999 x1")
        .on_tool_end(|end| {
            assert!(
                end.content.contains("timed out after 300 ms"),
                "{}",
                end.content
            )
        })
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert!(outcome.completed().is_some());
    stepping.abort();
    let deviation = elapsed.saturating_sub(Duration::from_millis(300));
    report(
        &format!("T6-{label}"),
        &format!(
            "runs completed {completed}/12 with wall clocks an hour ahead, behind and stepped; spurious lease losses {spurious}; lease overruns {} (taken up {} ms after the holder stopped, ttl {} ms); timeout error vs configured: +{} ms over 300 ms",
            u8::from(overrun),
            taken.as_millis(),
            ttl.as_millis(),
            deviation.as_millis()
        ),
    );
    assert_eq!((completed, spurious), (12, 0));
    assert!(!overrun, "taken up after {taken:?}");
    assert!(deviation < Duration::from_millis(250), "{elapsed:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t6_clock_jumps_on_sqlite() {
    let (name, store, _folder) = fixtures::stores::sqlite().await;
    clock_jumps(name, store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t6_clock_jumps_on_postgres() {
    let (name, store, _database) = fixtures::stores::postgres().await;
    clock_jumps(name, store).await;
}
