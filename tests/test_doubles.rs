//! A workflow test replaces a service by a double in one line
//! (`ApplicationBuilder::replace::<dyn Service>(..)`): a `mockall` mock whose expectations the
//! test asserts, or a hand-written double, wherever the program provided the real one (the
//! application, a workflow, a workflow another includes).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::{Application, Workflow};
use mockall::predicate::eq;
use mockall::{automock, mock};
use serde_json::json;

#[dto]
pub struct CountQuery {
    /// Words to search the issues for.
    pub query: String,
}

#[dto]
#[derive(Debug, PartialEq)]
pub struct CountSummary {
    pub summary: String,
}

/// The team's issue tracker.
#[automock]
pub trait IssuesApi: Send + Sync {
    fn search(&self, query: &str) -> Vec<String>;
}

/// The real tracker: a test must never reach it.
struct Tracker;

impl IssuesApi for Tracker {
    fn search(&self, _: &str) -> Vec<String> {
        panic!("the real tracker was called from a test")
    }
}

#[tool(
    name = "count-issues-tool",
    description = "Counts the issues matching a query"
)]
pub struct CountIssues {
    issues: Arc<dyn IssuesApi>,
}

impl ToolHandler for CountIssues {
    type Input = CountQuery;
    type Output = CountSummary;

    async fn run(&self, input: CountQuery) -> Result<CountSummary, ToolError> {
        let found = self.issues.search(&input.query).len();
        Ok(CountSummary {
            summary: format!("{found} issues"),
        })
    }
}

#[agent(
    name = "triager",
    description = "Counts issues",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [CountIssues],
)]
pub struct Triager;

/// The program's application as its `main` builds it, the real tracker in its workflow.
fn issues_app(model: ScriptedModel) -> agboss::app::ApplicationBuilder {
    Application::builder("issues")
        .workflow(
            Workflow::new("issues")
                .agent::<Triager>()
                .provide::<dyn IssuesApi>(Arc::new(Tracker)),
        )
        .chat_model(Arc::new(model))
}

/// A mock that expects one search for `login` and finds two issues.
fn two_login_issues() -> Arc<MockIssuesApi> {
    let mut issues = MockIssuesApi::new();
    issues
        .expect_search()
        .with(eq("login"))
        .times(1)
        .returning(|_| vec!["a".into(), "b".into()]);
    Arc::new(issues)
}

/// Takes the mock back from the application that held it and checks its expectations.
fn checkpoint(issues: Arc<MockIssuesApi>) {
    Arc::into_inner(issues)
        .expect("the application let its double go")
        .checkpoint();
}

#[tokio::test]
async fn a_workflow_runs_its_tool_on_a_mocked_service() {
    let model = ScriptedModel::new([
        Turn::call("count-issues-tool", json!({"query": "login"})),
        Turn::text("Two.").expect_tool_result(r#"{"summary":"2 issues"}"#),
    ]);
    let issues = two_login_issues();
    let app = issues_app(model.clone())
        .replace::<dyn IssuesApi>(issues.clone())
        .build()
        .unwrap();

    let outcome = app.run("issues", "how many login issues?").await.unwrap();

    assert_eq!(outcome.text(), Some("Two."));
    assert_eq!(model.remaining(), 0);
    drop(app);
    checkpoint(issues);
}

// The form for a trait of another crate (an integration test mocking the library's trait),
// as docs/testing.md shows it.
mock! {
    pub Tracker {}
    impl IssuesApi for Tracker {
        fn search(&self, query: &str) -> Vec<String>;
    }
}

#[tokio::test]
async fn a_tool_alone_runs_on_the_mocked_service() {
    let mut tracker = MockTracker::new();
    tracker
        .expect_search()
        .with(eq("login"))
        .times(1)
        .returning(|_| vec!["a".into(), "b".into()]);
    let tracker = Arc::new(tracker);
    let app = issues_app(ScriptedModel::new([]))
        .replace::<dyn IssuesApi>(tracker.clone())
        .build()
        .unwrap();

    let out = app
        .tool::<CountIssues>()
        .call(CountQuery {
            query: "login".into(),
        })
        .await
        .unwrap();

    assert_eq!(
        out,
        CountSummary {
            summary: "2 issues".into()
        }
    );
    drop(app);
    Arc::into_inner(tracker)
        .expect("the application let its double go")
        .checkpoint();
}

#[tokio::test]
async fn an_expectation_the_run_did_not_meet_fails_the_checkpoint() {
    let issues = two_login_issues();
    let app = issues_app(ScriptedModel::new([Turn::text("No need to look.")]))
        .replace::<dyn IssuesApi>(issues.clone())
        .build()
        .unwrap();
    app.run("issues", "hello").await.unwrap();
    drop(app);

    let unmet = catch_unwind(AssertUnwindSafe(|| checkpoint(issues))).unwrap_err();
    let message = unmet
        .downcast_ref::<String>()
        .map(String::as_str)
        .unwrap_or_default();
    assert!(
        message.contains("called 0 time(s) which is fewer than expected 1"),
        "{message}"
    );
}

/// A hand-written double: what it was asked, for the test to read.
#[derive(Default)]
struct Recorder {
    queries: std::sync::Mutex<Vec<String>>,
}

impl IssuesApi for Recorder {
    fn search(&self, query: &str) -> Vec<String> {
        self.queries.lock().unwrap().push(query.to_owned());
        Vec::new()
    }
}

#[tokio::test]
async fn the_double_replaces_the_service_in_an_included_workflow_and_the_application() {
    let recorder = Arc::new(Recorder::default());
    let app = Application::builder("issues")
        .workflow(
            Workflow::new("front").include(
                Workflow::new("issues")
                    .tool::<CountIssues>()
                    .provide::<dyn IssuesApi>(Arc::new(Tracker)),
            ),
        )
        .provide::<dyn IssuesApi>(Arc::new(Tracker))
        .replace::<dyn IssuesApi>(recorder.clone())
        .build()
        .unwrap();

    let out = app
        .tool::<CountIssues>()
        .invoke(r#"{"query": "crash"}"#)
        .await;

    assert_eq!(out.content, r#"{"summary":"0 issues"}"#);
    assert_eq!(*recorder.queries.lock().unwrap(), ["crash"]);
}

#[test]
fn a_double_nothing_else_provides_is_the_applications() {
    // Without it the workflow cannot assemble: nothing provides the tracker.
    let bare =
        || Application::builder("issues").workflow(Workflow::new("issues").agent::<Triager>());
    assert_eq!(
        bare().build().err().unwrap().codes(),
        ["di.missing-implementation"]
    );
    bare()
        .replace::<dyn IssuesApi>(Arc::new(MockIssuesApi::new()))
        .build()
        .unwrap();
}
