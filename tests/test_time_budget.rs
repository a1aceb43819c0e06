//! An agent's time budget (`max_duration`) on a manual clock: checked before each model call,
//! bounding the tool step, set by configuration over the agent's own.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agboss::context::Signal;
use agboss::journal::LoopEvent;
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::run::RunError;
use agboss::time::ManualClock;
use agboss::units::{hours, minutes, seconds};
use agboss::{Application, Config, Workflow};
use fixtures::chat;

#[dto]
pub struct Nap {
    /// Seconds to nap, on the application's clock.
    pub seconds: u64,
}

/// Naps on the application's clock.
#[tool(name = "nap-tool", timeout = minutes(10))]
pub struct NapTool {
    clock: Clock,
}

impl ToolHandler for NapTool {
    type Input = Nap;
    type Output = PlainText;

    async fn run(&self, input: Nap) -> Result<PlainText, ToolError> {
        self.clock.sleep(Duration::from_secs(input.seconds)).await;
        Ok(PlainText::new("rested"))
    }
}

/// Naps, with two minutes for a run.
#[agent(
    name = "napper",
    prompt = "prompts/helper.prompt.md",
    model = "test/napper",
    tools = [NapTool],
    max_duration = seconds(120),
)]
pub struct Napper;

/// Thinks for `think` seconds of the manual clock per model call, then asks for a nap of the
/// seconds the input says, always (or, for `unknown`, for a tool the agent does not have).
struct Thinker {
    clock: ManualClock,
    think: u64,
    calls: AtomicUsize,
}

impl ChatModel for Thinker {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        let n = self.calls.fetch_add(1, Ordering::SeqCst);
        self.clock.advance(Duration::from_secs(self.think));
        let nap = chat::user_text(request);
        let name = if nap == "unknown" {
            "no-such-tool"
        } else {
            "nap-tool"
        };
        let arguments = format!(r#"{{"seconds": {nap}}}"#);
        let response = chat::calling(vec![chat::call(format!("nap-{n}"), name, arguments)]);
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn app(clock: &ManualClock, think: u64, config: Option<Config>) -> (Application, Arc<Thinker>) {
    let model = Arc::new(Thinker {
        clock: clock.clone(),
        think,
        calls: AtomicUsize::new(0),
    });
    let mut builder = Application::builder("naps")
        .workflow(Workflow::new("desk").agent::<Napper>())
        .chat_model(model.clone())
        .clock(Clock::from(clock.clone()))
        // Long enough that the model's jumps of the clock never outrun a renewal.
        .lease_ttl(hours(1));
    if let Some(config) = config {
        builder = builder.config(config);
    }
    (builder.build().unwrap(), model)
}

async fn failed_code(app: &Application, id: &str) -> String {
    let events = app.store().events(id).await.unwrap();
    events
        .iter()
        .find_map(|e| match e {
            LoopEvent::Failed { code, .. } => Some(code.clone()),
            _ => None,
        })
        .expect("the failure is journaled")
}

#[tokio::test]
async fn the_budget_is_checked_before_each_model_call() {
    let clock = ManualClock::new();
    // Each model call takes 50 s and asks for a tool the agent does not have (so no call
    // runs): the fourth would start at 150 s, past the 120 s budget.
    let (app, model) = app(&clock, 50, None);
    let error = app
        .run("desk", "unknown")
        .execution_id("thinking")
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "LimitExceededError: agents.napper.limits.duration: the run has taken 150000 ms of a time budget of 120 s (own) without an answer, before model call 4 (raise max_duration on the agent, or max_duration_seconds in [agents.napper])"
    );
    assert!(matches!(error, RunError::DurationLimit(_)));
    assert_eq!(model.calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        failed_code(&app, "thinking").await,
        "agents.napper.limits.duration"
    );
}

#[tokio::test]
async fn a_model_call_past_the_budget_starts_no_tool_call() {
    let clock = ManualClock::new();
    let (app, model) = app(&clock, 50, None);
    let error = app.run("desk", "0").execution_id("slow").await.unwrap_err();
    assert!(
        error.to_string().contains(
            "the run has taken 150000 ms of a time budget of 120 s (own) without an answer, before its tools ran"
        ),
        "{error}"
    );
    assert_eq!(model.calls.load(Ordering::SeqCst), 3);
    let events = app.store().events("slow").await.unwrap();
    let started = events
        .iter()
        .filter(|e| matches!(e, LoopEvent::ToolsStarted { .. }))
        .count();
    assert_eq!(started, 2, "the third call's tools never started");
}

#[tokio::test]
async fn the_budget_bounds_the_tool_step() {
    let clock = ManualClock::new();
    let (app, _) = app(&clock, 0, None);
    let app = Arc::new(app);
    let run = tokio::spawn({
        let app = app.clone();
        async move { app.run("desk", "3600").execution_id("napping").await }
    });
    // The clock goes on a second at a time until the run ends.
    while !run.is_finished() {
        clock.advance(Duration::from_secs(1));
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let error = run.await.unwrap().unwrap_err();
    assert_eq!(
        error.to_string(),
        "LimitExceededError: agents.napper.limits.duration: the run has taken 120000 ms of a time budget of 120 s (own) without an answer, while its tools ran (raise max_duration on the agent, or max_duration_seconds in [agents.napper])"
    );
    assert_eq!(
        failed_code(&app, "napping").await,
        "agents.napper.limits.duration"
    );
}

#[tokio::test]
async fn configuration_sets_the_budget_over_the_agent() {
    let clock = ManualClock::new();
    let config = Config::from_toml("naps.toml", "[agents.napper]\nmax_duration_seconds = 60\n");
    let (app, _) = app(&clock, 50, Some(config));
    let workflow = app.workflow("desk").unwrap();
    let budget = workflow
        .agent("napper")
        .unwrap()
        .max_duration()
        .cloned()
        .unwrap();
    assert_eq!(budget.to_string(), "60 s (configuration)");
    let error = app.run("desk", "unknown").await.unwrap_err();
    assert!(
        error
            .to_string()
            .contains("the run has taken 100000 ms of a time budget of 60 s (configuration) without an answer, before model call 3"),
        "{error}"
    );
}

#[tokio::test]
async fn a_budget_of_zero_is_refused_at_assembly() {
    let config = Config::from_toml("naps.toml", "[agents.napper]\nmax_duration_seconds = 0\n");
    let problems = Application::builder("naps")
        .workflow(Workflow::new("desk").agent::<Napper>())
        .config(config)
        .build()
        .err()
        .expect("a budget of 0 is refused");
    assert_eq!(problems.codes(), ["agent.max-duration-invalid"]);
    assert!(
        problems.to_string().contains("agent `napper` (workflow `desk`): a time budget of 0 s (configuration) would end every run before its first model call: give at least 1 second"),
        "{problems}"
    );
}
