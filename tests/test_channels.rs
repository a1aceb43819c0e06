//! The built-in channels through the facade, as a user's application meets them: a tool whose
//! role is `AutoApproveChannel` runs at once, one whose role is `AutoRejectChannel` never runs,
//! and `TerminalUserChannel` reads the person's answer from standard input (tested for real, in
//! a child process whose standard input is a pipe: `tests/bin/terminal_desk.rs`).

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agboss::channel::{AutoApproveChannel, AutoRejectChannel};
use agboss::journal::{LoopEvent, PauseResolution};
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore};
use agboss::{Application, Workflow};
use fixtures::run::completed;
use serde_json::json;

/// A note to archive.
#[dto]
pub struct Note {
    /// Its text.
    pub text: String,
}

#[tool(
    name = "archive-note-tool",
    description = "Archives a note",
    channel = AutoApproveChannel
)]
pub struct ArchiveNote {
    runs: Arc<AtomicUsize>,
}

#[tool(
    name = "delete-note-tool",
    description = "Deletes a note",
    channel = AutoRejectChannel
)]
pub struct DeleteNote {
    runs: Arc<AtomicUsize>,
}

macro_rules! counting {
    ($($ty:ty => $verb:literal),*) => {$(
        impl ToolHandler for $ty {
            type Input = Note;
            type Output = PlainText;

            async fn run(&self, input: Note) -> Result<PlainText, ToolError> {
                self.runs.fetch_add(1, Ordering::SeqCst);
                Ok(PlainText::new(format!("{} {}", $verb, input.text)))
            }
        }
    )*};
}

counting!(ArchiveNote => "archived", DeleteNote => "deleted");

/// Archives and deletes notes.
#[agent(
    name = "notes",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [ArchiveNote, DeleteNote],
)]
pub struct Notes;

/// Runs the agent on a script that calls `tool` once, then answers; the tool's runs, what the
/// model read back, and the journal.
async fn run_calling(tool: &str) -> (usize, Message, Vec<LoopEvent>) {
    agboss::model::forbid_real_requests(true);
    let store = Arc::new(MemoryStore::new());
    let model = ScriptedModel::new([
        Turn::call(tool, json!({"text": "dentist"})),
        Turn::text("done"),
    ]);
    let runs = Arc::new(AtomicUsize::new(0));
    let app = Application::builder("channels")
        .store(store.clone())
        .workflow(Workflow::new("desk").agent::<Notes>())
        .provide(runs.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let done = completed(app.run("desk", "tidy my notes")).await;
    assert_eq!(done.text(), Some("done"));
    let requests = model.requests();
    assert_eq!(requests.len(), 2, "the call, then the answer");
    let read = requests[1].messages.last().unwrap().clone();
    let events = store.events(&done.execution_id).await.unwrap();
    (runs.load(Ordering::SeqCst), read, events)
}

/// The pause events of a journal: `opened`, `awaiting`, `resolved` with its answer.
fn pause_story(events: &[LoopEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            LoopEvent::PauseOpened(opened) => {
                Some(format!("opened {} via {}", opened.role, opened.channel))
            }
            LoopEvent::PauseAwaiting { .. } => Some("awaiting".into()),
            LoopEvent::PauseResolved {
                resolution: PauseResolution::Decided { answer },
                ..
            } => Some(format!("decided {answer}")),
            LoopEvent::PauseResolved { resolution, .. } => Some(format!("{resolution:?}")),
            LoopEvent::PauseAnswerRejected { code, .. } => Some(format!("rejected {code}")),
            _ => None,
        })
        .collect()
}

fn tool_message(message: &Message) -> (&str, bool) {
    match message {
        Message::Tool {
            content, is_error, ..
        } => (content, *is_error),
        other => panic!("the model should read a tool result, not {other:?}"),
    }
}

/// `AutoApproveChannel`: the call runs once, the model reads its result, and the journal holds
/// a pause decided at once (nobody waited: no `awaiting`).
#[tokio::test]
async fn auto_approve_lets_the_call_run_once() {
    let (runs, read, events) = run_calling("archive-note-tool").await;
    assert_eq!(runs, 1);
    assert_eq!(
        tool_message(&read),
        (r#"{"text":"archived dentist"}"#, false)
    );
    assert_eq!(
        pause_story(&events),
        [
            "opened auto-approve-channel via auto-approve-channel",
            r#"decided {"decision":"approve"}"#,
        ]
    );
}

/// `AutoRejectChannel`: the tool never runs; the model reads the refusal, word for word.
#[tokio::test]
async fn auto_reject_refuses_the_call_and_the_model_reads_why() {
    let (runs, read, events) = run_calling("delete-note-tool").await;
    assert_eq!(runs, 0);
    assert_eq!(
        tool_message(&read),
        (
            "Tool error: the call was refused: calls of `delete-note-tool` are refused by this application (auto-reject-channel)",
            true
        )
    );
    assert_eq!(
        pause_story(&events),
        [
            "opened auto-reject-channel via auto-reject-channel",
            r#"decided {"decision":"refuse","reason":"calls of `delete-note-tool` are refused by this application (auto-reject-channel)"}"#,
        ]
    );
}

/// What the terminal program printed after its prompt, for `input` piped into it (`None`: its
/// standard input is `/dev/null`). Fails the test, never hangs it, if the program does not end.
fn terminal(input: Option<&[u8]>) -> (String, Vec<String>) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_terminal-desk"));
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    command.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = command.spawn().expect("the terminal program starts");
    if let Some(input) = input {
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input).unwrap();
        // Dropped here: the pipe closes, as when the person's script ends.
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || sender.send(child.wait_with_output()));
    let output = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("the terminal program ends by itself")
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "{}\n{stdout}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        stdout.starts_with(
            r#"Approve `send-mail-tool` with {"to":"ada@example.com"}? [y/N, or n and a reason] "#
        ),
        "the person is asked first: {stdout}"
    );
    let mut lines = stdout.lines().skip(1);
    let result = lines.next().unwrap_or_default().to_owned();
    (result, lines.map(str::to_owned).collect())
}

const OPENED: &str = "PAUSE opened terminal-user-channel";

#[test]
fn terminal_y_approves_and_the_call_runs_once() {
    for answer in ["y\n", "yes\n", "Y\n"] {
        let (result, pauses) = terminal(Some(answer.as_bytes()));
        assert_eq!(
            result, r#"RESULT runs=1 error=false read="{\"text\":\"sent to ada@example.com\"}""#,
            "{answer:?}"
        );
        assert_eq!(
            pauses,
            [OPENED, r#"PAUSE decided {"decision":"approve"}"#],
            "{answer:?}"
        );
    }
}

#[test]
fn terminal_n_refuses_and_says_the_person_said_no() {
    let (result, pauses) = terminal(Some(b"n\n"));
    assert_eq!(
        result,
        r#"RESULT runs=0 error=true read="Tool error: the call was refused: the person at the terminal said no""#
    );
    assert_eq!(
        pauses,
        [
            OPENED,
            r#"PAUSE decided {"decision":"refuse","reason":"the person at the terminal said no"}"#
        ]
    );
}

#[test]
fn terminal_n_with_a_reason_refuses_with_that_reason() {
    let (result, pauses) = terminal(Some(b"n  not before Monday \n"));
    assert_eq!(
        result,
        r#"RESULT runs=0 error=true read="Tool error: the call was refused: not before Monday""#
    );
    assert_eq!(
        pauses,
        [
            OPENED,
            r#"PAUSE decided {"decision":"refuse","reason":"not before Monday"}"#
        ]
    );
}

/// Anything but yes refuses, and the refusal quotes what was typed.
#[test]
fn terminal_another_answer_refuses_and_quotes_it() {
    let (result, _) = terminal(Some(b"maybe later\n"));
    assert_eq!(
        result,
        r#"RESULT runs=0 error=true read="Tool error: the call was refused: the person at the terminal answered \"maybe later\", which is not yes""#
    );
}

/// No answer at all (the input ends before a line, or is `/dev/null`) refuses at once: the
/// program never waits for a line that cannot come.
#[test]
fn terminal_without_input_refuses_at_once() {
    let expected = r#"RESULT runs=0 error=true read="Tool error: the call was refused: no answer came from the terminal""#;
    assert_eq!(terminal(Some(b"")).0, expected);
    assert_eq!(terminal(None).0, expected);
}

/// Input that cannot be read as text fails the call (the model reads why), and the tool does
/// not run: an unreadable terminal is not a yes.
#[test]
fn terminal_unreadable_input_fails_the_call() {
    let (result, pauses) = terminal(Some(b"\xff\xfe y\n"));
    assert_eq!(
        result,
        r#"RESULT runs=0 error=true read="Tool error: the approval failed: channel `terminal-user-channel` could not ask: the terminal could not be read: stream did not contain valid UTF-8""#
    );
    assert_eq!(pauses.first().map(String::as_str), Some(OPENED));
}
