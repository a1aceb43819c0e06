//! The agent loop through the public API, on a scripted model.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::context::Tenant;
use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::model::{ToolCall, ToolChoice};
use agboss::prelude::*;
use agboss::run::{Answer, RunError};
use agboss::spend::Budgets;
use agboss::store::{Journal, MemoryStore};
use agboss::units::{bytes, usd};
use agboss::{Application, Workflow};
use fixtures::journal::{journaled, only_journal};
use serde_json::json;

mod loop_common;
use fixtures::run::completed;
use loop_common::{Found, Verdict, Words, failed};

/// What tools saw, for assertions.
#[derive(Default)]
pub struct Seen {
    pub keys: Mutex<Vec<String>>,
    /// What each call knew of its execution.
    pub contexts: Mutex<Vec<String>>,
    pub runs: AtomicUsize,
}

#[tool(name = "search-tool", description = "Searches", read_only = true)]
pub struct Search {
    seen: Arc<Seen>,
    execution: ExecutionContext,
}

impl ToolHandler for Search {
    type Input = Words;
    type Output = Found;

    async fn run(&self, input: Words) -> Result<Found, ToolError> {
        self.seen.runs.fetch_add(1, Ordering::SeqCst);
        self.seen
            .keys
            .lock()
            .unwrap()
            .push(self.execution.idempotency_key().to_owned());
        let tenant = self.execution.tenant().map(|t| t.tenant_id());
        self.seen.contexts.lock().unwrap().push(format!(
            "thread {} owner {:?} tenant {:?} workflow {} call {}",
            self.execution.thread_id(),
            self.execution.owner_id(),
            tenant,
            self.execution.workflow(),
            self.execution.call_id(),
        ));
        Ok(Found {
            found: vec![format!("about {}", input.words)],
        })
    }
}

/// Waits until three calls run at once: only concurrent calls finish.
#[tool(name = "meet-tool", description = "Meets the others")]
pub struct Meet {
    barrier: Arc<tokio::sync::Barrier>,
}

impl ToolHandler for Meet {
    type Input = Words;
    type Output = Found;

    async fn run(&self, input: Words) -> Result<Found, ToolError> {
        self.barrier.wait().await;
        Ok(Found {
            found: vec![input.words],
        })
    }
}

/// Waits for its call's signal; reports what stopped it.
#[tool(name = "wait-tool", description = "Waits")]
pub struct Wait {
    execution: ExecutionContext,
    started: Arc<tokio::sync::Notify>,
}

impl ToolHandler for Wait {
    type Input = Words;
    type Output = Found;

    async fn run(&self, _: Words) -> Result<Found, ToolError> {
        self.started.notify_one();
        self.execution.signal().cancelled().await;
        Err(ToolError::new("stopped"))
    }
}

/// Pays a service.
#[tool(name = "geocode-tool", description = "Geocodes a place")]
pub struct Geocode {
    spend: SpendRecorder,
}

impl ToolHandler for Geocode {
    type Input = Words;
    type Output = Found;

    async fn run(&self, input: Words) -> Result<Found, ToolError> {
        self.spend.record("geocoding", usd("0.40"));
        Ok(Found {
            found: vec![input.words],
        })
    }
}

/// Answers with a long text.
#[tool(name = "long-tool", description = "Answers at length", max_result_size = bytes(64))]
pub struct Long;

impl ToolHandler for Long {
    type Input = Words;
    type Output = Found;

    async fn run(&self, _: Words) -> Result<Found, ToolError> {
        Ok(Found {
            found: vec!["word ".repeat(100)],
        })
    }
}

#[agent(
    name = "helper",
    description = "Helps",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Search, Meet, Wait, Geocode, Long],
    max_tool_calls = 4,
)]
pub struct Helper;

#[agent(
    name = "judge",
    description = "Judges",
    prompt = "prompts/helper.prompt.md",
    model = "anthropic/claude-sonnet-4-5",
    tools = [Search],
    output = Verdict,
)]
pub struct Judge;

/// Must call the search tool on every turn.
#[agent(
    name = "searcher",
    description = "Always searches",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Search],
    tool_choice = "search-tool",
)]
pub struct Searcher;

struct Fixture {
    app: Application,
    model: ScriptedModel,
    seen: Arc<Seen>,
    started: Arc<tokio::sync::Notify>,
    store: Arc<MemoryStore>,
}

impl Fixture {
    /// The events of the only execution run.
    async fn journal(&self) -> Vec<LoopEvent> {
        only_journal(&self.store).await
    }
}

fn fixture(turns: impl IntoIterator<Item = Turn>) -> Fixture {
    fixture_over(Arc::new(MemoryStore::new()), turns)
}

/// The fixture's application journaling to `store`, which may hold a run already.
fn fixture_over(store: Arc<MemoryStore>, turns: impl IntoIterator<Item = Turn>) -> Fixture {
    agboss::model::forbid_real_requests(true);
    let model = ScriptedModel::new(turns);
    let seen = Arc::new(Seen::default());
    let started = Arc::new(tokio::sync::Notify::new());
    let app = Application::builder("agents")
        .store(store.clone())
        .workflow(
            Workflow::new("desk")
                .agent::<Helper>()
                .agent::<Judge>()
                .agent::<Searcher>(),
        )
        .provide(seen.clone())
        .provide(Arc::new(tokio::sync::Barrier::new(3)))
        .provide(started.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    Fixture {
        app,
        model,
        seen,
        started,
        store,
    }
}

#[tokio::test]
async fn an_agent_is_run_by_its_type() {
    let f = fixture([
        Turn::call("search-tool", json!({"query": "rust"})),
        Turn::text("Found."),
    ]);
    let outcome = f.app.run_agent::<Searcher>("find rust").await.unwrap();
    assert_eq!(outcome.text(), Some("Found."));
    let journal = f.journal().await;
    assert!(
        matches!(&journal[0], LoopEvent::Started { workflow, agent, .. } if workflow == "desk" && agent == "searcher"),
        "{journal:?}"
    );
    // In a workflow named, and one that does not have it.
    let f = fixture([Turn::text("Hello.")]);
    let outcome = f
        .app
        .run_agent::<Helper>("hi")
        .in_workflow("desk")
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Hello."));
    let error = f
        .app
        .run_agent::<Helper>("hi")
        .in_workflow("ops")
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "workflow `ops` has no agent `helper` (Helper)"
    );
}

#[tokio::test]
async fn an_agent_no_workflow_has_is_not_found_by_its_type() {
    let f = fixture([]);
    let error = f.app.run_agent::<Lone>("hi").await.unwrap_err();
    assert_eq!(error.code(), "not-found");
    assert_eq!(
        error.to_string(),
        "no workflow of application `agents` has agent `lone` (Lone): add it with `Workflow::agent::<Lone>()`"
    );
}

/// An agent no workflow of the fixture has.
#[agent(
    name = "lone",
    description = "Is in no workflow",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini"
)]
pub struct Lone;

#[tokio::test]
async fn a_text_answer_ends_the_run() {
    let f = fixture([Turn::text("Hello.").usage(10, 2)]);
    let outcome = completed(f.app.run("desk", "hi")).await;
    assert_eq!(outcome.text(), Some("Hello."));
    assert_eq!((outcome.turns, outcome.tool_calls), (1, 0));
    assert_eq!(outcome.usage.total(), 12);
    let request = &f.model.requests()[0];
    assert_eq!(request.system, "You help.");
    assert_eq!(
        request.model, "openai/gpt-5-mini",
        "the scripted route sends ids whole"
    );
    assert_eq!(request.tools.len(), 5);
    assert_eq!(request.tool_choice, ToolChoice::Auto);
}

#[tokio::test]
async fn tool_results_go_back_to_the_model() {
    let f = fixture([
        Turn::call("search-tool", json!({"words": "dentist"})),
        Turn::text("Tuesday.").expect_tool_result(r#"{"found":["about dentist"]}"#),
    ]);
    let outcome = completed(
        f.app
            .run("desk", "when?")
            .thread("t-1")
            .owner("u-1")
            .tenant(Tenant::new("acme")),
    )
    .await;
    assert_eq!(outcome.text(), Some("Tuesday."));
    assert_eq!(outcome.tool_calls, 1);
    let key = f.seen.keys.lock().unwrap()[0].clone();
    assert_eq!(key, format!("{}:helper:1:call_0", outcome.execution_id));
    assert_eq!(
        f.seen.contexts.lock().unwrap()[..],
        [r#"thread t-1 owner Some("u-1") tenant Some("acme") workflow desk call call_0"#]
    );
}

#[tokio::test]
async fn parallel_calls_run_concurrently_and_come_back_in_order() {
    let f = fixture([
        Turn::calls([
            ("meet-tool", json!({"words": "a"})),
            ("meet-tool", json!({"words": "b"})),
            ("meet-tool", json!({"words": "c"})),
        ]),
        Turn::text("done").expect("results in the model's order", |r| {
            let results = fixtures::chat::results_read(r);
            if results
                == [
                    r#"{"found":["a"]}"#,
                    r#"{"found":["b"]}"#,
                    r#"{"found":["c"]}"#,
                ]
            {
                Ok(())
            } else {
                Err(format!("the results are {results:?}"))
            }
        }),
    ]);
    // Three calls meeting at a barrier of three finish only if they run at once.
    let outcome = tokio::time::timeout(Duration::from_secs(10), f.app.run("desk", "go"))
        .await
        .expect("the calls ran one after the other")
        .unwrap();
    assert_eq!(outcome.text(), Some("done"));
}

#[tokio::test]
async fn unknown_tools_and_malformed_arguments_are_tool_errors_the_model_reads() {
    let f = fixture([
        Turn::tool_calls(vec![
            ToolCall {
                provider_id: Some("a".into()),
                name: "serch-tool".into(),
                arguments: "{}".into(),
            },
            ToolCall {
                provider_id: Some("b".into()),
                name: "search-tool".into(),
                arguments: "{\"words\": ".into(),
            },
        ]),
        Turn::text("sorry").expect("two tool errors", |r| {
            let errors = r
                .messages
                .iter()
                .filter(|m| matches!(m, agboss::model::Message::Tool { is_error: true, .. }))
                .count();
            if errors == 2 {
                Ok(())
            } else {
                Err(format!("{errors} errors"))
            }
        }),
    ]);
    let contents = Arc::new(Mutex::new(Vec::new()));
    let hook = contents.clone();
    f.app
        .run("desk", "go")
        .on_tool_end(move |end| hook.lock().unwrap().push(end.content.to_owned()))
        .await
        .unwrap();
    let mut contents = contents.lock().unwrap().clone();
    contents.sort();
    assert_eq!(
        contents,
        [
            "Tool error: invalid input: malformed JSON: EOF while parsing a value at line 1 column 10",
            "Tool error: there is no tool named `serch-tool`; the tools are search-tool, meet-tool, wait-tool, geocode-tool, long-tool",
        ]
    );
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn past_max_tool_calls_the_run_fails_and_its_spend_still_counts() {
    let five = (0..5)
        .map(|i| ("search-tool", json!({"words": format!("w{i}")})))
        .collect::<Vec<_>>();
    let f = fixture([Turn::calls(five).usage(100, 20)]);
    let error = f.app.run("desk", "go").await.unwrap_err();
    let RunError::LimitExceeded(limit) = &error else {
        panic!("{error:?}")
    };
    assert_eq!(limit.code(), "agents.helper.limits.toolCalls");
    assert_eq!(
        error.to_string(),
        "LimitExceededError: agents.helper.limits.toolCalls: the model asked for tool call 5 of a run limited to 4 (raise max_tool_calls on the agent, or defaults.tools.max_tool_calls)"
    );
    assert_eq!(
        f.seen.runs.load(Ordering::SeqCst),
        0,
        "no call of the refused answer runs"
    );
    // The journal has the answer's usage before the failure.
    let journal = f.journal().await;
    assert!(matches!(&journal[1], LoopEvent::ModelAnswered { usage, .. } if usage.total() == 120));
    assert!(
        matches!(&journal[2], LoopEvent::Failed { code, .. } if code == "agents.helper.limits.toolCalls")
    );
}

#[tokio::test]
async fn resuming_a_failed_run_reports_the_code_it_failed_with() {
    let five = (0..5)
        .map(|i| ("search-tool", json!({"words": format!("w{i}")})))
        .collect::<Vec<_>>();
    let f = fixture([Turn::calls(five)]);
    f.app
        .run("desk", "go")
        .execution_id("over-the-limit")
        .await
        .unwrap_err();
    let resumed = fixture_over(f.store.clone(), []);
    let error = resumed
        .app
        .resume_execution("over-the-limit", None)
        .await
        .unwrap_err();
    assert_eq!(error.code(), "agents.helper.limits.toolCalls");
    assert!(
        error
            .to_string()
            .starts_with("[agents.helper.limits.toolCalls] LimitExceededError: "),
        "{error}"
    );
    assert!(
        resumed.model.requests().is_empty(),
        "a failed run is not run again"
    );
}

#[tokio::test]
async fn a_token_budget_stops_the_run_before_its_next_model_call() {
    let f = fixture([
        Turn::call("search-tool", json!({"words": "a"})).usage(800, 300),
        Turn::text("never asked"),
    ]);
    let error = f
        .app
        .run("desk", "go")
        .budgets(Budgets::none().tokens(1_000))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "BudgetExceededError: budget `tokens` is spent: 1100 tokens used of 1000"
    );
    assert_eq!(
        f.model.remaining(),
        1,
        "the second model call never happened"
    );
}

#[tokio::test]
async fn tool_spend_counts_in_the_money_budget() {
    let f = fixture([
        Turn::call("geocode-tool", json!({"words": "Lisbon"})),
        Turn::call("geocode-tool", json!({"words": "Porto"})),
        Turn::text("never asked"),
    ]);
    let error = f
        .app
        .run("desk", "go")
        .budgets(Budgets::none().usd(usd("0.50")))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "BudgetExceededError: budget `usd` is spent: $0.80 of $0.50"
    );
    assert!(matches!(error, RunError::BudgetExceeded(_)));
}

#[tokio::test]
async fn model_spend_is_priced_per_model() {
    let model = ScriptedModel::new([Turn::text("ok").usage(1_000_000, 100_000)]);
    let router = agboss::model::ModelRouter::new()
        .route("*", "scripted", Arc::new(model), false)
        .price(
            "openai/gpt-5-mini",
            agboss::model::Prices {
                input_per_million: usd("0.25"),
                output_per_million: usd("2.00"),
            },
        );
    let app = Application::builder("priced")
        .workflow(Workflow::new("desk").agent::<Judge>().agent::<Helper>())
        .provide(Arc::new(Seen::default()))
        .provide(Arc::new(tokio::sync::Barrier::new(3)))
        .provide(Arc::new(tokio::sync::Notify::new()))
        .router(router)
        .build()
        .unwrap();
    let outcome = completed(app.run("desk", "go").agent("helper")).await;
    // 1M input tokens at $0.25 and 100k output tokens at $2.00 per million.
    assert_eq!(outcome.spend, usd("0.45"));
}

#[tokio::test]
async fn a_structured_answer_is_validated_and_a_bad_one_goes_back() {
    let f = fixture([
        Turn::call("answer-verdict", json!({"ok": true, "reason": "no"}))
            .expect_tool_choice(ToolChoice::Required),
        Turn::call(
            "answer-verdict",
            json!({"ok": true, "reason": "all checks pass"}),
        )
        .expect_tool_result(
            "Tool error: invalid input: reason: must be at least 3 characters long, got 2",
        ),
    ]);
    let outcome = completed(f.app.run("desk", "judge it").agent("judge")).await;
    assert_eq!(
        outcome.answer,
        Answer::Structured(json!({"ok": true, "reason": "all checks pass"}))
    );
    assert_eq!(outcome.tool_calls, 0, "answers are not tool calls");
    let request = &f.model.requests()[0];
    assert_eq!(request.tools.last().unwrap().name, "answer-verdict");
}

#[tokio::test]
async fn the_tool_choice_can_change_per_turn() {
    let f = fixture([
        Turn::call("search-tool", json!({"words": "a"}))
            .expect_tool_choice(ToolChoice::Tool("search-tool".into())),
        Turn::text("done").expect_tool_choice(ToolChoice::Auto),
    ]);
    f.app
        .run("desk", "go")
        .tool_choice(|turn| (turn == 1).then(|| ToolChoice::Tool("search-tool".into())))
        .await
        .unwrap();
}

#[tokio::test]
async fn an_agents_own_tool_choice_holds_on_every_turn() {
    let forced = || ToolChoice::Tool("search-tool".into());
    let f = fixture([
        Turn::call("search-tool", json!({"words": "a"})).expect_tool_choice(forced()),
        Turn::text("done").expect_tool_choice(forced()),
    ]);
    let outcome = f.app.run("desk", "go").agent("searcher").await.unwrap();
    assert_eq!(outcome.text(), Some("done"));
}

#[tokio::test]
async fn an_agent_with_an_output_may_not_answer_in_text() {
    let f = fixture([Turn::text("it is fine")]);
    let error = failed(&f.app, "judge", "judge it").await;
    assert_eq!(
        error.to_string(),
        "agent `judge` answers through `answer-verdict`, but the model answered in text"
    );
    let journal = f.journal().await;
    assert!(
        matches!(journal.last(), Some(LoopEvent::Failed { code, .. }) if code == "answer.missing"),
        "{journal:?}"
    );
}

#[tokio::test]
async fn the_script_says_which_expectation_a_request_missed() {
    let f = fixture([
        Turn::call("search-tool", json!({"words": "dentist"})),
        Turn::text("Tuesday.").expect_tool_result("Wednesday"),
    ]);
    let error = f.app.run("desk", "when?").await.unwrap_err().to_string();
    assert!(
        error.starts_with(
            "model call failed: scripted model: request 2 should have the last message is a tool result containing \"Wednesday\", but the last message is "
        ),
        "{error}"
    );
    assert!(error.contains("about dentist"), "{error}");
}

#[tokio::test]
async fn repeated_and_missing_call_ids_become_unique_keys() {
    let call = |id: Option<&str>| ToolCall {
        provider_id: id.map(Into::into),
        name: "search-tool".into(),
        arguments: r#"{"words": "x"}"#.into(),
    };
    let f = fixture([
        Turn::tool_calls(vec![call(Some("call_0")), call(Some("call_0"))]),
        Turn::tool_calls(vec![call(None), call(None)]),
        Turn::text("done"),
    ]);
    let outcome = completed(f.app.run("desk", "go").execution_id("e:1")).await;
    let mut keys = f.seen.keys.lock().unwrap().clone();
    keys.sort();
    assert_eq!(
        keys,
        [
            "e%3A1:helper:1:call_0%3A0",
            "e%3A1:helper:1:call_0%3A1",
            "e%3A1:helper:1:gen-1-2-0",
            "e%3A1:helper:1:gen-1-2-1",
        ]
    );
    assert_eq!(outcome.tool_calls, 4);
}

#[tokio::test]
async fn cancelling_aborts_running_calls_and_ends_the_run() {
    let f = fixture([
        Turn::call("wait-tool", json!({"words": "x"})),
        Turn::text("never"),
    ]);
    let signal = agboss::context::Signal::new();
    let run = f.app.run("desk", "go").signal(signal.clone());
    let started = f.started.clone();
    let canceller = tokio::spawn(async move {
        started.notified().await;
        signal.cancel("the user left");
    });
    let error = tokio::time::timeout(Duration::from_secs(10), run)
        .await
        .expect("the run ended")
        .unwrap_err();
    canceller.abort();
    assert_eq!(error.to_string(), "cancelled: the user left");
    let journal = f.journal().await;
    assert!(
        journal.iter().any(|e| matches!(e, LoopEvent::ToolFinished { content, .. } if content == "Tool error: the user left")),
        "the running call got its one result: {journal:?}"
    );
    assert_eq!(f.model.remaining(), 1);
}

#[tokio::test]
async fn on_tool_end_reports_truncation() {
    let f = fixture([
        Turn::call("long-tool", json!({"words": "x"})),
        Turn::text("ok"),
    ]);
    let ends = Arc::new(Mutex::new(Vec::new()));
    let hook = ends.clone();
    f.app
        .run("desk", "go")
        .on_tool_end(move |end| {
            hook.lock().unwrap().push((
                end.tool.to_owned(),
                end.source.to_owned(),
                end.is_result_truncated,
                end.content.to_owned(),
            ))
        })
        .await
        .unwrap();
    let ends = ends.lock().unwrap();
    assert_eq!(
        (ends[0].0.as_str(), ends[0].1.as_str(), ends[0].2),
        ("long-tool", "local", true)
    );
    assert!(
        ends[0]
            .3
            .ends_with("[result truncated: 514 bytes, the first 60 kept]"),
        "{}",
        ends[0].3
    );
}

/// The run `resumable` resumed from the first of its `events`, by a fixture whose model answers
/// once it read the search's result: that fixture, and the run's answer.
async fn resumed_from(events: &[LoopEvent]) -> (Fixture, Option<String>) {
    let resumed = fixture_over(
        journaled("resumable", events).await,
        [Turn::text("resumed").expect_tool_result("about a")],
    );
    let outcome = resumed.app.resume_execution("resumable", None).await;
    let text = outcome.unwrap().text().map(str::to_owned);
    (resumed, text)
}

#[tokio::test]
async fn a_run_resumes_from_its_journal_without_redoing_steps() {
    // A run whose model answered with a call, whose call finished, and which then died
    // (the script ran out, standing in for a crash).
    let f = fixture([Turn::call("search-tool", json!({"words": "a"}))]);
    let error = f
        .app
        .run("desk", "go")
        .execution_id("resumable")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("no turn left"), "{error}");
    let events = f.store.events("resumable").await.unwrap();
    assert_eq!(
        events.len(),
        5,
        "started, answered, the call's intent, finished, failed"
    );

    // Crashed after the model's answer was journaled (2 events): the pending call runs on
    // resume, the model is not asked that turn again. Crashed after the call's intent was
    // journaled (3): it may have run, and its tool runs again (its default `on_crash =
    // rerun`) with the same id and key.
    for (kept, same) in [(2, "the same id"), (3, "the same key")] {
        let (resumed, text) = resumed_from(&events[..kept]).await;
        assert_eq!(text.as_deref(), Some("resumed"));
        assert_eq!(resumed.model.requests().len(), 1);
        assert_eq!(resumed.seen.runs.load(Ordering::SeqCst), 1);
        let key = resumed.seen.keys.lock().unwrap()[0].clone();
        assert_eq!(key, "resumable:helper:1:call_0", "{same}");
    }

    // Crashed after the call finished: nothing is run again.
    let (resumed, _) = resumed_from(&events[..4]).await;
    assert_eq!(resumed.model.requests().len(), 1);
    assert_eq!(resumed.seen.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_journal_is_the_state() {
    let f = fixture([
        Turn::call("search-tool", json!({"words": "a"})),
        Turn::text("done"),
    ]);
    f.app.run("desk", "go").await.unwrap();
    let journal = f.journal().await;
    let kinds: Vec<&str> = journal
        .iter()
        .map(|e| match e {
            LoopEvent::Started { .. } => "started",
            LoopEvent::ModelAnswered { .. } => "model_answered",
            LoopEvent::ToolsStarted { .. } => "tools_started",
            LoopEvent::ToolFinished { .. } => "tool_finished",
            LoopEvent::Answered { .. } => "answered",
            LoopEvent::Failed { .. } => "failed",
            _ => "pause",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "started",
            "model_answered",
            "tools_started",
            "tool_finished",
            "model_answered",
            "answered"
        ]
    );
    // Every event survives a round trip through JSON, which is what a durable store keeps.
    for event in &journal {
        let text = serde_json::to_string(event).unwrap();
        assert_eq!(&serde_json::from_str::<LoopEvent>(&text).unwrap(), event);
    }
    let state = agboss::journal::LoopState::from_events(&journal).unwrap();
    assert_eq!(state.messages.len(), 4, "input, call, result, answer");
}
