//! Middleware an application writes: it may refuse a call before it runs (the model reads its
//! reason, the call's result is journaled), it sees each call's end (a refused one's too), one tool's middleware sees
//! only that tool's calls, and one that panics has not decided: the call does not run, and a
//! panic after a call changes nothing of its result.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::tool::{CallEnd, GateCall, Middleware, MiddlewareFuture, ToolOutput};
use agboss::{Application, Workflow};
use fixtures::journal::tool_results;
use serde_json::json;

#[dto]
pub struct Note {
    /// The note.
    pub text: String,
}

/// How many times each tool ran.
#[derive(Default)]
pub struct Runs(AtomicU32, AtomicU32);

/// Writes a note.
#[tool(name = "write-tool")]
pub struct Write {
    runs: Arc<Runs>,
}

impl ToolHandler for Write {
    type Input = Note;
    type Output = PlainText;

    async fn run(&self, input: Note) -> Result<PlainText, ToolError> {
        self.runs.0.fetch_add(1, Ordering::SeqCst);
        Ok(PlainText::new(format!("wrote {}", input.text)))
    }
}

/// Reads a note.
#[tool(name = "read-tool", read_only)]
pub struct Read {
    runs: Arc<Runs>,
}

impl ToolHandler for Read {
    type Input = Note;
    type Output = PlainText;

    async fn run(&self, input: Note) -> Result<PlainText, ToolError> {
        self.runs.1.fetch_add(1, Ordering::SeqCst);
        Ok(PlainText::new(format!("read {}", input.text)))
    }
}

/// Keeps notes.
#[agent(
    name = "notes",
    prompt = "prompts/helper.prompt.md",
    model = "test/notes",
    tools = [Write, Read]
)]
pub struct Notes;

/// What a middleware does before a call.
#[derive(Clone, Copy)]
enum Before {
    Allow,
    Refuse,
    Panic,
}

/// A middleware that does `before` and records what it sees.
struct Watcher {
    before: Before,
    panics_after: bool,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Middleware for Watcher {
    fn name(&self) -> &str {
        "watcher"
    }

    fn before<'a>(&'a self, call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
        let tool = call.tool().name();
        self.seen.lock().unwrap().push(format!("before {tool}"));
        match self.before {
            Before::Allow => Box::pin(async { Ok(()) }),
            Before::Refuse => Box::pin(async { Err("notes are read-only today".to_owned()) }),
            Before::Panic => panic!("the quota service is gone"),
        }
    }

    fn after(&self, call: &CallEnd<'_>, output: &ToolOutput) {
        let line = format!(
            "after {} {} {}",
            call.tool().name(),
            call.tries(),
            if output.is_error() { "error" } else { "ok" }
        );
        self.seen.lock().unwrap().push(line);
        if self.panics_after {
            panic!("the ledger is gone");
        }
    }
}

/// The model calls `write-tool` then `read-tool`, each once, then answers.
fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::call("write-tool", json!({"text": "milk"})),
        Turn::call("read-tool", json!({"text": "milk"})),
        Turn::text("done"),
    ])
}

/// Runs the script under `watcher` (on every tool, or on `write-tool` only): the journal's
/// results, how often each tool ran, and what the watcher saw.
async fn run(
    before: Before,
    panics_after: bool,
    one_tool: bool,
) -> (Vec<String>, Arc<Runs>, Vec<String>) {
    let runs = Arc::new(Runs::default());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let watcher = Watcher {
        before,
        panics_after,
        seen: seen.clone(),
    };
    let builder = Application::builder("middleware")
        .workflow(Workflow::new("desk").agent::<Notes>())
        .provide(runs.clone())
        .chat_model(Arc::new(script()));
    let builder = match one_tool {
        true => builder.tool_middleware::<Write>(watcher),
        false => builder.middleware(watcher),
    };
    let app = builder.build().unwrap();
    app.run("desk", "milk?")
        .execution_id("notes")
        .await
        .unwrap();
    let events = app.store().events("notes").await.unwrap();
    let results = tool_results(&events)
        .into_iter()
        .map(|r| r.content)
        .collect();
    let seen = seen.lock().unwrap().clone();
    (results, runs, seen)
}

#[tokio::test]
async fn a_middleware_sees_each_call_before_it_runs_and_its_end() {
    let (results, runs, seen) = run(Before::Allow, false, false).await;
    assert_eq!(
        results,
        [r#"{"text":"wrote milk"}"#, r#"{"text":"read milk"}"#]
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 1);
    assert_eq!(
        seen,
        [
            "before write-tool",
            "after write-tool 1 ok",
            "before read-tool",
            "after read-tool 1 ok"
        ]
    );
}

#[tokio::test]
async fn a_refusal_is_the_call_s_result_and_the_tool_does_not_run() {
    let (results, runs, seen) = run(Before::Refuse, false, false).await;
    assert_eq!(
        results,
        [
            "Tool error: notes are read-only today",
            "Tool error: notes are read-only today"
        ]
    );
    assert_eq!(
        runs.0.load(Ordering::SeqCst) + runs.1.load(Ordering::SeqCst),
        0
    );
    // Its end is the refusal, which it sees too (a ledger of calls counts it as failed).
    assert_eq!(
        seen,
        [
            "before write-tool",
            "after write-tool 1 error",
            "before read-tool",
            "after read-tool 1 error"
        ]
    );
}

#[tokio::test]
async fn one_tool_s_middleware_sees_that_tool_s_calls_only() {
    let (results, runs, seen) = run(Before::Refuse, false, true).await;
    assert_eq!(
        results,
        [
            "Tool error: notes are read-only today",
            r#"{"text":"read milk"}"#
        ]
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
    assert_eq!(runs.1.load(Ordering::SeqCst), 1);
    assert_eq!(seen, ["before write-tool", "after write-tool 1 error"]);
}

#[tokio::test]
async fn a_middleware_that_panics_before_a_call_has_not_decided_so_the_call_does_not_run() {
    let (results, runs, _) = run(Before::Panic, false, false).await;
    assert_eq!(
        results[0],
        "Tool error: the middleware `watcher` failed before it decided (the quota service is gone): the call does not run"
    );
    assert_eq!(
        runs.0.load(Ordering::SeqCst) + runs.1.load(Ordering::SeqCst),
        0
    );
}

#[tokio::test]
async fn a_middleware_that_panics_after_a_call_changes_nothing_of_its_result() {
    let (results, runs, seen) = run(Before::Allow, true, false).await;
    assert_eq!(
        results,
        [r#"{"text":"wrote milk"}"#, r#"{"text":"read milk"}"#]
    );
    assert_eq!(runs.0.load(Ordering::SeqCst), 1);
    assert_eq!(seen.len(), 4);
}
