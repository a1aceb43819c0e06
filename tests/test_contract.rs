//! The tool call contract, row by row, through `test_tool` and JSON arguments as a model sends
//! them: the exact texts the model reads.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::tool::ToolFailure;
use agboss::units::{millis, seconds};
use fixtures::calls::invoking;

/// Counts how often a tool's `run` started.
#[derive(Default)]
struct Runs(AtomicUsize);

impl Runs {
    fn count(&self) -> usize {
        self.0.load(Ordering::SeqCst)
    }
}

#[dto]
pub struct Search {
    /// words to search for
    pub query: String,
    /// how many items at most
    #[schemars(range(min = 1))]
    pub limit: u32,
}

#[dto]
#[derive(Debug, PartialEq)]
pub struct Items {
    pub items: Vec<String>,
}

#[tool(name = "search-tool", description = "Searches", timeout = seconds(10))]
pub struct SearchTool {
    runs: Arc<Runs>,
}

impl ToolHandler for SearchTool {
    type Input = Search;
    type Output = Items;

    async fn run(&self, input: Search) -> Result<Items, ToolError> {
        self.runs.0.fetch_add(1, Ordering::SeqCst);
        Ok(Items {
            items: (0..input.limit)
                .map(|i| format!("{}-{i}", input.query))
                .collect(),
        })
    }
}

fn search() -> (agboss::testing::TestTool<SearchTool>, Arc<Runs>) {
    let runs = Arc::new(Runs::default());
    (test_tool::<SearchTool>().with(runs.clone()), runs)
}

#[tokio::test]
async fn a_valid_call_returns_the_output_as_json() {
    let (tool, runs) = search();
    let outcome = tool.invoke(r#"{"query": "login", "limit": 2}"#).await;
    assert_eq!(outcome.content, r#"{"items":["login-0","login-1"]}"#);
    assert!(!outcome.is_result_truncated);
    assert_eq!(runs.count(), 1);
}

#[tokio::test]
async fn a_tool_without_a_bound_is_read_up_to_128_kb() {
    let (tool, _) = search();
    let outcome = tool.invoke(r#"{"query": "login", "limit": 20000}"#).await;
    assert!(outcome.is_result_truncated);
    assert!(outcome.is_ok(), "cut, not an error");
    // No whitespace to cut at: the cut falls on the bound, 128 × 1,024 bytes.
    let (kept, marker) = outcome.content.split_at(131_072);
    assert!(kept.starts_with(r#"{"items":["login-0","login-1","#));
    assert_eq!(
        marker,
        "\n[result truncated: 268,901 bytes, the first 131,072 kept]"
    );
}

#[tokio::test]
async fn invalid_input_never_reaches_run() {
    let (tool, runs) = search();
    let cases = [
        (
            r#"{"query": "a", "limit": "#,
            "Tool error: invalid input: malformed JSON: EOF while parsing a value at line 1 column 24",
        ),
        (
            r#"{"query": 7, "limit": 1}"#,
            "Tool error: invalid input: query: expected string, got integer 7",
        ),
        (
            r#"{"limit": 1}"#,
            "Tool error: invalid input: query: is required",
        ),
        (
            r#"{"query": "a", "limit": 1, "sort": "new"}"#,
            "Tool error: invalid input: sort: is not a field here (the fields are query, limit)",
        ),
        (
            r#"{"query": "a", "limit": 0}"#,
            "Tool error: invalid input: limit: must be at least 1, got 0",
        ),
        (
            r#"["a", 1]"#,
            "Tool error: invalid input: expected object, got an array",
        ),
        (
            "",
            "Tool error: invalid input: query: is required; limit: is required",
        ),
    ];
    for (arguments, expected) in cases {
        let outcome = tool.invoke(arguments).await;
        assert_eq!(outcome.content, expected, "arguments {arguments:?}");
        assert!(matches!(
            outcome.failure,
            Some(ToolFailure::InvalidInput(_))
        ));
    }
    assert_eq!(runs.count(), 0);
}

#[dto]
pub struct Job {
    #[schemars(url)]
    pub url: String,
}

#[dto]
pub struct Jobs {
    pub jobs: Vec<Job>,
}

#[dto]
pub struct Accepted {
    pub accepted: usize,
}

#[tool(name = "post-jobs-tool", description = "Posts jobs")]
pub struct PostJobs;

impl ToolHandler for PostJobs {
    type Input = Jobs;
    type Output = Accepted;

    async fn run(&self, input: Jobs) -> Result<Accepted, ToolError> {
        Ok(Accepted {
            accepted: input.jobs.len(),
        })
    }
}

#[tokio::test]
async fn the_path_of_a_nested_problem_reads_jobs_2_url() {
    let outcome = test_tool::<PostJobs>()
        .invoke(r#"{"jobs": [{"url": "https://a.example"}, {"url": "https://b.example"}, {"url": "b.example/x"}]}"#)
        .await;
    assert_eq!(
        outcome.content,
        r#"Tool error: invalid input: jobs[2].url: "b.example/x" is not a valid uri"#
    );
}

#[tokio::test]
async fn a_typed_input_is_validated_like_json() {
    let (tool, runs) = search();
    let failure = tool
        .run(Search {
            query: "a".into(),
            limit: 0,
        })
        .await
        .unwrap_err();
    assert_eq!(
        failure.to_string(),
        "invalid input: limit: must be at least 1, got 0"
    );
    assert_eq!(runs.count(), 0);
}

#[tokio::test]
async fn a_cancelled_execution_starts_no_call() {
    let (tool, runs) = search();
    tool.execution().cancel("the user left");
    let outcome = tool.invoke(r#"{"query": "a", "limit": 1}"#).await;
    assert_eq!(outcome.content, "Tool error: the user left");
    assert!(matches!(outcome.failure, Some(ToolFailure::Aborted(_))));
    assert_eq!(runs.count(), 0);
}

#[dto]
pub struct Nothing {}

#[dto]
#[derive(Debug)]
pub struct Done {
    pub done: bool,
}

/// Waits on the application's clock, and shows its call's signal to the test.
#[tool(name = "slow-tool", description = "Takes a minute", timeout = seconds(10))]
pub struct Slow {
    clock: Clock,
    execution: ExecutionContext,
    seen: Arc<std::sync::Mutex<Option<agboss::context::Signal>>>,
}

impl ToolHandler for Slow {
    type Input = Nothing;
    type Output = Done;

    async fn run(&self, _: Nothing) -> Result<Done, ToolError> {
        *self.seen.lock().unwrap() = Some(self.execution.signal().clone());
        self.clock.sleep(Duration::from_secs(60)).await;
        Ok(Done { done: true })
    }
}

type Seen = Arc<std::sync::Mutex<Option<agboss::context::Signal>>>;

#[tokio::test]
async fn a_call_times_out_on_the_application_clock() {
    let seen: Seen = Arc::default();
    let tool = Arc::new(test_tool::<Slow>().with(seen.clone()));
    let call = invoking(&tool, "{}");
    // The tool's own sleep and the call's timeout.
    tool.clock().wait_for_timers(2).await;
    tool.clock().advance(Duration::from_secs(9));
    tokio::task::yield_now().await;
    assert!(!call.is_finished(), "not yet: 9 s of 10");
    tool.clock().advance(Duration::from_secs(1));
    let outcome = call.await.unwrap();
    assert_eq!(outcome.content, "Tool error: timed out after 10 s");
    // The call's signal fired too, so whatever the tool handed it stops.
    let signal = seen.lock().unwrap().clone().unwrap();
    assert_eq!(signal.reason().unwrap().message(), "timed out after 10 s");
    // The execution goes on.
    assert!(!tool.execution().signal().is_cancelled());
}

#[tokio::test]
async fn the_timeout_message_keeps_the_declared_unit() {
    let seen: Seen = Arc::default();
    let tool = Arc::new(test_tool::<Slow>().with(seen).timeout(millis(500)));
    let call = tokio::spawn({
        let tool = tool.clone();
        async move { tool.run(Nothing {}).await }
    });
    tool.clock().wait_for_timers(2).await;
    tool.clock().advance(Duration::from_millis(500));
    let failure = call.await.unwrap().unwrap_err();
    assert!(matches!(failure, ToolFailure::TimedOut(_)));
    assert_eq!(failure.to_string(), "timed out after 500 ms");
}

#[tokio::test]
async fn cancelling_aborts_a_running_call_with_the_reason() {
    let seen: Seen = Arc::default();
    let tool = Arc::new(test_tool::<Slow>().with(seen.clone()));
    let call = invoking(&tool, "{}");
    tool.clock().wait_for_timers(2).await;
    tool.execution().cancel("stopped by the operator");
    let outcome = call.await.unwrap();
    assert_eq!(outcome.content, "Tool error: stopped by the operator");
    let signal = seen.lock().unwrap().clone().unwrap();
    assert!(signal.is_cancelled());
    // Nothing is left waiting on the clock.
    assert_eq!(tool.clock().pending_timers(), 0);
}

#[dto]
#[derive(Debug)]
pub struct Id {
    pub id: u32,
}

#[tool(name = "fragile-tool", description = "Fails in the ways tools fail")]
pub struct Fragile;

impl ToolHandler for Fragile {
    type Input = Id;
    type Output = Id;

    async fn run(&self, input: Id) -> Result<Id, ToolError> {
        match input.id {
            0 => Err(ToolError::new("no such issue")),
            1 => Err(std::io::Error::other("connection reset").into()),
            2 => panic!("index out of bounds"),
            id => Ok(Id { id }),
        }
    }
}

#[tokio::test]
async fn errors_and_panics_become_tool_errors() {
    let tool = test_tool::<Fragile>();
    assert_eq!(
        tool.invoke(r#"{"id": 0}"#).await.content,
        "Tool error: no such issue"
    );
    assert_eq!(
        tool.invoke(r#"{"id": 1}"#).await.content,
        "Tool error: connection reset"
    );
    assert_eq!(
        tool.invoke(r#"{"id": 2}"#).await.content,
        "Tool error: the tool panicked: index out of bounds"
    );
    assert_eq!(tool.invoke(r#"{"id": 3}"#).await.content, r#"{"id":3}"#);
}

#[tokio::test]
async fn test_tool_returns_the_failure_as_raised() {
    let failure = test_tool::<Fragile>().run(Id { id: 1 }).await.unwrap_err();
    let raised = failure.as_raised().expect("raised by the tool");
    assert_eq!(raised.message(), "connection reset");
    let io = raised.source().unwrap().downcast_ref::<std::io::Error>();
    assert_eq!(io.unwrap().kind(), std::io::ErrorKind::Other);
}

#[dto]
pub struct Score {
    #[schemars(range(min = 1, max = 5))]
    pub stars: u8,
}

#[tool(name = "rate-tool", description = "Rates, badly")]
pub struct Rate;

impl ToolHandler for Rate {
    type Input = Nothing;
    type Output = Score;

    async fn run(&self, _: Nothing) -> Result<Score, ToolError> {
        Ok(Score { stars: 0 })
    }
}

#[tokio::test]
async fn an_output_outside_its_schema_is_a_contract_bug() {
    let outcome = test_tool::<Rate>().invoke("{}").await;
    assert_eq!(
        outcome.content,
        "Tool error: invalid output: stars: must be at least 1, got 0"
    );
    assert!(matches!(
        outcome.failure,
        Some(ToolFailure::InvalidOutput(_))
    ));
}
