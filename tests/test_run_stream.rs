//! `app.run(..).stream()`: a run watched as it goes. The events of a turn with two tool calls
//! side by side arrive in the documented order, a tool's progress comes between its start and
//! its end, a call refused before it runs only ends, `Finished` is last, and the journal is the
//! same whether the run was watched or not. A run resumed after an approval is watched the
//! same way (`app.resume_stream`), and a refused answer comes back before any event.

use std::sync::Arc;
use std::sync::LazyLock;

use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunEvent;
use agboss::store::{Journal, MemoryStore};
use agboss::{Application, Resume, Workflow};
use serde_json::json;

/// Both tools wait here: each runs only once the other has started.
static SIDE_BY_SIDE: LazyLock<tokio::sync::Barrier> =
    LazyLock::new(|| tokio::sync::Barrier::new(2));

/// The tests whose runs meet at the barrier take turns: a call of one test must not pair up
/// with a call of another.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[dto]
pub struct Word {
    /// A word.
    pub word: String,
}

/// Counts the letters of a word, saying how far it got.
#[tool(name = "count-tool", description = "Counts letters", read_only = true)]
pub struct Count {
    context: ExecutionContext,
}

impl ToolHandler for Count {
    type Input = Word;
    type Output = Word;

    async fn run(&self, input: Word) -> Result<Word, ToolError> {
        SIDE_BY_SIDE.wait().await;
        let total = input.word.len() as u64;
        self.context
            .report_progress(Progress::new(total / 2, Some(total)).message("half way"));
        self.context
            .report_progress(Progress::new(total, Some(total)).message("done"));
        Ok(Word {
            word: total.to_string(),
        })
    }
}

/// Shouts a word.
#[tool(name = "shout-tool", description = "Shouts", read_only = true)]
pub struct Shout;

impl ToolHandler for Shout {
    type Input = Word;
    type Output = Word;

    async fn run(&self, input: Word) -> Result<Word, ToolError> {
        SIDE_BY_SIDE.wait().await;
        Ok(Word {
            word: input.word.to_uppercase(),
        })
    }
}

#[agent(
    name = "speaker",
    description = "Speaks",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Count, Shout],
)]
pub struct Speaker;

fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::calls([
            ("count-tool", json!({"word": "otter"})),
            ("shout-tool", json!({"word": "otter"})),
            // Refused by the contract: it never starts.
            ("shout-tool", json!({"word": 7})),
        ]),
        Turn::text("Five letters, OTTER."),
    ])
}

fn watched_app(store: Arc<MemoryStore>) -> Application {
    Application::builder("watched")
        .workflow(Workflow::new("desk").agent::<Speaker>())
        .store(store)
        .chat_model(Arc::new(script()))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watched_run_tells_each_step_in_order_and_journals_as_an_unwatched_one() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let store = Arc::new(MemoryStore::new());
    let app = watched_app(store.clone());
    let mut run = app
        .run("desk", "count and shout")
        .execution_id("e-1")
        .stream();
    let mut events = Vec::new();
    while let Some(event) = run.next().await {
        events.push(event);
    }
    drop(run);

    // A short name for each event, to read the order at a glance.
    let seen: Vec<String> = events
        .iter()
        .map(|e| match e {
            RunEvent::Text { turn, .. } => format!("text {turn}"),
            RunEvent::TextRestarted { turn } => format!("restart {turn}"),
            RunEvent::ToolStarted { call_id, .. } => format!("start {call_id}"),
            RunEvent::ToolProgress { call_id, .. } => format!("progress {call_id}"),
            RunEvent::ToolEnded { call_id, .. } => format!("end {call_id}"),
            RunEvent::Finished(_) => "finished".to_owned(),
            other => format!("{other:?}"),
        })
        .collect();
    let at = |name: &str| seen.iter().position(|s| s == name).unwrap_or(usize::MAX);
    let last_at = |name: &str| seen.iter().rposition(|s| s == name).unwrap();

    // Both calls start before either ends (they wait for each other), each before its progress
    // and its end; the refused one only ends; the second turn's text comes after every end.
    for call in ["call_0", "call_1"] {
        assert!(
            at(&format!("start {call}")) < at(&format!("end {call}")),
            "{seen:?}"
        );
    }
    assert!(at("start call_0").max(at("start call_1")) < at("end call_0").min(at("end call_1")));
    assert!(at("start call_0") < at("progress call_0"), "{seen:?}");
    assert!(last_at("progress call_0") < at("end call_0"), "{seen:?}");
    assert_eq!(seen.iter().filter(|s| *s == "progress call_0").count(), 2);
    assert_eq!(at("start call_2"), usize::MAX, "{seen:?}");
    assert!(at("end call_2") < at("text 2"), "{seen:?}");
    assert!(last_at("end call_0").max(last_at("end call_1")) < at("text 2"));
    assert_eq!(seen.last().map(String::as_str), Some("finished"));
    assert_eq!(seen.iter().filter(|s| *s == "finished").count(), 1);

    // What each event carries.
    let started = events.iter().find_map(|e| match e {
        RunEvent::ToolStarted {
            call_id,
            tool,
            arguments,
        } if call_id == "call_0" => Some((tool.clone(), arguments.clone())),
        _ => None,
    });
    assert_eq!(
        started,
        Some(("count-tool".to_owned(), json!({"word": "otter"})))
    );
    let progress: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolProgress { progress, .. } => Some(progress.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(progress, ["2/5: half way", "5/5: done"]);
    let refused = events.iter().find_map(|e| match e {
        RunEvent::ToolEnded {
            call_id, is_error, ..
        } if call_id == "call_2" => Some(*is_error),
        _ => None,
    });
    assert_eq!(refused, Some(true));
    // The text, a word at a time, makes the answer.
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::Text { turn: 2, text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Five letters, OTTER.");
    assert!(
        seen.iter().filter(|s| *s == "text 2").count() > 1,
        "{seen:?}"
    );
    let Some(RunEvent::Finished(Ok(outcome))) = events.last() else {
        panic!("{:?}", events.last());
    };
    assert_eq!(outcome.text(), Some("Five letters, OTTER."));

    // The same run awaited: the same journal, event for event.
    let unwatched_store = Arc::new(MemoryStore::new());
    let unwatched = watched_app(unwatched_store.clone());
    unwatched
        .run("desk", "count and shout")
        .execution_id("e-1")
        .await
        .unwrap();
    // Calls side by side finish in either order, watched or not: compared as sets.
    let journal = |events: Vec<LoopEvent>| {
        let mut lines: Vec<String> = events
            .iter()
            .map(|e| serde_json::to_string(e).unwrap())
            .collect();
        lines.sort();
        lines
    };
    let watched = journal(store.events("e-1").await.unwrap());
    let awaited = journal(unwatched_store.events("e-1").await.unwrap());
    assert_eq!(watched.len(), 8);
    assert_eq!(watched, awaited);
}

#[tokio::test]
async fn a_run_that_fails_to_start_finishes_at_once_with_its_error() {
    let app = watched_app(Arc::new(MemoryStore::new()));
    let mut run = app.run("no-such-workflow", "hello").stream();
    let Some(RunEvent::Finished(Err(e))) = run.next().await else {
        panic!("the run should finish with its error");
    };
    assert!(e.to_string().contains("no-such-workflow"), "{e}");
    assert!(run.next().await.is_none());
}

/// A worker's executions are watched the same way: `on_event` hears each with its execution.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_tells_the_events_of_the_executions_it_drives() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let app = watched_app(Arc::new(MemoryStore::new()));
    let id = app.run("desk", "count and shout").submit().await.unwrap();
    let seen = std::sync::Mutex::new(Vec::new());
    let report = app
        .worker()
        .until_idle()
        .on_event(|execution, event| {
            let name = match event {
                RunEvent::ToolStarted { tool, .. } => format!("start {tool}"),
                RunEvent::ToolEnded { tool, is_error, .. } => format!("end {tool} {is_error}"),
                RunEvent::Text { .. } => "text".to_owned(),
                _ => return,
            };
            seen.lock().unwrap().push((execution.to_owned(), name));
        })
        .run(agboss::context::Signal::new())
        .await;
    assert_eq!(report.completed, 1);
    let seen = seen.into_inner().unwrap();
    assert!(
        seen.iter().all(|(execution, _)| *execution == id),
        "{seen:?}"
    );
    let names: Vec<&str> = seen.iter().map(|(_, name)| name.as_str()).collect();
    for expected in [
        "start count-tool",
        "start shout-tool",
        "end count-tool false",
        "end shout-tool false",
        "end shout-tool true",
        "text",
    ] {
        assert!(names.contains(&expected), "{names:?}");
    }
}

/// Approves shouting; the thread's owner answers, later.
#[channel_role(
    name = "shout-approval-channel",
    description = "Approves shouting",
    approves = Word,
    answered_by = ThreadOwner,
)]
pub struct ShoutApproval;

fixtures::inbox! {
    /// Waits for the owner: the answer comes by `resume_stream`.
    #[channel(name = "later-shout-approval-channel", description = "Waits")]
    pub struct Later for ShoutApproval;
}

/// Shouts a word once someone approves.
#[tool(name = "approved-shout-tool", description = "Shouts, once approved", channel = ShoutApproval)]
pub struct ApprovedShout;

impl ToolHandler for ApprovedShout {
    type Input = Word;
    type Output = Word;

    async fn run(&self, input: Word) -> Result<Word, ToolError> {
        Ok(Word {
            word: input.word.to_uppercase(),
        })
    }
}

#[agent(
    name = "careful-speaker",
    description = "Speaks once allowed",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [ApprovedShout],
)]
pub struct CarefulSpeaker;

#[tokio::test]
async fn a_pause_is_told_and_the_resumed_run_is_watched_after_its_answer_is_taken() {
    let app = Application::builder("watched")
        .workflow(Workflow::new("careful").agent::<CarefulSpeaker>())
        .channel::<Later>()
        .store(Arc::new(MemoryStore::new()))
        .chat_model(Arc::new(ScriptedModel::new([
            Turn::call("approved-shout-tool", json!({"word": "otter"})),
            Turn::text("OTTER."),
        ])))
        .build()
        .unwrap();
    // Watched, the first run tells that the call waits, with the pause's id.
    let mut waiting = Vec::new();
    let outcome = app
        .run("careful", "shout otter")
        .thread("t-1")
        .owner("u-1")
        .stream()
        .watch(|event| {
            if let RunEvent::PauseWaiting {
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
    let agboss::run::RunOutcome::Paused(paused) = outcome else {
        panic!("it did not pause: {outcome:?}");
    };
    let pause_id = paused.pending[0].pause_id.clone();
    assert_eq!(
        waiting,
        [(
            Some(pause_id.clone()),
            "approved-shout-tool".to_owned(),
            "shout-approval-channel".to_owned()
        )]
    );
    let approve = || ToolCallApprovalDecision::<Word>::approve();

    // Someone else's answer is refused before anything runs; the pause stays open.
    let refused = app
        .resume_stream(Resume::decision(&pause_id, approve()).answered_by("mallory"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "pause.wrong-answerer");
    assert!(!refused.answer_was_taken());

    let mut run = app
        .resume_stream(Resume::decision(&pause_id, approve()).answered_by("u-1"))
        .await
        .unwrap();
    let mut seen = Vec::new();
    while let Some(event) = run.next().await {
        seen.push(match event {
            RunEvent::ToolStarted { tool, .. } => format!("start {tool}"),
            RunEvent::ToolEnded { tool, content, .. } => format!("end {tool} {content}"),
            RunEvent::Text { text, .. } => format!("text {text}"),
            RunEvent::Finished(outcome) => {
                let done = outcome.unwrap().into_completed().unwrap();
                format!("finished {}", done.text().unwrap_or_default())
            }
            other => format!("{other:?}"),
        });
    }
    assert_eq!(
        seen,
        [
            "start approved-shout-tool",
            r#"end approved-shout-tool {"word":"OTTER"}"#,
            "text OTTER.",
            "finished OTTER.",
        ]
    );
}
