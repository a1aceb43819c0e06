//! The two error kinds beyond the ordinary, on a manual clock: a transient error of a tool with
//! `retries` runs the call again after its backoff (doubled each time), with the same call and
//! idempotency key, each failed try journaled and the middleware asked once; with its retries
//! spent, or without any, the model reads the error; a fatal error ends the run with the
//! tool's code, and no model call follows.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunError;
use agboss::time::ManualClock;
use agboss::tool::{GateCall, Middleware, MiddlewareFuture};
use agboss::units::seconds;
use agboss::{Application, Workflow};
use fixtures::journal::{ToolResult, failed_code, tool_results};
use serde_json::json;

/// What a flaky service saw: each try's idempotency key and clock time, and how many tries
/// fail before one succeeds.
pub struct Service {
    clock: ManualClock,
    failures: u32,
    tries: Mutex<Vec<(String, Duration)>>,
    start: Duration,
}

impl Service {
    fn new(clock: &ManualClock, failures: u32) -> Arc<Service> {
        Arc::new(Service {
            clock: clock.clone(),
            failures,
            tries: Mutex::new(Vec::new()),
            start: clock.elapsed(),
        })
    }

    /// Takes a try: whether it fails.
    fn take(&self, key: &str) -> bool {
        let at = self.clock.elapsed() - self.start;
        let mut tries = self.tries.lock().unwrap();
        tries.push((key.to_owned(), at));
        tries.len() as u32 <= self.failures
    }

    /// A lookup in `execution`: busy (a transient error) while its failures last.
    fn look_up(&self, execution: &ExecutionContext) -> Result<PlainText, ToolError> {
        match self.take(execution.idempotency_key()) {
            true => Err(ToolError::transient("the service answered 503: busy")),
            false => Ok(PlainText::new("found")),
        }
    }

    fn tries(&self) -> Vec<(String, Duration)> {
        self.tries.lock().unwrap().clone()
    }
}

#[dto]
pub struct Lookup {
    /// What to look up.
    pub query: String,
}

/// Looks up, through a service that is busy for a while; two retries, a second apart at first.
#[tool(name = "flaky-tool", read_only, retries = 2, retry_backoff = seconds(1))]
pub struct Flaky {
    execution: ExecutionContext,
    service: Arc<Service>,
}

impl ToolHandler for Flaky {
    type Input = Lookup;
    type Output = PlainText;

    async fn run(&self, _input: Lookup) -> Result<PlainText, ToolError> {
        self.service.look_up(&self.execution)
    }
}

/// The same service, with no retries declared.
#[tool(name = "plain-tool", read_only)]
pub struct Plain {
    execution: ExecutionContext,
    service: Arc<Service>,
}

impl ToolHandler for Plain {
    type Input = Lookup;
    type Output = PlainText;

    async fn run(&self, _input: Lookup) -> Result<PlainText, ToolError> {
        self.service.look_up(&self.execution)
    }
}

/// Pays from an account that is closed.
#[tool(name = "pay-tool")]
pub struct Pay;

impl ToolHandler for Pay {
    type Input = Lookup;
    type Output = PlainText;

    async fn run(&self, _input: Lookup) -> Result<PlainText, ToolError> {
        Err(ToolError::fatal(
            "billing.account-closed",
            "the account was closed on 1 December",
        ))
    }
}

/// Looks things up and pays.
#[agent(
    name = "helper",
    prompt = "prompts/helper.prompt.md",
    model = "test/helper",
    tools = [Flaky, Plain, Pay]
)]
pub struct Helper;

/// Counts the calls it is asked about.
#[derive(Default)]
struct Asked(AtomicU32);

struct Counting(Arc<Asked>);

impl Middleware for Counting {
    fn name(&self) -> &str {
        "counting"
    }

    fn before<'a>(&'a self, _call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
        self.0.0.fetch_add(1, Ordering::SeqCst);
        Box::pin(async { Ok(()) })
    }
}

/// An application on `clock` whose model calls `tool` once, then answers.
fn app(clock: &ManualClock, service: Arc<Service>, tool: &str, asked: Arc<Asked>) -> Application {
    let model = ScriptedModel::new([
        Turn::call(tool, json!({"query": "weather"})),
        Turn::text("done"),
    ]);
    Application::builder("retries")
        .workflow(Workflow::new("desk").agent::<Helper>())
        .provide(service)
        .middleware(Counting(asked))
        .chat_model(Arc::new(model))
        .clock(Clock::from(clock.clone()))
        .build()
        .unwrap()
}

/// Waits (in real time, a few seconds at most) until `done`.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..5_000 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    panic!("never: {what}");
}

/// The failed tries `events` journal: which, and how long each waits.
fn retried(events: &[LoopEvent]) -> Vec<(u32, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolRetried {
                tries, after_ms, ..
            } => Some((*tries, *after_ms)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn a_transient_error_runs_the_call_again_after_its_backoff_with_the_same_key() {
    let clock = ManualClock::new();
    let service = Service::new(&clock, 2);
    let asked = Arc::new(Asked::default());
    let app = Arc::new(app(&clock, service.clone(), "flaky-tool", asked.clone()));
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run("desk", "weather?").execution_id("flaky").await }
    });
    until("the first try", || service.tries().len() == 1).await;
    // The backoff runs on the application's clock: nothing happens until it moves.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(service.tries().len(), 1);
    clock.advance(Duration::from_millis(999));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(service.tries().len(), 1, "a millisecond early");
    clock.advance(Duration::from_millis(1));
    until("the second try", || service.tries().len() == 2).await;
    // Then twice as long.
    clock.advance(Duration::from_millis(1_999));
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(service.tries().len(), 2, "a millisecond early");
    clock.advance(Duration::from_millis(1));
    let outcome = run.await.unwrap().unwrap().into_completed().unwrap();
    assert_eq!(outcome.tool_calls, 1);

    let tries = service.tries();
    let at: Vec<u128> = tries.iter().map(|(_, at)| at.as_millis()).collect();
    assert_eq!(at, [0, 1_000, 3_000]);
    assert!(tries.iter().all(|(key, _)| *key == tries[0].0), "{tries:?}");
    assert_eq!(
        asked.0.load(Ordering::SeqCst),
        1,
        "one call, asked about once"
    );

    let events = app.store().events("flaky").await.unwrap();
    assert_eq!(retried(&events), [(1, 1_000), (2, 2_000)]);
    let results = tool_results(&events);
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].content, r#"{"text":"found"}"#);
    assert!(!results[0].is_error);
}

/// Runs `tool` on a clock that moves a second at a time until the run ends.
async fn run_to_the_end(
    tool: &str,
    failures: u32,
) -> (Result<(), RunError>, Vec<LoopEvent>, Arc<Service>) {
    let clock = ManualClock::new();
    let service = Service::new(&clock, failures);
    let app = Arc::new(app(&clock, service.clone(), tool, Arc::default()));
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run("desk", "go").execution_id("run").await }
    });
    while !run.is_finished() {
        clock.advance(Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let ended = run.await.unwrap().map(|_| ());
    let events = app.store().events("run").await.unwrap();
    (ended, events, service)
}

#[tokio::test]
async fn with_its_retries_spent_the_model_reads_the_last_error() {
    let (ended, events, service) = run_to_the_end("flaky-tool", 10).await;
    ended.unwrap();
    assert_eq!(service.tries().len(), 3, "the first try and two retries");
    assert_eq!(retried(&events), [(1, 1_000), (2, 2_000)]);
    assert_eq!(
        tool_results(&events),
        [ToolResult {
            call_id: results_call_id(&events),
            content: "Tool error: the service answered 503: busy".into(),
            is_error: true,
            truncated: false,
        }]
    );
}

#[tokio::test]
async fn a_tool_without_retries_passes_a_transient_error_to_the_model() {
    let (ended, events, service) = run_to_the_end("plain-tool", 10).await;
    ended.unwrap();
    assert_eq!(service.tries().len(), 1);
    assert!(retried(&events).is_empty());
    let results = tool_results(&events);
    assert_eq!(
        results[0].content,
        "Tool error: the service answered 503: busy"
    );
}

#[tokio::test]
async fn a_fatal_error_ends_the_run_with_the_tool_s_code() {
    // The script has one more turn; a model call after the fatal error would read it.
    let (ended, events, _) = run_to_the_end("pay-tool", 0).await;
    match ended {
        Err(RunError::ToolFailed { code, message, .. }) => {
            assert_eq!(code, "billing.account-closed");
            assert_eq!(
                message,
                "tool `pay-tool` (call call_0) failed and said the run cannot go on: the account was closed on 1 December"
            );
        }
        other => panic!("{other:?}"),
    }
    // The call's result is journaled first, then the failure, and nothing after it.
    let results = tool_results(&events);
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    assert_eq!(failed_code(&events), Some("billing.account-closed"));
    let model_turns = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::ModelAnswered { .. }))
        .count();
    assert_eq!(model_turns, 1, "no model call after the fatal error");
}

/// The id of the one call `events` journal a result of.
fn results_call_id(events: &[LoopEvent]) -> String {
    tool_results(events)
        .first()
        .map(|r| r.call_id.clone())
        .unwrap_or_default()
}
