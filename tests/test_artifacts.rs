//! Artifacts through the facade, on memory, SQLite and PostgreSQL: a result over its tool's
//! `artifact_above` is kept in the store and the model reads its reference; a tool that `wants`
//! that kind gets the data; an unknown, foreign or other-kind reference is refused with the
//! live ones listed and the tool does not run; the ceiling comes first and the bound last; the
//! artifacts survive a resume by another application on the same store, and go when the run
//! ends (answered, failed, cancelled) unless kept; assembly refuses a `wants` nobody makes;
//! describe shows them.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use agboss::journal::LoopEvent;
use agboss::model::{
    ChatFuture, ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ToolCall,
};
use agboss::prelude::*;
use agboss::run::ArtifactRetention;
use agboss::store::{MemoryStore, PostgresStore, SqliteStore, Store};
use agboss::tool::Wanted;
use agboss::units::{bytes, kilobytes};
use agboss::{Application, Resume, Workflow};
use fixtures::stores::each_store;
use fixtures::text::grouped;

mod shipping;
use shipping::{Order, ShipInbox, ShipOrder};

#[dto]
pub struct RowsQuery {
    /// How many rows.
    pub rows: u32,
}

#[dto]
pub struct Row {
    pub id: u32,
    pub name: String,
}

#[dto]
pub struct Rows {
    pub rows: Vec<Row>,
}

fn rows(n: u32) -> Rows {
    Rows {
        rows: (1..=n)
            .map(|id| Row {
                id,
                name: format!("row-{id}"),
            })
            .collect(),
    }
}

/// Fetches rows: more than 64 bytes of them are kept aside.
#[tool(name = "get-rows-tool", read_only, result_kind = "dataset/rows", artifact_above = bytes(64))]
pub struct GetRows;

impl ToolHandler for GetRows {
    type Input = RowsQuery;
    type Output = Rows;

    async fn run(&self, input: RowsQuery) -> Result<Rows, ToolError> {
        Ok(rows(input.rows))
    }
}

/// Renders a report: always kept aside, as another kind.
#[tool(name = "get-report-tool", read_only, result_kind = "report/pdf", artifact_above = bytes(1))]
pub struct GetReport;

impl ToolHandler for GetReport {
    type Input = RowsQuery;
    type Output = PlainText;

    async fn run(&self, input: RowsQuery) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("report of {} rows", input.rows)))
    }
}

/// Rows under a ceiling of 1 KB, kept aside over 64 bytes, bounded to 32 bytes.
#[tool(
    name = "capped-rows-tool",
    read_only,
    result_kind = "dataset/rows",
    artifact_above = bytes(64),
    result_ceiling = kilobytes(1),
    ceiling_hint = "ask for fewer rows",
    max_result_size = bytes(32)
)]
pub struct CappedRows;

impl ToolHandler for CappedRows {
    type Input = RowsQuery;
    type Output = Rows;

    async fn run(&self, input: RowsQuery) -> Result<Rows, ToolError> {
        Ok(rows(input.rows))
    }
}

/// Rows kept aside over its bound (200 bytes), which would otherwise cut them.
#[tool(name = "bounded-rows-tool", read_only, result_kind = "dataset/rows", max_result_size = bytes(200))]
pub struct BoundedRows;

impl ToolHandler for BoundedRows {
    type Input = RowsQuery;
    type Output = Rows;

    async fn run(&self, input: RowsQuery) -> Result<Rows, ToolError> {
        Ok(rows(input.rows))
    }
}

/// How many charts were drawn.
#[derive(Default)]
pub struct Drawn(AtomicU32);

#[dto]
pub struct ChartInput {
    /// The rows, by reference.
    pub dataset: Wanted<Rows>,
    /// The chart's title.
    pub title: String,
}

/// Charts a dataset of rows.
#[tool(name = "chart-rows-tool", read_only, wants(dataset = "dataset/rows"))]
pub struct ChartRows {
    drawn: Arc<Drawn>,
}

impl ToolHandler for ChartRows {
    type Input = ChartInput;
    type Output = PlainText;

    async fn run(&self, input: ChartInput) -> Result<PlainText, ToolError> {
        self.drawn.0.fetch_add(1, Ordering::SeqCst);
        let data = input.dataset.data()?;
        let last = data.rows.last().map_or("none", |r| r.name.as_str());
        Ok(PlainText::new(format!(
            "{}: {} rows, the last {last} ({} bytes, {})",
            input.title,
            data.rows.len(),
            input.dataset.size().unwrap_or(0),
            input.dataset.kind().unwrap_or("?"),
        )))
    }
}

/// Charts the shop's data.
#[agent(
    name = "analyst",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [GetRows, GetReport, CappedRows, BoundedRows, ChartRows, ShipOrder]
)]
pub struct Analyst;

/// Charts, with nothing that makes rows.
#[agent(
    name = "lonely-charter",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [ChartRows, GetReport]
)]
pub struct LonelyCharter;

/// A model that answers with each step in turn; a step's calls may name `{0}`, `{1}`.. in their
/// arguments: the references the conversation's tool results hold, in order.
#[derive(Clone, Default)]
struct Relay {
    steps: Arc<Mutex<VecDeque<Step>>>,
}

/// One answer: the calls it asks for (none: the final text).
type Step = Vec<(&'static str, String)>;

impl Relay {
    fn new(steps: Vec<Step>) -> Relay {
        Relay {
            steps: Arc::new(Mutex::new(steps.into())),
        }
    }
}

/// Every `art_` reference the tool results of `request` hold, in order, each once.
fn references(request: &ChatRequest) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for message in &request.messages {
        let Message::Tool { content, .. } = message else {
            continue;
        };
        for (at, _) in content.match_indices("art_") {
            let reference: String = content[at..].chars().take(36).collect();
            if reference.len() == 36 && !found.contains(&reference) {
                found.push(reference);
            }
        }
    }
    found
}

impl ChatModel for Relay {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _signal: &'a Signal) -> ChatFuture<'a> {
        let step = self.steps.lock().unwrap().pop_front();
        let known = references(request);
        let response = match step {
            Some(calls) if !calls.is_empty() => ChatResponse {
                tool_calls: calls
                    .into_iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| {
                        let mut arguments = arguments;
                        for (n, reference) in known.iter().enumerate() {
                            arguments = arguments.replace(&format!("{{{n}}}"), reference);
                        }
                        ToolCall {
                            provider_id: Some(format!("call_{i}")),
                            name: name.to_owned(),
                            arguments,
                        }
                    })
                    .collect(),
                finish: FinishReason::ToolCalls,
                ..ChatResponse::default()
            },
            _ => ChatResponse {
                text: Some("Done.".into()),
                finish: FinishReason::Stop,
                ..ChatResponse::default()
            },
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

use agboss::context::Signal;

fn app(
    store: Arc<dyn Store>,
    model: &Relay,
    drawn: &Arc<Drawn>,
    retention: ArtifactRetention,
) -> Application {
    Application::builder("charts")
        .workflow(Workflow::new("charts").agent::<Analyst>())
        .channel::<ShipInbox>()
        .provide(drawn.clone())
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .artifact_retention(retention)
        .build()
        .unwrap()
}

/// Every tool result of `events`, in order: (content, is_error).
fn results(events: &[LoopEvent]) -> Vec<(String, bool)> {
    let results = fixtures::journal::tool_results(events).into_iter();
    results.map(|r| (r.content, r.is_error)).collect()
}

/// The reference a minted text names, checking the whole text.
fn minted(content: &str, kind: &str, size: usize) -> String {
    let reference: String = content
        .strip_prefix("artifact ")
        .unwrap_or_else(|| panic!("not an artifact: {content}"))
        .chars()
        .take(36)
        .collect();
    assert!(reference.starts_with("art_"), "{content}");
    assert!(
        reference[4..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{content}"
    );
    let size = grouped(size as u64);
    assert_eq!(
        content,
        format!(
            "artifact {reference} ({kind}, {size} bytes): the result is kept out of the conversation; pass \"{reference}\" to a tool that wants {kind}"
        )
    );
    reference
}

fn json_len(value: &Rows) -> usize {
    serde_json::to_string(value).unwrap().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_over_its_size_is_kept_aside_and_a_tool_that_wants_it_gets_the_data() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        for retention in [ArtifactRetention::UntilRunEnds, ArtifactRetention::Kept] {
            let drawn = Arc::new(Drawn::default());
            let model = Relay::new(vec![
                vec![("get-rows-tool", r#"{"rows": 1}"#.into())],
                vec![("get-rows-tool", r#"{"rows": 40}"#.into())],
                vec![(
                    "chart-rows-tool",
                    r#"{"dataset": "{0}", "title": "Sales"}"#.into(),
                )],
            ]);
            let done = app(store.clone(), &model, &drawn, retention)
                .run("charts", "chart the rows")
                .owner("ann")
                .await
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(done.text(), Some("Done."), "{name}");
            let execution_id = done.execution_id().to_owned();
            let events = store.events(&execution_id).await.unwrap();
            let read = results(&events);
            // One row is 35 bytes: read whole; 40 rows are kept aside.
            assert_eq!(
                read[0],
                (r#"{"rows":[{"id":1,"name":"row-1"}]}"#.into(), false)
            );
            let size = json_len(&rows(40));
            let reference = minted(&read[1].0, "dataset/rows", size);
            assert_eq!(
                read[2],
                (
                    format!(
                        r#"{{"text":"Sales: 40 rows, the last row-40 ({size} bytes, dataset/rows)"}}"#
                    ),
                    false
                ),
                "{name}"
            );
            assert_eq!(drawn.0.load(Ordering::SeqCst), 1);
            // The rows are in no event: only their reference.
            let journal = serde_json::to_string(&events).unwrap();
            assert!(
                !journal.contains("row-39"),
                "{name}: the rows were journaled"
            );
            // Gone with the run's end, unless kept.
            let live = store
                .artifacts()
                .list(&execution_id, "dataset/rows")
                .await
                .unwrap();
            match retention {
                ArtifactRetention::Kept => {
                    assert_eq!(live.len(), 1, "{name}");
                    assert_eq!(live[0].reference, reference);
                    assert_eq!(live[0].size, size as u64);
                    assert_eq!(live[0].tool, "get-rows-tool");
                    let kept = store
                        .artifacts()
                        .get(&execution_id, &reference)
                        .await
                        .unwrap();
                    assert_eq!(
                        kept.unwrap().data,
                        serde_json::to_string(&rows(40)).unwrap()
                    );
                    assert_eq!(store.artifacts().delete(&execution_id).await.unwrap(), 1);
                }
                _ => assert_eq!(live, [], "{name}: deleted when the run ended"),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_foreign_or_other_kind_reference_is_refused_with_the_live_ones() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        let drawn = Arc::new(Drawn::default());
        // An earlier run's artifact, kept: another execution's, so foreign to the next run.
        let earlier = Relay::new(vec![vec![("get-rows-tool", r#"{"rows": 9}"#.into())]]);
        let kept = app(store.clone(), &earlier, &drawn, ArtifactRetention::Kept)
            .run("charts", "rows")
            .owner("ann")
            .await
            .unwrap();
        let events = store.events(kept.execution_id()).await.unwrap();
        let foreign = minted(&results(&events)[0].0, "dataset/rows", json_len(&rows(9)));

        let chart = |reference: &str| {
            (
                "chart-rows-tool",
                format!(r#"{{"dataset": "{reference}", "title": "T"}}"#),
            )
        };
        // One call a turn: results are journaled as calls end.
        let model = Relay::new(vec![
            vec![("get-rows-tool", r#"{"rows": 5}"#.into())],
            vec![("get-report-tool", r#"{"rows": 5}"#.into())],
            vec![chart("art_00000000000000000000000000000000")],
            vec![chart("{1}")],
            vec![chart(&foreign)],
            vec![chart("not a reference")],
        ]);
        let done = app(
            store.clone(),
            &model,
            &drawn,
            ArtifactRetention::UntilRunEnds,
        )
        .run("charts", "chart")
        .owner("ann")
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let read = results(&store.events(done.execution_id()).await.unwrap());
        let rows_ref = minted(&read[0].0, "dataset/rows", json_len(&rows(5)));
        let report = minted(&read[1].0, "report/pdf", 27);
        let live = format!(
            "{rows_ref} (from get-rows-tool, {} bytes)",
            json_len(&rows(5))
        );
        let refusal = |why: &str| {
            (
                format!(
                    "Tool error: argument `dataset` wants an artifact of kind `dataset/rows`, and {why}, so the tool did not run; the live references of kind `dataset/rows` in this run: {live}"
                ),
                true,
            )
        };
        assert_eq!(
            read[2],
            refusal("`art_00000000000000000000000000000000` is no live artifact of this run"),
            "{name}"
        );
        assert_eq!(
            read[3],
            refusal(&format!("`{report}` is an artifact of kind `report/pdf`")),
            "{name}"
        );
        assert_eq!(
            read[4],
            refusal(&format!("`{foreign}` is no live artifact of this run")),
            "{name}"
        );
        assert_eq!(
            read[5],
            refusal("`not a reference` is no live artifact of this run"),
            "{name}"
        );
        assert_eq!(
            drawn.0.load(Ordering::SeqCst),
            0,
            "{name}: the tool never ran"
        );
    }
}

#[tokio::test]
async fn the_ceiling_refuses_first_the_artifact_size_comes_next_and_the_bound_last() {
    agboss::model::forbid_real_requests(true);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let drawn = Arc::new(Drawn::default());
    // One call a turn: results are journaled as calls end.
    let model = Relay::new(vec![
        // capped-rows: ceiling 1 KB, artifact above 64 bytes, bound 32 bytes.
        vec![("capped-rows-tool", r#"{"rows": 60}"#.into())],
        vec![("capped-rows-tool", r#"{"rows": 10}"#.into())],
        vec![("capped-rows-tool", r#"{"rows": 0}"#.into())],
        vec![("capped-rows-tool", r#"{"rows": 1}"#.into())],
        // bounded-rows: no artifact size, bound 200 bytes: what the bound would cut is kept.
        vec![("bounded-rows-tool", r#"{"rows": 4}"#.into())],
        vec![("bounded-rows-tool", r#"{"rows": 10}"#.into())],
    ]);
    let done = app(store.clone(), &model, &drawn, ArtifactRetention::Kept)
        .run("charts", "rows")
        .owner("ann")
        .await
        .unwrap();
    let events = store.events(done.execution_id()).await.unwrap();
    let read = results(&events);
    // Over the ceiling: refused, not kept. The refusal is the framework's own sentence: the
    // bound never cuts it, so the model always reads how to narrow the call.
    let sixty = grouped(json_len(&rows(60)) as u64);
    let refused = format!(
        "Tool error: the result is {sixty} bytes, over this tool's ceiling of 1,024 bytes, so none of it is shown; to narrow the call: ask for fewer rows"
    );
    assert_eq!(read[0], (refused, true));
    // Over the artifact size: kept, and its reference, longer than the bound, is not cut.
    minted(&read[1].0, "dataset/rows", json_len(&rows(10)));
    assert_eq!(read[2], (r#"{"rows":[]}"#.into(), false));
    // 35 bytes: under the artifact size, over the bound: cut.
    let truncated = events.iter().any(|e| {
        matches!(e, LoopEvent::ToolFinished { truncated: true, content, .. } if content.starts_with(r#"{"rows":[{"id":1"#))
    });
    assert!(truncated, "{:?}", read[3]);
    assert_eq!(
        read[4],
        (serde_json::to_string(&rows(4)).unwrap(), false),
        "under the bound: read whole"
    );
    minted(&read[5].0, "dataset/rows", json_len(&rows(10)));
    let kept = store
        .artifacts()
        .list(done.execution_id(), "dataset/rows")
        .await
        .unwrap();
    assert_eq!(kept.len(), 2, "only those two were kept: {kept:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn artifacts_survive_a_resume_by_another_application_on_the_same_store() {
    agboss::model::forbid_real_requests(true);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("agboss.db");
    let database = pg_server::fresh_database();
    type Open =
        Box<dyn Fn() -> std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn Store>>>>>;
    let sqlite: Open = Box::new(move || {
        let path = path.clone();
        Box::pin(async move { Arc::new(SqliteStore::open(&path).await.unwrap()) as Arc<dyn Store> })
    });
    let url = database.url().to_owned();
    let postgres: Open = Box::new(move || {
        let url = url.clone();
        Box::pin(
            async move { Arc::new(PostgresStore::connect(&url).await.unwrap()) as Arc<dyn Store> },
        )
    });
    for (name, open) in [("sqlite", sqlite), ("postgres", postgres)] {
        // The first application keeps the rows aside, then waits for a person to approve.
        let drawn = Arc::new(Drawn::default());
        let first = Relay::new(vec![vec![
            ("get-rows-tool", r#"{"rows": 12}"#.into()),
            ("ship-order-tool", r#"{"order": "A-1"}"#.into()),
        ]]);
        let store = open().await;
        let paused = app(
            store.clone(),
            &first,
            &drawn,
            ArtifactRetention::UntilRunEnds,
        )
        .run("charts", "rows, then ship")
        .owner("ann")
        .await
        .unwrap();
        let paused = paused.paused().expect("shipping waits for ann").clone();
        drop(store);

        // Another application, on the store opened again, takes the answer; the model charts
        // the rows kept before the pause.
        let store = open().await;
        let second = Relay::new(vec![vec![(
            "chart-rows-tool",
            r#"{"dataset": "{0}", "title": "Later"}"#.into(),
        )]]);
        let approve = ToolCallApprovalDecision::<Order>::approve();
        let resume = Resume::decision(&paused.pending[0].pause_id, approve).answered_by("ann");
        let done = app(
            store.clone(),
            &second,
            &drawn,
            ArtifactRetention::UntilRunEnds,
        )
        .resume(resume)
        .await
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(done.text(), Some("Done."), "{name}");
        let read = results(&store.events(&paused.execution_id).await.unwrap());
        let size = json_len(&rows(12));
        assert_eq!(
            read.last().unwrap().0,
            format!(r#"{{"text":"Later: 12 rows, the last row-12 ({size} bytes, dataset/rows)"}}"#),
            "{name}"
        );
        assert_eq!(
            store
                .artifacts()
                .list(&paused.execution_id, "dataset/rows")
                .await
                .unwrap(),
            [],
            "{name}: deleted once the run ended"
        );
    }
}

#[test]
fn an_agent_whose_tool_wants_a_kind_nobody_makes_fails_assembly() {
    let Err(error) = Application::builder("lonely")
        .workflow(Workflow::new("charts").agent::<LonelyCharter>())
        .provide(Arc::new(Drawn::default()))
        .build()
    else {
        panic!("assembled a tool that wants what nothing makes");
    };
    let text = error.to_string();
    assert!(
        text.contains("[agent.wants-unproduced] agent `lonely-charter` (workflow `charts`) has tool `chart-rows-tool`, whose argument `dataset` wants an artifact of kind `dataset/rows`, and no tool of this application makes one: give the tool that makes it `result_kind = \"dataset/rows\"` (kinds are matched exactly; the kinds its tools make: `report/pdf`)"),
        "{text}"
    );
}

#[test]
fn describe_shows_result_kinds_their_sizes_and_wants() {
    let app = app(
        Arc::new(MemoryStore::new()),
        &Relay::default(),
        &Arc::new(Drawn::default()),
        ArtifactRetention::UntilRunEnds,
    );
    let text = agboss::describe::text(&app);
    assert!(
        text.contains("get-rows-tool (read, local, result kind dataset/rows above 64 bytes)"),
        "{text}"
    );
    assert!(
        text.contains("result kind dataset/rows above its bound"),
        "{text}"
    );
    assert!(text.contains("wants dataset: dataset/rows"), "{text}");
    let json = agboss::describe::json(&app);
    let tools = &json["schemas"]["tools"];
    assert_eq!(
        tools["get-rows-tool"]["resultKind"],
        serde_json::json!({"kind": "dataset/rows", "artifactAbove": 64})
    );
    assert_eq!(
        tools["bounded-rows-tool"]["resultKind"],
        serde_json::json!({"kind": "dataset/rows", "artifactAbove": null})
    );
    assert_eq!(
        tools["chart-rows-tool"]["wants"],
        serde_json::json!({"dataset": "dataset/rows"})
    );
    assert!(tools["ship-order-tool"].get("wants").is_none());
}

#[tokio::test]
async fn cancelling_a_paused_run_deletes_its_artifacts() {
    agboss::model::forbid_real_requests(true);
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let drawn = Arc::new(Drawn::default());
    let model = Relay::new(vec![vec![
        ("get-rows-tool", r#"{"rows": 12}"#.into()),
        ("ship-order-tool", r#"{"order": "A-1"}"#.into()),
    ]]);
    let app = app(
        store.clone(),
        &model,
        &drawn,
        ArtifactRetention::UntilRunEnds,
    );
    let paused = app
        .run("charts", "rows, then ship")
        .owner("ann")
        .await
        .unwrap();
    let execution_id = paused.paused().expect("waits for ann").execution_id.clone();
    let live = store
        .artifacts()
        .list(&execution_id, "dataset/rows")
        .await
        .unwrap();
    assert_eq!(live.len(), 1, "kept while the run waits");
    app.cancel(&execution_id, "the user left").await.unwrap();
    let live = store
        .artifacts()
        .list(&execution_id, "dataset/rows")
        .await
        .unwrap();
    assert_eq!(live, [], "deleted with the cancelled run");
}
