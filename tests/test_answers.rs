//! How a run ends, through the public API on a scripted model: structured answers and their
//! retries, calls beside a valid answer, the turn cap, empty answers, and the tool choices
//! configuration sets.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agboss::app::{AgentDefaults, Source};
use agboss::config::Config;
use agboss::journal::LoopEvent;
use agboss::model::{ChatResponse, FinishReason, ToolChoice};
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::{Answer, RunError};
use agboss::store::{Journal, MemoryStore};
use agboss::{Application, Workflow};
use fixtures::journal::{failed_code, journaled, only_journal, tool_results};
use serde_json::json;

mod loop_common;
use fixtures::run::completed;
use loop_common::{Found, Verdict, Words, failed};

#[tool(name = "search-tool", description = "Searches", read_only = true)]
pub struct Search {
    runs: Arc<AtomicUsize>,
}

impl ToolHandler for Search {
    type Input = Words;
    type Output = Found;

    async fn run(&self, input: Words) -> Result<Found, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(Found {
            found: vec![format!("a note about {}", input.words)],
        })
    }
}

/// Judges, through `answer-verdict`.
#[agent(
    name = "judge",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Search],
    output = Verdict,
)]
pub struct Judge;

/// Answers in text.
#[agent(
    name = "helper",
    prompt = "prompts/helper.prompt.md",
    model = "local/qwen2.5",
    tools = [Search],
)]
pub struct Helper;

/// Declares its own limits.
#[agent(
    name = "strict-judge",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Search],
    output = Verdict,
    answer_retries = 0,
    max_turns = 2,
    first_turn_tool_choice = "search-tool",
)]
pub struct StrictJudge;

struct Fixture {
    app: Application,
    model: ScriptedModel,
    runs: Arc<AtomicUsize>,
    store: Arc<MemoryStore>,
}

impl Fixture {
    /// The events of the only execution run.
    async fn journal(&self) -> Vec<LoopEvent> {
        only_journal(&self.store).await
    }
}

fn fixture(turns: impl IntoIterator<Item = Turn>) -> Fixture {
    fixture_over(Arc::new(MemoryStore::new()), None, turns)
}

/// With configuration `toml`.
fn configured(toml: &str, turns: impl IntoIterator<Item = Turn>) -> Fixture {
    let config = Config::from_toml("settings.toml", toml);
    fixture_over(Arc::new(MemoryStore::new()), Some(config), turns)
}

fn fixture_over(
    store: Arc<MemoryStore>,
    config: Option<Config>,
    turns: impl IntoIterator<Item = Turn>,
) -> Fixture {
    agboss::model::forbid_real_requests(true);
    let model = ScriptedModel::new(turns);
    let runs = Arc::new(AtomicUsize::new(0));
    let mut builder = Application::builder("answers")
        .store(store.clone())
        .workflow(
            Workflow::new("desk")
                .agent::<Judge>()
                .agent::<Helper>()
                .agent::<StrictJudge>(),
        )
        .provide(runs.clone())
        .chat_model(Arc::new(model.clone()));
    if let Some(config) = config {
        builder = builder.config(config);
    }
    Fixture {
        app: builder.build().unwrap(),
        model,
        runs,
        store,
    }
}

fn invalid_verdict() -> Turn {
    Turn::call("answer-verdict", json!({"ok": true, "reason": "no"}))
}

fn valid_verdict() -> Turn {
    Turn::call(
        "answer-verdict",
        json!({"ok": true, "reason": "all checks pass"}),
    )
}

/// A small local model that keeps giving the same invalid answer is asked again twice (the
/// built-in `answer_retries`), then the run fails with `answer.invalid`; the rest of the
/// script is never asked for.
#[tokio::test]
async fn invalid_answers_are_retried_up_to_the_bound_then_the_run_fails() {
    let f = fixture(std::iter::repeat_with(invalid_verdict).take(40));
    let error = failed(&f.app, "judge", "judge it").await;
    assert_eq!(error.code(), "answer.invalid");
    assert_eq!(
        error.to_string(),
        "agent `judge` gave 3 invalid answers through `answer-verdict`, and answer_retries = 2 (built-in) allows no more; the last: reason: must be at least 3 characters long, got 2"
    );
    assert!(matches!(error, RunError::InvalidAnswer(_)), "{error:?}");
    assert_eq!(
        f.model.requests().len(),
        3,
        "the first answer and two retries"
    );
    assert_eq!(failed_code(&f.journal().await), Some("answer.invalid"));
    // The retries read why the answer was refused.
    let retried = &f.model.requests()[1];
    let last = retried.messages.last().unwrap();
    assert!(
        format!("{last:?}").contains("must be at least 3 characters long"),
        "{last:?}"
    );
}

/// The bound comes from the agent (attribute or configuration), else its workflow's
/// `defaults.agents`, else the application's, else 2; a valid answer within it ends the run.
#[tokio::test]
async fn answer_retries_come_from_the_agent_then_the_workflow_then_the_application() {
    let f = fixture([invalid_verdict()]);
    let error = failed(&f.app, "strict-judge", "judge it").await;
    assert_eq!(error.code(), "answer.invalid");
    assert!(
        error.to_string().contains(
            "gave 1 invalid answers through `answer-verdict`, and answer_retries = 0 (own)"
        ),
        "{error}"
    );

    let f = configured(
        "[defaults.agents]\nanswer_retries = 5\n[workflows.desk.defaults.agents]\nanswer_retries = 1\n",
        [invalid_verdict(), invalid_verdict(), valid_verdict()],
    );
    let judge = f.app.workflow("desk").unwrap().agent("judge").unwrap();
    assert_eq!(judge.answer_retries().value, 1);
    assert_eq!(
        judge.answer_retries().source,
        Source::Workflow("desk".into())
    );
    let error = failed(&f.app, "judge", "judge it").await;
    assert!(
        error.to_string().contains("answer_retries = 1 (desk)"),
        "{error}"
    );

    let f = configured(
        "[agents.judge]\nanswer_retries = 3\n",
        [invalid_verdict(), invalid_verdict(), valid_verdict()],
    );
    let outcome = completed(f.app.run("desk", "judge it").agent("judge")).await;
    assert_eq!(
        outcome.answer,
        Answer::Structured(json!({"ok": true, "reason": "all checks pass"}))
    );

    let app = Application::builder("limits")
        .workflow(Workflow::new("desk").agent::<Judge>())
        .agent_defaults(AgentDefaults::new().answer_retries(4).max_turns(9))
        .provide(Arc::new(AtomicUsize::new(0)))
        .build()
        .unwrap();
    let judge = app.workflow("desk").unwrap().agent("judge").unwrap();
    assert_eq!(judge.answer_retries().value, 4);
    assert_eq!(judge.max_turns().value, 9);
    assert_eq!(
        judge.max_turns().source,
        Source::Application("limits".into())
    );
}

/// Tool calls in the same answer as a valid structured answer each get exactly one result: the
/// tools run, a second answer is refused, the answer call is acknowledged; then the run ends
/// with the answer, without asking the model again.
#[tokio::test]
async fn calls_beside_a_valid_answer_each_get_a_result_and_the_answer_stands() {
    let f = fixture([Turn::calls([
        ("search-tool", json!({"words": "dentist"})),
        (
            "answer-verdict",
            json!({"ok": true, "reason": "saved and found"}),
        ),
        ("answer-verdict", json!({"ok": false, "reason": "no"})),
    ])]);
    let outcome = completed(f.app.run("desk", "judge it").agent("judge")).await;
    assert_eq!(
        outcome.answer,
        Answer::Structured(json!({"ok": true, "reason": "saved and found"}))
    );
    assert_eq!(f.runs.load(Ordering::SeqCst), 1, "the search ran");
    assert_eq!(f.model.requests().len(), 1, "the model is not asked again");
    assert_eq!(outcome.tool_calls, 1, "answers are not tool calls");
    let journal = f.journal().await;
    let mut results: Vec<(String, bool, String)> = tool_results(&journal)
        .into_iter()
        .map(|r| (r.call_id, r.is_error, r.content))
        .collect();
    results.sort();
    assert_eq!(
        results,
        [
            (
                "call_0".to_owned(),
                false,
                r#"{"found":["a note about dentist"]}"#.to_owned()
            ),
            (
                "call_1".to_owned(),
                false,
                "Answer accepted: the run ends once the other calls of this turn have their results."
                    .to_owned()
            ),
            (
                "call_2".to_owned(),
                true,
                "Tool error: invalid input: reason: must be at least 3 characters long, got 2"
                    .to_owned()
            ),
        ]
    );
    assert!(matches!(journal.last(), Some(LoopEvent::Answered { .. })));
}

/// A run that stopped right after such a turn was journaled ends the same way when resumed:
/// the pending call runs, and the journaled answer ends the run.
#[tokio::test]
async fn a_resumed_run_ends_with_the_answer_its_calls_were_beside() {
    let f = fixture([Turn::calls([
        ("search-tool", json!({"words": "dentist"})),
        (
            "answer-verdict",
            json!({"ok": true, "reason": "saved and found"}),
        ),
    ])]);
    f.app
        .run("desk", "judge it")
        .agent("judge")
        .execution_id("beside")
        .await
        .unwrap();
    let events = f.store.events("beside").await.unwrap();
    // Started, the model's turn, the answer call's result: the search had not finished.
    let resumed = fixture_over(journaled("beside", &events[..3]).await, None, []);
    let outcome = completed(resumed.app.resume_execution("beside", None)).await;
    assert_eq!(
        outcome.answer,
        Answer::Structured(json!({"ok": true, "reason": "saved and found"}))
    );
    assert_eq!(resumed.runs.load(Ordering::SeqCst), 1);
    assert!(resumed.model.requests().is_empty());
}

/// A run makes at most `max_turns` model calls: past them it fails with
/// `agents.<name>.limits.turns`, before asking the model again.
#[tokio::test]
async fn a_run_stops_at_its_turn_cap() {
    let search = || Turn::call("search-tool", json!({"words": "more"}));
    let f = configured(
        "[agents.helper]\nmax_turns = 3\n",
        [search(), search(), search(), search()],
    );
    let error = failed(&f.app, "helper", "go").await;
    assert_eq!(error.code(), "agents.helper.limits.turns");
    assert_eq!(
        error.to_string(),
        "LimitExceededError: agents.helper.limits.turns: the run reached its cap of 3 model turns (own) without an answer (raise max_turns on the agent, or defaults.agents.max_turns)"
    );
    assert_eq!(f.model.requests().len(), 3);
    assert_eq!(
        failed_code(&f.journal().await),
        Some("agents.helper.limits.turns")
    );

    // The built-in cap holds with nothing configured.
    let helper_turns = fixture([]);
    let helper = helper_turns
        .app
        .workflow("desk")
        .unwrap()
        .agent("helper")
        .unwrap();
    assert_eq!(helper.max_turns().value, 30);
    assert_eq!(helper.max_turns().source, Source::BuiltIn);
}

/// The cap counts every turn, refused answers included.
#[tokio::test]
async fn the_turn_cap_counts_refused_answers_too() {
    let f = configured(
        "[agents.judge]\nanswer_retries = 10\nmax_turns = 4\n",
        std::iter::repeat_with(invalid_verdict).take(40),
    );
    let error = failed(&f.app, "judge", "judge it").await;
    assert_eq!(error.code(), "agents.judge.limits.turns");
    assert_eq!(f.model.requests().len(), 4);
}

/// A reply with neither text nor a tool call answers nothing: the run fails with
/// `answer.empty` instead of succeeding with an empty text.
#[tokio::test]
async fn an_empty_answer_fails_the_run_with_its_code() {
    let f = fixture([Turn::text("")]);
    let error = failed(&f.app, "helper", "hi").await;
    assert_eq!(error.code(), "answer.empty");
    assert_eq!(
        error.to_string(),
        "agent `helper`: the model `local/qwen2.5` answered turn 1 with neither text nor a tool call (finish reason: stop); nothing was answered, so the run stops here"
    );
    assert!(matches!(error, RunError::EmptyAnswer(_)));
    assert_eq!(failed_code(&f.journal().await), Some("answer.empty"));

    // Whitespace is no answer either, and the reason the model stopped is said.
    let f = fixture([Turn::respond(ChatResponse {
        text: Some(" \n".into()),
        finish: FinishReason::Length,
        ..ChatResponse::default()
    })]);
    let error = failed(&f.app, "judge", "hi").await;
    assert_eq!(error.code(), "answer.empty");
    assert!(
        error
            .to_string()
            .contains("(finish reason: length: it reached its output limit)"),
        "{error}"
    );
}

/// Configuration sets an agent's tool choice like its model: on every turn (`tool_choice`) or
/// on the first only (`first_turn_tool_choice`, what small local models need to call a tool).
#[tokio::test]
async fn configuration_sets_the_tool_choice_per_agent_and_for_the_first_turn() {
    let f = configured(
        "[agents.helper]\nfirst_turn_tool_choice = \"search-tool\"\n",
        [
            Turn::call("search-tool", json!({"words": "a"}))
                .expect_tool_choice(ToolChoice::Tool("search-tool".into())),
            Turn::text("done").expect_tool_choice(ToolChoice::Auto),
        ],
    );
    let outcome = f.app.run("desk", "go").agent("helper").await.unwrap();
    assert_eq!(outcome.text(), Some("done"));

    let f = configured(
        "[agents.helper]\ntool_choice = \"none\"\nfirst_turn_tool_choice = \"required\"\n",
        [
            Turn::call("search-tool", json!({"words": "a"}))
                .expect_tool_choice(ToolChoice::Required),
            Turn::text("done").expect_tool_choice(ToolChoice::None),
        ],
    );
    f.app.run("desk", "go").agent("helper").await.unwrap();

    // The attribute's first-turn choice, over the output agent's `required`.
    let f = fixture([
        Turn::call("search-tool", json!({"words": "a"}))
            .expect_tool_choice(ToolChoice::Tool("search-tool".into())),
        valid_verdict().expect_tool_choice(ToolChoice::Required),
    ]);
    f.app
        .run("desk", "judge it")
        .agent("strict-judge")
        .await
        .unwrap();
}

/// A tool choice that names no tool of the agent is an assembly problem that lists the choices.
#[test]
fn a_configured_tool_choice_must_name_one_of_the_agents_tools() {
    let error = refused("[agents.helper]\nfirst_turn_tool_choice = \"serach-tool\"\n");
    assert_eq!(error.codes(), ["agent.tool-choice-unknown"]);
    assert!(
        error.to_string().contains(
            "[agent.tool-choice-unknown] agent `helper`: first_turn_tool_choice names `serach-tool` (from configuration), which is not one of its tools: use \"auto\", \"required\", \"none\" or one of `search-tool`"
        ),
        "{error}"
    );

    let error = refused("[agents.helper]\nmax_turns = 0\n");
    assert_eq!(error.codes(), ["agent.max-turns-invalid"]);
}

/// Why an application of the helper under the configuration `toml` does not assemble.
fn refused(toml: &str) -> agboss::AssemblyError {
    Application::builder("answers")
        .workflow(Workflow::new("desk").agent::<Helper>())
        .provide(Arc::new(AtomicUsize::new(0)))
        .config(Config::from_toml("settings.toml", toml))
        .build()
        .err()
        .unwrap()
}
