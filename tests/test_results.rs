//! What a tool says about its results beyond their bound, through the facade: a result over the
//! tool's `result_ceiling` is refused with one sentence (true size, ceiling, the tool's hint) and
//! its payload reaches no context, journal, hook or trace; the ceiling is measured before the
//! bound, in both orders. A call that repeats an earlier one of the run gets one note appended
//! (by arguments and result, by arguments alone, or never), and a run resumed with another
//! `Application` on the same store (memory, SQLite, PostgreSQL) counts the calls before it.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use agboss::journal::{LoopEvent, LoopState};
use agboss::model::{ScriptedModel, ToolCall, Turn};
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore, Store};
use agboss::units::kilobytes;
use agboss::{Application, Resume, Workflow};
use fixtures::stores::each_store;

mod shipping;
use serde_json::json;
use shipping::{Order, ShipInbox, ShipOrder};

/// What every payload of the log tools is made of: it must appear nowhere once refused.
const PAYLOAD: &str = "SECRET-PAYLOAD ";

#[dto]
pub struct LogQuery {
    /// How many bytes of log text to return.
    pub bytes: u32,
}

fn logs(bytes: u32) -> PlainText {
    PlainText::new(PAYLOAD.repeat(bytes as usize / PAYLOAD.len() + 1)[..bytes as usize].to_owned())
}

/// Tails the logs: its ceiling (4 KB) is below its bound (8 KB).
#[tool(
    name = "tail-logs-tool",
    max_result_size = kilobytes(8),
    result_ceiling = kilobytes(4),
    ceiling_hint = "ask for at most 4,000 bytes"
)]
pub struct TailLogs;

impl ToolHandler for TailLogs {
    type Input = LogQuery;
    type Output = PlainText;

    async fn run(&self, input: LogQuery) -> Result<PlainText, ToolError> {
        Ok(logs(input.bytes))
    }
}

/// Dumps the logs: its ceiling (8 KB) is above its bound (4 KB).
#[tool(
    name = "dump-logs-tool",
    max_result_size = kilobytes(4),
    result_ceiling = kilobytes(8),
    ceiling_hint = "dump one service at a time"
)]
pub struct DumpLogs;

impl ToolHandler for DumpLogs {
    type Input = LogQuery;
    type Output = PlainText;

    async fn run(&self, input: LogQuery) -> Result<PlainText, ToolError> {
        Ok(logs(input.bytes))
    }
}

/// How many times the stamping tools answered.
#[derive(Default)]
pub struct Counter(AtomicU32);

impl Counter {
    fn next(&self) -> u32 {
        self.0.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// Looks an order up: the same order gives the same answer.
#[tool(name = "lookup-order-tool", read_only)]
pub struct LookupOrder;

impl ToolHandler for LookupOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("order {}: shipped", input.order)))
    }
}

/// Polls an order's status: each answer carries a new poll number (the default rule).
#[tool(name = "poll-order-tool", read_only)]
pub struct PollOrder {
    counter: Arc<Counter>,
}

impl ToolHandler for PollOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, input: Order) -> Result<PlainText, ToolError> {
        let poll = self.counter.next();
        Ok(PlainText::new(format!(
            "order {}: shipped (poll {poll})",
            input.order
        )))
    }
}

/// Renders an order's screen, stamped with a version: repeated by its arguments.
#[tool(name = "render-order-tool", read_only, repeated_when = arguments)]
pub struct RenderOrder {
    counter: Arc<Counter>,
}

impl ToolHandler for RenderOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, input: Order) -> Result<PlainText, ToolError> {
        let version = self.counter.next();
        Ok(PlainText::new(format!(
            "screen of {} @v{version}",
            input.order
        )))
    }
}

/// Pings the shop: calling it again is expected, never noted.
#[tool(name = "ping-shop-tool", read_only, repeated_when = never)]
pub struct PingShop;

impl ToolHandler for PingShop {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, _input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("pong"))
    }
}

/// Helps with the shop's orders and logs.
#[agent(
    name = "clerk",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [TailLogs, DumpLogs, LookupOrder, PollOrder, RenderOrder, PingShop, ShipOrder]
)]
pub struct Clerk;

fn app(store: Arc<dyn Store>, model: &ScriptedModel) -> Application {
    Application::builder("shop")
        .workflow(Workflow::new("shop").agent::<Clerk>())
        .channel::<ShipInbox>()
        .provide(Arc::new(Counter::default()))
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

/// The note a call repeating an earlier one with the same result gets.
fn same_result_note(tool: &str) -> String {
    format!(
        "\n\nNote: you called `{tool}` with these same arguments earlier in this run and got this same result; calling it again will not change it."
    )
}

/// The note a call of a tool repeated by its arguments gets.
fn same_arguments_note(tool: &str) -> String {
    format!(
        "\n\nNote: you called `{tool}` with these same arguments earlier in this run; calling it again will not get you further."
    )
}

/// What the model reads of a result of `bytes` bytes over a ceiling of `ceiling`.
fn refusal(bytes: &str, ceiling: &str, hint: &str) -> String {
    format!(
        "Tool error: the result is {bytes} bytes, over this tool's ceiling of {ceiling} bytes, so none of it is shown; to narrow the call: {hint}"
    )
}

/// Every tool result of `events`, in order: (content, is_error, truncated).
fn results(events: &[LoopEvent]) -> Vec<(String, bool, bool)> {
    let results = fixtures::journal::tool_results(events).into_iter();
    results
        .map(|r| (r.content, r.is_error, r.truncated))
        .collect()
}

fn calls(calls: &[(&str, &str)]) -> Turn {
    Turn::tool_calls(
        calls
            .iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                provider_id: Some(format!("call_{i}")),
                name: (*name).to_owned(),
                arguments: (*arguments).to_owned(),
            })
            .collect(),
    )
}

#[tokio::test]
async fn a_result_over_the_ceiling_is_refused_and_its_payload_goes_nowhere() {
    agboss::model::forbid_real_requests(true);
    let traced = fixtures::traced::traced();
    let expected = refusal("10,011", "4,096", "ask for at most 4,000 bytes");
    let model = ScriptedModel::new([
        Turn::call("tail-logs-tool", json!({"bytes": 10_000})),
        Turn::text("Too much; I will ask for less.").expect("the refusal, exactly", {
            let expected = expected.clone();
            move |request| match request.messages.last() {
                Some(agboss::model::Message::Tool {
                    content, is_error, ..
                }) if *content == expected && *is_error => Ok(()),
                other => Err(format!("{other:?}")),
            }
        }),
    ]);
    let store = Arc::new(MemoryStore::new());
    let app = app(store.clone(), &model);
    let hooked = Arc::new(Mutex::new(Vec::new()));
    let hook = hooked.clone();
    let outcome = app
        .run("shop", "show me the logs")
        .owner("ann")
        .on_tool_end(move |end| hook.lock().unwrap().push(end.content.to_owned()))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Too much; I will ask for less."));
    assert_eq!(model.remaining(), 0);

    let events = store.events(outcome.execution_id()).await.unwrap();
    assert_eq!(results(&events), [(expected.clone(), true, false)]);
    let journal = serde_json::to_string(&events).unwrap();
    assert!(!journal.contains(PAYLOAD.trim()), "the journal: {journal}");
    assert_eq!(*hooked.lock().unwrap(), [expected]);
    let context = format!("{:?}", model.requests());
    assert!(!context.contains(PAYLOAD.trim()), "the context: {context}");
    let traces = traced.text();
    assert!(
        traces.contains("tail-logs-tool"),
        "the call was traced: {traces}"
    );
    assert!(!traces.contains(PAYLOAD.trim()), "the traces: {traces}");
}

/// What the model reads of calls of `tool` asking for each of `sizes`, one per turn.
async fn read_of(tool: &str, sizes: &[u32]) -> Vec<(String, bool, bool)> {
    let mut turns: Vec<Turn> = sizes
        .iter()
        .map(|bytes| Turn::call(tool, json!({ "bytes": bytes })))
        .collect();
    turns.push(Turn::text("Done."));
    let model = ScriptedModel::new(turns);
    let store = Arc::new(MemoryStore::new());
    let outcome = app(store.clone(), &model)
        .run("shop", "logs")
        .owner("ann")
        .await
        .unwrap();
    results(&store.events(outcome.execution_id()).await.unwrap())
}

#[tokio::test]
async fn a_ceiling_below_the_bound_refuses_what_the_bound_would_have_cut() {
    agboss::model::forbid_real_requests(true);
    // Ceiling 4 KB, bound 8 KB: the bound never cuts a result the ceiling let through.
    let read = read_of("tail-logs-tool", &[3_000, 6_000]).await;
    assert_eq!(read[0].0, serde_json::to_string(&logs(3_000)).unwrap());
    assert_eq!((read[0].1, read[0].2), (false, false));
    let hint = "ask for at most 4,000 bytes";
    assert_eq!(read[1], (refusal("6,011", "4,096", hint), true, false));
}

#[tokio::test]
async fn a_ceiling_above_the_bound_lets_the_bound_cut_what_is_under_it() {
    agboss::model::forbid_real_requests(true);
    // Ceiling 8 KB, bound 4 KB: under the bound whole, between the two cut, over the ceiling
    // refused.
    let read = read_of("dump-logs-tool", &[3_000, 6_000, 9_000]).await;
    assert_eq!(read[0].0, serde_json::to_string(&logs(3_000)).unwrap());
    assert_eq!((read[0].1, read[0].2), (false, false));
    assert!(read[1].0.starts_with(r#"{"text":"SECRET-PAYLOAD "#));
    assert!(
        read[1]
            .0
            .contains("\n[result truncated: 6,011 bytes, the first ")
            && read[1].0.ends_with(" kept]"),
        "{}",
        read[1].0
    );
    assert_eq!((read[1].1, read[1].2), (false, true));
    let hint = "dump one service at a time";
    assert_eq!(read[2], (refusal("9,011", "8,192", hint), true, false));
}

#[tokio::test]
async fn test_tool_invoke_reads_the_refusal_and_run_returns_the_whole_output() {
    let tail = agboss::testing::test_tool::<TailLogs>();
    let outcome = tail.invoke(r#"{"bytes": 5000}"#).await;
    assert_eq!(
        outcome.content,
        refusal("5,011", "4,096", "ask for at most 4,000 bytes")
    );
    assert_eq!(outcome.result_bytes, 5_011);
    assert!(!outcome.is_ok());
    let run = tail.run(LogQuery { bytes: 5_000 }).await.unwrap();
    assert_eq!(run.output.text.len(), 5_000);
}

#[tokio::test]
async fn a_call_with_the_same_arguments_and_result_gets_the_note_and_others_do_not() {
    agboss::model::forbid_real_requests(true);
    let model = ScriptedModel::new([
        calls(&[("lookup-order-tool", r#"{"order": "A-1"}"#)]),
        // The same arguments, written with other whitespace.
        calls(&[("lookup-order-tool", r#"{ "order":"A-1" }"#)]),
        calls(&[("lookup-order-tool", r#"{"order": "B-2"}"#)]),
        // The same arguments and a new result each time: progress, not a loop.
        calls(&[("poll-order-tool", r#"{"order": "A-1"}"#)]),
        calls(&[("poll-order-tool", r#"{"order": "A-1"}"#)]),
        // A stamped result, compared by its arguments alone.
        calls(&[("render-order-tool", r#"{"order": "A-1"}"#)]),
        calls(&[("render-order-tool", r#"{"order": "A-1"}"#)]),
        // Never noted.
        calls(&[("ping-shop-tool", r#"{"order": "A-1"}"#)]),
        calls(&[("ping-shop-tool", r#"{"order": "A-1"}"#)]),
        // Two alike in one answer: the one journaled second gets the note.
        calls(&[
            ("lookup-order-tool", r#"{"order": "C-3"}"#),
            ("lookup-order-tool", r#"{"order": "C-3"}"#),
        ]),
        Turn::text("Done."),
    ]);
    let store = Arc::new(MemoryStore::new());
    let outcome = app(store.clone(), &model)
        .run("shop", "where are my orders")
        .owner("ann")
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Done."));
    let read: Vec<String> = results(&store.events(outcome.execution_id()).await.unwrap())
        .into_iter()
        .map(|(content, ..)| content)
        .collect();
    let lookup = |order: &str| format!(r#"{{"text":"order {order}: shipped"}}"#);
    let noted = same_result_note("lookup-order-tool");
    assert_eq!(read[0], lookup("A-1"));
    assert_eq!(read[1], format!("{}{noted}", lookup("A-1")));
    assert_eq!(read[2], lookup("B-2"));
    assert_eq!(read[3], r#"{"text":"order A-1: shipped (poll 1)"}"#);
    assert_eq!(read[4], r#"{"text":"order A-1: shipped (poll 2)"}"#);
    assert_eq!(read[5], r#"{"text":"screen of A-1 @v3"}"#);
    let by_arguments = same_arguments_note("render-order-tool");
    assert_eq!(
        read[6],
        format!(r#"{{"text":"screen of A-1 @v4"}}{by_arguments}"#)
    );
    assert_eq!(read[7], r#"{"text":"pong"}"#);
    assert_eq!(read[8], r#"{"text":"pong"}"#);
    let mut pair = [read[9].clone(), read[10].clone()];
    pair.sort();
    assert_eq!(pair, [lookup("C-3"), format!("{}{noted}", lookup("C-3"))]);
    assert_eq!(read.len(), 11);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_resumed_by_another_application_counts_the_calls_before_its_pause() {
    agboss::model::forbid_real_requests(true);
    let noted = format!(
        r#"{{"text":"order A-1: shipped"}}{}"#,
        same_result_note("lookup-order-tool")
    );
    for (name, store, _keep) in each_store().await {
        // The first instance looks the order up, then waits for a person to approve shipping.
        let first = ScriptedModel::new([calls(&[
            ("lookup-order-tool", r#"{"order": "A-1"}"#),
            ("ship-order-tool", r#"{"order": "A-1"}"#),
        ])]);
        let paused = app(store.clone(), &first)
            .run("shop", "ship A-1")
            .owner("ann")
            .await
            .unwrap();
        let paused = paused.paused().expect("shipping waits for ann");
        let execution_id = paused.execution_id.clone();

        // Another instance, on the same store, takes the answer; the model looks the order up
        // again, and reads the note.
        let second = ScriptedModel::new([
            calls(&[("lookup-order-tool", r#"{"order": "A-1"}"#)]),
            Turn::text("Shipped.").expect_tool_result(&noted),
        ]);
        let approve = ToolCallApprovalDecision::<Order>::approve();
        let resume = Resume::decision(&paused.pending[0].pause_id, approve).answered_by("ann");
        let resumed = app(store.clone(), &second).resume(resume).await;
        let resumed = resumed.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(resumed.text(), Some("Shipped."), "{name}");
        assert_eq!(second.remaining(), 0, "{name}");

        // The journal holds the note, and a fold of it counts the same calls.
        let events = store.events(&execution_id).await.unwrap();
        let read = results(&events);
        assert_eq!(read.len(), 3, "{name}: {read:?}");
        assert_eq!(read[2].0, noted, "{name}");
        let replayed = LoopState::from_events(&events).unwrap();
        assert_eq!(
            replayed.repeats.len(),
            2,
            "{name}: A-1's lookup and the shipping"
        );
    }
}
