//! The application the journal fixtures were recorded with, and the scenarios: what each
//! journal holds and what replaying it must do. The tools record each call's key and argument
//! bytes, as an effect server would; the model decides from the conversation alone (never from
//! how often it was asked), so a replay that asks it again gets the same answer.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use agboss::context::Signal;
use agboss::journal::{LoopEvent, STATE_VERSION};
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{MemoryStore, Store};
use agboss::time::ManualClock;
use agboss::{Application, Resume, Workflow};
use fixtures::chat;
use serde_json::{Value, json};

/// One call a tool made, as the service it calls would see it.
#[derive(Clone, Debug)]
pub struct Effect {
    pub tool: &'static str,
    pub call_id: String,
    pub key: String,
    pub arguments: Value,
}

/// The calls tools made.
#[derive(Default)]
pub struct Effects(Mutex<Vec<Effect>>);

impl Effects {
    fn push(&self, tool: &'static str, context: &ExecutionContext, arguments: Value) {
        self.0.lock().unwrap().push(Effect {
            tool,
            call_id: context.call_id().to_owned(),
            key: context.idempotency_key().to_owned(),
            arguments,
        });
    }

    pub fn calls(&self) -> Vec<Effect> {
        self.0.lock().unwrap().clone()
    }
}

#[dto]
pub struct LookupInput {
    pub query: String,
}

/// Looks something up (a call with an effect, counted).
#[tool(name = "lookup-tool")]
pub struct Lookup {
    execution: ExecutionContext,
    effects: Arc<Effects>,
}

impl ToolHandler for Lookup {
    type Input = LookupInput;
    type Output = PlainText;

    async fn run(&self, input: LookupInput) -> Result<PlainText, ToolError> {
        self.effects.push(
            "lookup-tool",
            &self.execution,
            json!({"query": input.query}),
        );
        Ok(PlainText::new(format!("found {}", input.query)))
    }
}

#[dto]
pub struct PayInput {
    pub payee: String,
    pub amount_cents: u64,
}

/// Approves payments; the thread's owner answers.
#[channel_role(
    name = "replay-approval-channel",
    approves = PayInput,
    answered_by = ThreadOwner,
)]
pub struct ReplayApproval;

fixtures::inbox! {
    /// Posts the question; the answer comes later.
    #[channel(name = "replay-inbox-channel")]
    pub struct ReplayInbox for ReplayApproval;
}

/// Pays, once approved.
#[tool(name = "pay-tool", channel = ReplayApproval)]
pub struct Pay {
    execution: ExecutionContext,
    effects: Arc<Effects>,
}

impl ToolHandler for Pay {
    type Input = PayInput;
    type Output = PlainText;

    async fn run(&self, input: PayInput) -> Result<PlainText, ToolError> {
        let arguments = json!({"payee": input.payee, "amount_cents": input.amount_cents});
        self.effects.push("pay-tool", &self.execution, arguments);
        Ok(PlainText::new(format!("paid {}", input.payee)))
    }
}

/// Looks two things up, then answers.
#[agent(name = "looker", prompt = "../prompts/helper.prompt.md", model = "test/replay", tools = [Lookup])]
pub struct Looker;

/// Pays, then answers.
#[agent(name = "payer", prompt = "../prompts/helper.prompt.md", model = "test/replay", tools = [Pay])]
pub struct Payer;

/// The argument bytes of the payment the model asks for.
pub const PAY_ARGUMENTS: &str = r#"{"payee": "ada", "amount_cents": 4200}"#;

/// The same, as the tool reads them.
pub static PAY_ARGUMENTS_VALUE: std::sync::LazyLock<Value> =
    std::sync::LazyLock::new(|| serde_json::from_str(PAY_ARGUMENTS).unwrap());

/// A model that decides from the conversation: without a tool result yet it asks for the
/// agent's calls (two lookups under one repeated provider id, or one payment); after them it
/// answers.
#[derive(Default)]
pub struct ReplayModel {
    calls: AtomicUsize,
}

impl ReplayModel {
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl ChatModel for ReplayModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let paying = request.tools.iter().any(|t| t.name == "pay-tool");
        let answered = chat::results_so_far(request) > 0;
        let response = match (answered, paying) {
            (true, false) => chat::answer("found both"),
            (true, true) => chat::answer("paid"),
            (false, false) => chat::calling(vec![
                chat::call("call_0", "lookup-tool", r#"{"query": "a"}"#),
                chat::call("call_0", "lookup-tool", r#"{"query": "b"}"#),
            ]),
            (false, true) => chat::calling(vec![chat::call("call_1", "pay-tool", PAY_ARGUMENTS)]),
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

/// The application, on a store of its own and a clock that starts at a fixed date.
pub struct Fixture {
    pub app: Application,
    pub store: Arc<dyn Store>,
    pub model: Arc<ReplayModel>,
    pub effects: Arc<Effects>,
}

impl Fixture {
    pub fn new() -> Fixture {
        let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
        let model = Arc::new(ReplayModel::default());
        let effects = Arc::new(Effects::default());
        let origin = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_764_547_200);
        let app = Application::builder("replay")
            .workflow(Workflow::new("desk").agent::<Looker>().agent::<Payer>())
            .provide(effects.clone())
            .channel::<ReplayInbox>()
            .chat_model(model.clone())
            .store(store.clone())
            .clock(ManualClock::with_wall_origin(origin))
            .build()
            .unwrap();
        Fixture {
            app,
            store,
            model,
            effects,
        }
    }
}

/// What a journal holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// Two lookups and an answer.
    Completed,
    /// The model's answer journaled; no call ran.
    BeforeTools,
    /// The first lookup finished; the second has no result.
    MidTool,
    /// The calls' intent journaled (layout 3 on); neither has a result.
    AfterIntent,
    /// Started; the first model call was lost.
    ModelLost,
    /// The payment waits for its owner's approval.
    Paused,
    /// The approval was answered; the payment has not run.
    ApprovedNotRun,
    /// Paid and answered.
    PaidAndAnswered,
}

/// What replaying a journal of a scenario must do.
pub struct Expected {
    pub answer: &'static str,
    /// The calls that must run now (call ids), in order.
    pub runs: &'static [&'static str],
    /// The node the calls belong to.
    pub node: &'static str,
    pub model_calls: usize,
}

impl Expected {
    /// The idempotency keys of the calls that must run in execution `execution_id`.
    pub fn keys(&self, execution_id: &str) -> Vec<String> {
        self.runs
            .iter()
            .map(|call| {
                agboss::context::Step::new(self.node, 1, *call).idempotency_key(execution_id)
            })
            .collect()
    }
}

impl Scenario {
    pub const ALL: [Scenario; 8] = [
        Scenario::Completed,
        Scenario::BeforeTools,
        Scenario::MidTool,
        Scenario::AfterIntent,
        Scenario::ModelLost,
        Scenario::Paused,
        Scenario::ApprovedNotRun,
        Scenario::PaidAndAnswered,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Completed => "completed",
            Scenario::BeforeTools => "before-tools",
            Scenario::MidTool => "mid-tool",
            Scenario::AfterIntent => "after-intent",
            Scenario::ModelLost => "model-lost",
            Scenario::Paused => "paused",
            Scenario::ApprovedNotRun => "approved-not-run",
            Scenario::PaidAndAnswered => "paid-and-answered",
        }
    }

    fn of(name: &str) -> Scenario {
        *Scenario::ALL
            .iter()
            .find(|s| s.name() == name)
            .unwrap_or_else(|| panic!("no scenario `{name}`"))
    }

    /// What replaying its journal must do (the paused one: and then approving it).
    pub fn expected(self) -> Expected {
        let looker = |runs, model_calls| Expected {
            answer: "found both",
            runs,
            node: "looker",
            model_calls,
        };
        let payer = |runs, model_calls| Expected {
            answer: "paid",
            runs,
            node: "payer",
            model_calls,
        };
        match self {
            Scenario::Completed => looker(&[], 0),
            Scenario::BeforeTools | Scenario::AfterIntent => looker(&["call_0:0", "call_0:1"], 1),
            Scenario::MidTool => looker(&["call_0:1"], 1),
            Scenario::ModelLost => looker(&["call_0:0", "call_0:1"], 2),
            Scenario::Paused | Scenario::ApprovedNotRun => payer(&["call_1"], 1),
            Scenario::PaidAndAnswered => payer(&[], 0),
        }
    }
}

impl std::fmt::Display for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A journal as a fixture file holds it.
pub struct Recorded {
    pub layout: u32,
    pub scenario: Scenario,
    pub execution_id: String,
    pub events: Vec<LoopEvent>,
}

impl Recorded {
    /// The fixture file's JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "recorded_by": "agboss 0.1.0",
            "layout": self.layout,
            "scenario": self.scenario.name(),
            "execution_id": self.execution_id,
            "events": self.events,
        })
    }
}

pub fn fixture_dir(layout: u32) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/journals/v{layout}"))
}

/// Every fixture in `dir`, by scenario order.
pub fn read_all(dir: &Path) -> Vec<Recorded> {
    let mut all: Vec<Recorded> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            let value: Value =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            Recorded {
                layout: value["layout"].as_u64().unwrap() as u32,
                scenario: Scenario::of(value["scenario"].as_str().unwrap()),
                execution_id: value["execution_id"].as_str().unwrap().to_owned(),
                events: serde_json::from_value(value["events"].clone())
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            }
        })
        .collect();
    all.sort_by_key(|r| Scenario::ALL.iter().position(|s| *s == r.scenario));
    all
}

/// The id of the pause a journal opened.
pub fn pause_id_of(events: &[LoopEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            LoopEvent::PauseOpened(opened) => Some(opened.pause_id.clone()),
            _ => None,
        })
        .expect("a pause")
}

/// Runs `scenario` to where its journal stops, and returns the journal.
pub async fn record(scenario: Scenario) -> Recorded {
    let f = Fixture::new();
    let id = format!("fx-{}", scenario.name());
    let paying = matches!(
        scenario,
        Scenario::Paused | Scenario::ApprovedNotRun | Scenario::PaidAndAnswered
    );
    let run = f
        .app
        .run(
            "desk",
            if paying {
                "pay ada 42"
            } else {
                "look up a and b"
            },
        )
        .agent(if paying { "payer" } else { "looker" })
        .execution_id(&id)
        .thread(&id)
        .owner("u-1")
        .await
        .unwrap();
    if paying && !matches!(scenario, Scenario::Paused) {
        let RunOutcome::Paused(paused) = run else {
            panic!("{run:?}")
        };
        let approve = ToolCallApprovalDecision::<PayInput>::approve();
        f.app
            .resume(Resume::decision(&paused.pending[0].pause_id, approve).answered_by("u-1"))
            .await
            .unwrap();
    }
    let events = f.store.events(&id).await.unwrap();
    let position = |wanted: fn(&LoopEvent) -> bool| {
        events
            .iter()
            .position(wanted)
            .unwrap_or_else(|| panic!("{scenario}: {events:#?}"))
    };
    let keep = match scenario {
        Scenario::Completed | Scenario::Paused | Scenario::PaidAndAnswered => events.len(),
        Scenario::ModelLost => 1,
        Scenario::BeforeTools => position(|e| matches!(e, LoopEvent::ModelAnswered { .. })) + 1,
        Scenario::MidTool => position(|e| matches!(e, LoopEvent::ToolFinished { .. })) + 1,
        Scenario::AfterIntent => position(|e| matches!(e, LoopEvent::ToolsStarted { .. })) + 1,
        Scenario::ApprovedNotRun => position(|e| matches!(e, LoopEvent::PauseResolved { .. })) + 1,
    };
    Recorded {
        layout: STATE_VERSION,
        scenario,
        execution_id: id,
        events: events[..keep].to_vec(),
    }
}
