//! Questions a tool asks while it runs (`Questions::ask`), on every store a user keeps runs in:
//! the ask pauses the run with the question journaled and nothing held in memory; an answer
//! given later, by another process, runs the call again from its start with the same call id
//! and idempotency key, and the answered ask returns the journaled answer at once. Several asks
//! pause in turn; a call that asks something else at the same place is told so; a channel
//! that answers at once pauses nothing.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{MemoryStore, Store};
use agboss::time::ManualClock;
use agboss::{Application, Resume, Workflow};
use fixtures::stores::each_store;

#[dto]
pub struct ShipInput {
    /// The order to ship.
    pub order: String,
    /// How many questions to ask (1 or 2).
    pub asks: u32,
    /// Ask about another order on the second run (a tool whose code is not deterministic).
    #[serde(default)]
    pub wander: bool,
}

#[dto]
pub struct AddressQuestion {
    /// The order the address is for.
    pub order: String,
    /// Which line of the address is asked.
    pub line: u32,
}

#[dto]
pub struct AddressLine {
    /// The line, as the person wrote it.
    pub text: String,
}

/// Asks the thread's owner for a line of the shipping address.
#[channel_role(
    name = "shipping-address-channel",
    ask = AddressQuestion,
    answer = AddressLine,
    answered_by = ThreadOwner
)]
pub struct ShippingAddressRole;

fixtures::inbox! {
    /// Puts the question in the owner's inbox; the answer comes later.
    #[channel(name = "address-inbox-channel")]
    pub struct AddressInbox for ShippingAddressRole;
}

/// What the tool did, seen from outside: each start, with its idempotency key.
#[derive(Default)]
pub struct Effects {
    starts: Mutex<Vec<(String, String, u32)>>,
    runs: AtomicU32,
}

/// Ships an order to the address the owner gives.
#[tool(name = "ship-order-tool", asks = [ShippingAddressRole])]
pub struct ShipOrder {
    questions: Questions,
    context: ExecutionContext,
    effects: Arc<Effects>,
}

impl ToolHandler for ShipOrder {
    type Input = ShipInput;
    type Output = PlainText;

    async fn run(&self, input: ShipInput) -> Result<PlainText, ToolError> {
        // A side effect before the ask: it happens once per start of the call.
        let run = self.effects.runs.fetch_add(1, Ordering::SeqCst);
        self.effects.starts.lock().unwrap().push((
            self.context.call_id().to_owned(),
            self.context.idempotency_key().to_owned(),
            self.context.attempt(),
        ));
        let order = match (input.wander, run) {
            (true, 1..) => format!("{}-other", input.order),
            _ => input.order.clone(),
        };
        let mut lines = Vec::new();
        for line in 1..=input.asks {
            let question = AddressQuestion {
                order: order.clone(),
                line,
            };
            let answer = self.questions.ask::<ShippingAddressRole>(question).await?;
            lines.push(answer.text);
        }
        Ok(PlainText::new(format!(
            "shipped {} to {}",
            input.order,
            lines.join(", ")
        )))
    }
}

/// Ships orders.
#[agent(
    name = "shipper",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [ShipOrder]
)]
pub struct Shipper;

fn app(
    store: Arc<dyn Store>,
    model: &ScriptedModel,
    clock: &ManualClock,
    effects: &Arc<Effects>,
) -> Application {
    Application::builder("shop")
        .workflow(Workflow::new("desk").agent::<Shipper>())
        .channel::<AddressInbox>()
        .provide(effects.clone())
        .store(store)
        .clock(clock.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

fn ship(asks: u32, wander: bool) -> Turn {
    Turn::call(
        "ship-order-tool",
        serde_json::json!({"order": "A-1", "asks": asks, "wander": wander}),
    )
}

fn paused_on(outcome: &RunOutcome) -> (String, serde_json::Value) {
    let paused = outcome.paused().expect("the run waits for the owner");
    assert_eq!(paused.pending.len(), 1);
    let pause = &paused.pending[0];
    assert_eq!(pause.role, "shipping-address-channel");
    assert_eq!(pause.tool, "ship-order-tool");
    (pause.pause_id.clone(), pause.question.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_asked_by_a_tool_is_answered_a_day_later_by_another_process() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        let clock = ManualClock::new();
        let effects = Arc::new(Effects::default());
        let model = ScriptedModel::new([ship(2, false), Turn::text("Shipped.")]);
        let first = app(store.clone(), &model, &clock, &effects);
        let outcome = first
            .run("desk", "ship A-1")
            .thread(&format!("t-{name}"))
            .owner("alice")
            .await
            .unwrap();
        let (pause_id, question) = paused_on(&outcome);
        assert_eq!(
            question,
            serde_json::json!({"order": "A-1", "line": 1}),
            "{name}"
        );
        let listed = store
            .open_pauses(&agboss::journal::PauseQuery {
                owner: Some("alice".into()),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(
            listed.len(),
            1,
            "{name}: the question is journaled and listed"
        );
        let asked = listed[0].opened.asked.as_ref().expect("a question");
        assert_eq!((asked.tool.as_str(), asked.index), ("ship-order-tool", 0));
        let printed = agboss::cli::render_pause(&listed[0], 0);
        assert!(
            printed.contains("ship-order-tool asks shipping-address-channel (question 1 of its call), answered by alice")
                && printed.contains(r#"question: {"order":"A-1","line":1}"#),
            "{printed}"
        );
        drop(first);

        // A day later, another process answers the first line; the call runs again and stops
        // at its second question.
        clock.advance(Duration::from_secs(24 * 3_600));
        let second = app(store.clone(), &model, &clock, &effects);
        let outcome = second
            .resume(
                Resume::decision(
                    &pause_id,
                    AddressLine {
                        text: "1 Main St".into(),
                    },
                )
                .answered_by("alice"),
            )
            .await
            .unwrap();
        let (next_id, question) = paused_on(&outcome);
        assert_ne!(next_id, pause_id, "{name}");
        assert_eq!(
            question,
            serde_json::json!({"order": "A-1", "line": 2}),
            "{name}"
        );
        drop(second);

        let third = app(store.clone(), &model, &clock, &effects);
        let outcome = third
            .resume(
                Resume::decision(
                    &next_id,
                    AddressLine {
                        text: "Springfield".into(),
                    },
                )
                .answered_by("alice"),
            )
            .await
            .unwrap();
        let completed = outcome.completed().expect("the run ends");
        assert_eq!(outcome.text(), Some("Shipped."), "{name}");
        assert!(completed.tool_calls >= 1);
        let requests = model.requests();
        let result = format!("{:?}", requests.last().unwrap().messages);
        assert!(
            result.contains("shipped A-1 to 1 Main St, Springfield"),
            "{name}: {result}"
        );

        // Three starts of one call: same id, same key; the side effect before the first ask
        // happened once per start, as the docs say.
        let starts = effects.starts.lock().unwrap().clone();
        assert_eq!(starts.len(), 3, "{name}: {starts:?}");
        assert!(
            starts
                .iter()
                .all(|s| s.0 == starts[0].0 && s.1 == starts[0].1),
            "{name}"
        );
        assert_eq!(
            starts.iter().map(|s| s.2).collect::<Vec<_>>(),
            [1, 2, 3],
            "{name}"
        );
        assert_eq!(
            model.remaining(),
            0,
            "{name}: the model was asked twice, no more"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_asks_something_else_at_the_same_place_is_told_so() {
    agboss::model::forbid_real_requests(true);
    let clock = ManualClock::new();
    let effects = Arc::new(Effects::default());
    let model = ScriptedModel::new([ship(1, true), Turn::text("Could not ship.")]);
    let app = app(Arc::new(MemoryStore::new()), &model, &clock, &effects);
    let outcome = app.run("desk", "ship A-1").owner("alice").await.unwrap();
    let (pause_id, _) = paused_on(&outcome);
    let outcome = app
        .resume(Resume::decision(&pause_id, AddressLine { text: "x".into() }).answered_by("alice"))
        .await
        .unwrap();
    assert!(outcome.completed().is_some());
    let requests = model.requests();
    let result = format!("{:?}", requests.last().unwrap().messages);
    assert!(
        result.contains("ask 1 of this call asked role `shipping-address-channel`")
            && result.contains("the same questions in the same order"),
        "{result}"
    );
}

/// Watched, a run tells that the tool's question waits, with the pause's id, once it is
/// journaled and its channel asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_run_tells_that_a_question_waits() {
    agboss::model::forbid_real_requests(true);
    let clock = ManualClock::new();
    let effects = Arc::new(Effects::default());
    let model = ScriptedModel::new([ship(1, false), Turn::text("Shipped.")]);
    let app = app(Arc::new(MemoryStore::new()), &model, &clock, &effects);
    let mut waiting = Vec::new();
    let outcome = app
        .run("desk", "ship A-1")
        .owner("alice")
        .stream()
        .watch(|event| {
            if let agboss::run::RunEvent::PauseWaiting {
                pause_id,
                tool,
                role,
                ..
            } = event
            {
                waiting.push((pause_id, tool, role));
            }
        })
        .await
        .unwrap();
    let (pause_id, _) = paused_on(&outcome);
    assert_eq!(
        waiting,
        [(
            Some(pause_id),
            "ship-order-tool".to_owned(),
            "shipping-address-channel".to_owned()
        )]
    );
}

/// Answers every address question at once.
#[channel(name = "address-book-channel")]
pub struct AddressBook;

impl ChannelHandler for AddressBook {
    type Role = ShippingAddressRole;

    async fn send(
        &self,
        ask: ChannelAsk<ShippingAddressRole>,
    ) -> Result<ChannelOutcome<ShippingAddressRole>, ToolError> {
        Ok(ChannelOutcome::decided(AddressLine {
            text: format!("line {} of {}", ask.value.line, ask.value.order),
        }))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_channel_that_answers_at_once_pauses_nothing() {
    agboss::model::forbid_real_requests(true);
    let effects = Arc::new(Effects::default());
    let model = ScriptedModel::new([ship(2, false), Turn::text("Shipped.")]);
    let store = Arc::new(MemoryStore::new());
    let app = Application::builder("shop")
        .workflow(Workflow::new("desk").agent::<Shipper>())
        .channel::<AddressBook>()
        .provide(effects.clone())
        .store(store.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let outcome = app.run("desk", "ship A-1").owner("alice").await.unwrap();
    assert!(outcome.completed().is_some(), "{outcome:?}");
    let result = format!("{:?}", model.requests().last().unwrap().messages);
    assert!(
        result.contains("shipped A-1 to line 1 of A-1, line 2 of A-1"),
        "{result}"
    );
    assert_eq!(
        effects.runs.load(Ordering::SeqCst),
        1,
        "one start, no pause"
    );
}

#[tokio::test]
async fn a_question_role_without_a_channel_is_an_assembly_problem() {
    let Err(error) = Application::builder("shop")
        .workflow(Workflow::new("desk").agent::<Shipper>())
        .provide(Arc::new(Effects::default()))
        .build()
    else {
        panic!("assembled without a channel for the role");
    };
    let error = error.to_string();
    assert!(
        error.contains("a channel for role `shipping-address-channel`"),
        "{error}"
    );
}

#[test]
fn describe_lists_the_questions_a_tool_may_ask() {
    let app = Application::builder("shop")
        .workflow(Workflow::new("desk").agent::<Shipper>())
        .channel::<AddressInbox>()
        .provide(Arc::new(Effects::default()))
        .build()
        .unwrap();
    let text = agboss::describe::text(&app);
    assert!(
        text.contains("ship-order-tool (write, local, asks: shipping-address-channel)"),
        "{text}"
    );
    let json = agboss::describe::json(&app);
    let tool = &json["schemas"]["tools"]["ship-order-tool"];
    assert_eq!(
        tool["asks"],
        serde_json::json!([{"role": "shipping-address-channel", "answeredBy": "thread_owner"}]),
        "{json:#}"
    );
}

#[dto]
pub struct NoteInput {
    /// The note.
    pub text: String,
}

/// Asks for a line of an address it never declared.
#[tool(name = "note-address-tool")]
pub struct NoteAddress {
    questions: Questions,
}

impl ToolHandler for NoteAddress {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        let question = AddressQuestion {
            order: input.text,
            line: 1,
        };
        let line = self.questions.ask::<ShippingAddressRole>(question).await?;
        Ok(PlainText::new(line.text))
    }
}

#[tokio::test]
async fn an_ask_outside_a_run_or_of_an_undeclared_role_says_so() {
    let app = Application::builder("shop")
        .workflow(
            Workflow::new("desk")
                .agent::<Shipper>()
                .tool::<NoteAddress>(),
        )
        .channel::<AddressInbox>()
        .provide(Arc::new(Effects::default()))
        .build()
        .unwrap();
    let outside = app
        .tool::<ShipOrder>()
        .invoke(r#"{"order": "A-1", "asks": 1}"#)
        .await;
    assert_eq!(
        outside.content,
        "Tool error: role `shipping-address-channel` cannot be asked here: questions are asked by calls an agent's run makes, which can pause"
    );
    let undeclared = app.tool::<NoteAddress>().invoke(r#"{"text": "A-1"}"#).await;
    assert_eq!(
        undeclared.content,
        "Tool error: tool `note-address-tool` asks role `shipping-address-channel`, which it does not declare: add `asks = [ShippingAddressRole]` to its #[tool]"
    );
}
