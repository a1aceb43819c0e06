//! Pauses end to end in one process, with a role, a channel and a tool built by hand as the
//! macros build them: the run pauses, answers are checked, taken once, and the approved call
//! runs once with its journaled arguments.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::{Application, Resume};
use crate::agent::AgentDescriptor;
use crate::assembly::Workflow;
use crate::channel::{
    Approves, Channel, ChannelAsk, ChannelDescriptor, ChannelHandler, ChannelOutcome, ChannelRole,
    PauseAnswerer, RoleDescriptor, ToolCallApprovalAsk, ToolCallApprovalDecision, approval_of,
};
use crate::component::{DependencyError, SourceLocation};
use crate::dto::PlainText;
use crate::journal::{LoopEvent, PauseQuery};
use crate::model::{ScriptedModel, Turn};
use crate::run::RunOutcome;
use crate::store::{Journal, MemoryStore};
use crate::tool::{
    Scope, Tool, ToolDescriptor, ToolError, ToolHandler, ToolRegistration, tool_input_schema,
    tool_output_schema,
};
use crate::units::seconds;

const HERE: SourceLocation = SourceLocation {
    module_path: module_path!(),
    file: file!(),
    line: line!(),
};

/// What the channel was asked, and how many times the tool ran (with what).
#[derive(Default)]
pub(super) struct Seen {
    pub(super) asks: Mutex<Vec<(String, Value)>>,
    pub(super) runs: AtomicUsize,
    pub(super) texts: Mutex<Vec<String>>,
}

/// Approves saving a note; the thread's owner answers.
struct NoteApproval;

static NOTE_APPROVAL: RoleDescriptor = RoleDescriptor::approval::<PlainText>(
    "note-approval-channel",
    "Approves saving a note",
    "NoteApproval",
    HERE,
    PauseAnswerer::ThreadOwner,
    "PlainText",
);

impl ChannelRole for NoteApproval {
    type Question = ToolCallApprovalAsk<PlainText>;
    type Answer = ToolCallApprovalDecision<PlainText>;
    const DESCRIPTOR: &'static RoleDescriptor = &NOTE_APPROVAL;
}

impl Approves<PlainText> for NoteApproval {}

/// Posts the question somewhere and waits for the reply.
struct Inbox {
    seen: Arc<Seen>,
}

static INBOX: ChannelDescriptor =
    ChannelDescriptor::new::<NoteApproval>("inbox-channel", "Asks in the inbox", "Inbox", HERE);

impl ChannelHandler for Inbox {
    type Role = NoteApproval;

    async fn send(
        &self,
        ask: ChannelAsk<NoteApproval>,
    ) -> Result<ChannelOutcome<NoteApproval>, ToolError> {
        let value = serde_json::to_value(&ask.value).unwrap();
        self.seen.asks.lock().unwrap().push((ask.pause_id, value));
        Ok(ChannelOutcome::await_reply())
    }
}

impl Channel for Inbox {
    const DESCRIPTOR: &'static ChannelDescriptor = &INBOX;

    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError> {
        let seen = scope.providers().get::<Seen>().map_err(INBOX_UNRESOLVED)?;
        Ok(Inbox { seen })
    }
}

#[allow(non_snake_case)]
fn INBOX_UNRESOLVED(why: crate::deps::Unresolved) -> DependencyError {
    DependencyError::Unavailable {
        kind: crate::component::ComponentKind::Channel,
        component: "inbox-channel",
        field: "seen",
        provided_type: "Seen",
        reason: format!("{why:?}"),
    }
}

/// Saves a note: counts its runs and keeps the texts it saved.
struct SaveNote {
    seen: Arc<Seen>,
}

impl ToolHandler for SaveNote {
    type Input = PlainText;
    type Output = PlainText;

    async fn run(&self, input: PlainText) -> Result<PlainText, ToolError> {
        self.seen.runs.fetch_add(1, Ordering::SeqCst);
        self.seen.texts.lock().unwrap().push(input.text.clone());
        Ok(PlainText::new(format!("saved {}", input.text)))
    }
}

static SAVE_NOTE: ToolDescriptor = ToolDescriptor::new(
    "save-note-tool",
    "Saves a note",
    "SaveNote",
    HERE,
    tool_input_schema::<SaveNote>,
    tool_output_schema::<SaveNote>,
)
.with_timeout(seconds(5))
.with_approval(approval_of::<NoteApproval>());

impl Tool for SaveNote {
    const DESCRIPTOR: &'static ToolDescriptor = &SAVE_NOTE;

    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError> {
        let seen = scope
            .providers()
            .get::<Seen>()
            .map_err(|why| DependencyError::Unavailable {
                kind: crate::component::ComponentKind::Tool,
                component: "save-note-tool",
                field: "seen",
                provided_type: "Seen",
                reason: format!("{why:?}"),
            })?;
        Ok(SaveNote { seen })
    }
}

static TOOLS: [ToolRegistration; 1] = [ToolRegistration::of::<SaveNote>()];

static NOTES: AgentDescriptor = AgentDescriptor::new(
    "notes",
    "Keeps notes",
    "Notes",
    HERE,
    "test/model",
    &[],
    &TOOLS,
);

pub(super) struct Fixture {
    pub(super) app: Application,
    pub(super) seen: Arc<Seen>,
    pub(super) store: Arc<MemoryStore>,
    pub(super) model: ScriptedModel,
}

pub(super) fn fixture(turns: impl IntoIterator<Item = Turn>) -> Fixture {
    let seen = Arc::new(Seen::default());
    let store = Arc::new(MemoryStore::new());
    let model = ScriptedModel::new(turns);
    let app = Application::builder("pauses")
        .workflow(Workflow::new("desk").agent_descriptor(&NOTES))
        .provide(seen.clone())
        .channel::<Inbox>()
        .store(store.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    Fixture {
        app,
        seen,
        store,
        model,
    }
}

pub(super) fn save(text: &str) -> Turn {
    Turn::call("save-note-tool", json!({ "text": text }))
}

async fn paused(f: &Fixture, input: &str) -> crate::run::Paused {
    let outcome = f
        .app
        .run("desk", input)
        .execution_id("e-1")
        .thread("t-1")
        .owner("u-1")
        .await
        .unwrap();
    match outcome {
        RunOutcome::Paused(paused) => paused,
        other => panic!("the run did not pause: {other:?}"),
    }
}

#[tokio::test]
async fn a_call_waits_and_runs_once_approved_with_its_journaled_arguments() {
    let f = fixture([
        save("dentist tuesday"),
        Turn::text("Saved.").expect_tool_result("saved dentist tuesday"),
    ]);
    let paused = paused(&f, "remember the dentist").await;
    assert_eq!(paused.pending.len(), 1);
    let pending = &paused.pending[0];
    assert_eq!(
        (pending.tool.as_str(), pending.owner.as_deref()),
        ("save-note-tool", Some("u-1"))
    );
    assert_eq!(pending.pause_id.len(), 32, "128 bits, hex");
    assert_eq!(
        f.seen.runs.load(Ordering::SeqCst),
        0,
        "nothing runs before the decision"
    );
    let asks = f.seen.asks.lock().unwrap().clone();
    assert_eq!(asks.len(), 1);
    assert_eq!(
        asks[0].0, pending.pause_id,
        "the channel got the pause's id"
    );
    assert_eq!(asks[0].1["arguments"], json!({"text": "dentist tuesday"}));
    assert_eq!(f.model.requests().len(), 1);
    // The store lists it for its owner, not for anyone else.
    let mine = PauseQuery {
        owner: Some("u-1".into()),
        ..PauseQuery::default()
    };
    assert_eq!(f.store.open_pauses(&mine).await.unwrap().len(), 1);
    let theirs = PauseQuery {
        owner: Some("u-2".into()),
        ..PauseQuery::default()
    };
    assert!(f.store.open_pauses(&theirs).await.unwrap().is_empty());

    let outcome = f
        .app
        .resume(
            Resume::decision(
                &pending.pause_id,
                ToolCallApprovalDecision::<PlainText>::approve(),
            )
            .answered_by("u-1"),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Saved."));
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        f.model.requests().len(),
        2,
        "the model was not asked again for the call"
    );
    let journal = f.store.events("e-1").await.unwrap();
    let kinds: Vec<&str> = journal
        .iter()
        .map(|e| match e {
            LoopEvent::Started { .. } => "started",
            LoopEvent::ModelAnswered { .. } => "model_answered",
            LoopEvent::PauseOpened(_) => "pause_opened",
            LoopEvent::PauseAwaiting { .. } => "pause_awaiting",
            LoopEvent::PauseResolved { .. } => "pause_resolved",
            LoopEvent::PauseAnswerRejected { .. } => "pause_answer_rejected",
            LoopEvent::ToolsStarted { .. } => "tools_started",
            LoopEvent::ToolSpent { .. } => "tool_spent",
            LoopEvent::ToolFinished { .. } => "tool_finished",
            LoopEvent::Answered { .. } => "answered",
            LoopEvent::Failed { .. } => "failed",
            LoopEvent::Summarized { .. } => "summarized",
            LoopEvent::ConfigChanged { .. } => "config_changed",
            LoopEvent::PermissionsDecided { .. } => "permissions_decided",
            LoopEvent::ContextAdded { .. } => "context_added",
            LoopEvent::ToolRetried { .. } => "tool_retried",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "started",
            "model_answered",
            "pause_opened",
            "pause_awaiting",
            "pause_resolved",
            "tools_started",
            "tool_finished",
            "model_answered",
            "answered"
        ]
    );
}

#[tokio::test]
async fn wrong_answers_are_refused_audited_and_leave_the_pause_open() {
    let f = fixture([save("x"), Turn::text("done")]);
    let paused = paused(&f, "save x").await;
    let id = paused.pending[0].pause_id.clone();
    let approve = || ToolCallApprovalDecision::<PlainText>::approve();

    let error = f
        .app
        .resume(Resume::decision(&id, approve()).answered_by("u-2"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.wrong-answerer");
    assert_eq!(
        error.to_string(),
        format!(
            "[pause.wrong-answerer] pause `{id}` is answered by the thread's owner, `u-1`, not by `u-2`"
        )
    );
    let error = f
        .app
        .resume(Resume::decision(&id, approve()))
        .await
        .unwrap_err();
    assert_eq!(
        error.code(),
        "pause.wrong-answerer",
        "nobody is not the owner"
    );
    let error = f
        .app
        .resume(Resume::decision("0123456789abcdef0123456789abcdef", approve()).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.unknown");
    let error = f
        .app
        .resume(
            Resume::decision(&id, approve())
                .answered_by("u-1")
                .for_execution("e-2"),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.other-execution");
    let error = f
        .app
        .resume(
            Resume::decision(&id, approve())
                .answered_by("u-1")
                .for_arguments("00ff"),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.arguments-changed");
    let error = f
        .app
        .resume(Resume::decision(&id, json!({"decision": "maybe"})).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.invalid-answer");
    let error = f
        .app
        .resume(Resume::reply(&id, "yes please").answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.no-interpreter");

    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 0);
    let record = f.store.pause(&id).await.unwrap().unwrap();
    assert!(record.is_open(), "every refusal leaves it open");
    let audited = f
        .store
        .events("e-1")
        .await
        .unwrap()
        .iter()
        .filter(|e| matches!(e, LoopEvent::PauseAnswerRejected { .. }))
        .count();
    assert_eq!(
        audited, 6,
        "each refusal of a known pause is in its journal"
    );

    // The right answer still works, once.
    f.app
        .resume(Resume::decision(&id, approve()).answered_by("u-1"))
        .await
        .unwrap();
    let again = f
        .app
        .resume(Resume::decision(&id, approve()).answered_by("u-1"))
        .await
        .unwrap_err();
    assert_eq!(again.code(), "pause.already-answered");
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 1);
    let audited_after = f
        .store
        .events("e-1")
        .await
        .unwrap()
        .iter()
        .filter(|e| matches!(e, LoopEvent::PauseAnswerRejected { .. }))
        .count();
    assert_eq!(
        audited_after, 6,
        "an answer to an answered pause is refused without an audit record"
    );
}

#[tokio::test]
async fn a_refused_call_is_a_tool_error_the_model_reads() {
    let f = fixture([
        save("x"),
        Turn::text("I could not save it.")
            .expect_tool_result("Tool error: the call was refused: not now"),
    ]);
    let paused = paused(&f, "save x").await;
    let id = &paused.pending[0].pause_id;
    let outcome = f
        .app
        .resume(
            Resume::decision(id, ToolCallApprovalDecision::<PlainText>::refuse("not now"))
                .answered_by("u-1"),
        )
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("I could not save it."));
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn overridden_arguments_are_checked_and_run() {
    let f = fixture([save("x"), Turn::text("ok")]);
    let paused = paused(&f, "save x").await;
    let id = paused.pending[0].pause_id.clone();
    let error = f
        .app
        .resume(
            Resume::decision(
                &id,
                json!({"decision": "approve", "override_arguments": {"words": 3}}),
            )
            .answered_by("u-1"),
        )
        .await
        .unwrap_err();
    assert_eq!(error.code(), "pause.invalid-answer", "{error}");
    f.app
        .resume(
            Resume::decision(
                &id,
                ToolCallApprovalDecision::approve_with(PlainText::new("y")),
            )
            .answered_by("u-1"),
        )
        .await
        .unwrap();
    assert_eq!(*f.seen.texts.lock().unwrap(), ["y"]);
}

#[tokio::test]
async fn parallel_calls_wait_together_and_the_run_goes_on_after_the_last_answer() {
    let f = fixture([
        Turn::calls([
            ("save-note-tool", json!({"text": "a"})),
            ("save-note-tool", json!({"text": "b"})),
        ]),
        Turn::text("both saved"),
    ]);
    let paused = paused(&f, "save a and b").await;
    assert_eq!(paused.pending.len(), 2);
    let (first, second) = (
        paused.pending[0].pause_id.clone(),
        paused.pending[1].pause_id.clone(),
    );
    let approve = || ToolCallApprovalDecision::<PlainText>::approve();
    // The second answered first: the run still waits for the other.
    let outcome = f
        .app
        .resume(Resume::decision(&second, approve()).answered_by("u-1"))
        .await
        .unwrap();
    let still = outcome.paused().expect("one pause is left");
    assert_eq!(still.pending.len(), 1);
    assert_eq!(still.pending[0].pause_id, first);
    // An approved call runs as soon as its answer comes; the model waits for every result.
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 1);
    assert_eq!(*f.seen.texts.lock().unwrap(), ["b"]);
    assert_eq!(f.model.requests().len(), 1);
    let outcome = f
        .app
        .resume(Resume::decision(&first, approve()).answered_by("u-1"))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("both saved"));
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn concurrent_answers_take_exactly_one() {
    let f = fixture([save("x"), Turn::text("done")]);
    let paused = paused(&f, "save x").await;
    let id = paused.pending[0].pause_id.clone();
    let app = Arc::new(f.app);
    let answers = [
        ToolCallApprovalDecision::<PlainText>::approve(),
        ToolCallApprovalDecision::<PlainText>::refuse("no"),
    ];
    let tasks: Vec<_> = answers
        .into_iter()
        .map(|answer| {
            let (app, id) = (app.clone(), id.clone());
            tokio::spawn(async move {
                app.resume(Resume::decision(id, answer).answered_by("u-1"))
                    .await
            })
        })
        .collect();
    let mut taken = 0;
    let mut refused = 0;
    for task in tasks {
        match task.await.unwrap() {
            Ok(_) => taken += 1,
            Err(e) if e.code() == "pause.already-answered" => refused += 1,
            Err(e) => panic!("unexpected: {e}"),
        }
    }
    assert_eq!((taken, refused), (1, 1));
    assert!(f.seen.runs.load(Ordering::SeqCst) <= 1);
}

#[tokio::test]
async fn cancelling_a_paused_execution_closes_its_pauses() {
    let f = fixture([save("x")]);
    let paused = paused(&f, "save x").await;
    let id = paused.pending[0].pause_id.clone();
    f.app.cancel("e-1", "the user left").await.unwrap();
    let late = f
        .app
        .resume(
            Resume::decision(&id, ToolCallApprovalDecision::<PlainText>::approve())
                .answered_by("u-1"),
        )
        .await
        .unwrap_err();
    assert_eq!(late.code(), "pause.execution-cancelled");
    assert_eq!(
        late.to_string(),
        format!("[pause.execution-cancelled] pause `{id}`: execution cancelled")
    );
    let record = f.store.execution("e-1").await.unwrap().unwrap();
    assert_eq!(record.status, crate::journal::ExecutionStatus::Cancelled);
    assert_eq!(record.open_pauses, 0);
    assert_eq!(f.seen.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_resume_keeps_the_thread_owner_tenant_and_budgets_the_run_started_with() {
    let f = fixture([save("x"), Turn::text("done")]);
    let outcome = f
        .app
        .run("desk", "save x")
        .execution_id("e-9")
        .thread("t-9")
        .owner("u-9")
        .tenant(crate::context::Tenant::new("acme"))
        .budgets(crate::spend::Budgets::none().tokens(123_456))
        .await
        .unwrap();
    let id = outcome.paused().unwrap().pending[0].pause_id.clone();
    // A fresh application over the same store, as another process would have.
    let other = Application::builder("pauses")
        .workflow(Workflow::new("desk").agent_descriptor(&NOTES))
        .provide(f.seen.clone())
        .channel::<Inbox>()
        .store(f.store.clone())
        .chat_model(Arc::new(f.model.clone()))
        .build()
        .unwrap();
    other
        .resume(
            Resume::decision(&id, ToolCallApprovalDecision::<PlainText>::approve())
                .answered_by("u-9"),
        )
        .await
        .unwrap();
    let record = f.store.execution("e-9").await.unwrap().unwrap();
    assert_eq!(record.thread_id, "t-9");
    assert_eq!(record.owner_id.as_deref(), Some("u-9"));
    assert_eq!(record.tenant_id.as_deref(), Some("acme"));
    let state =
        crate::journal::LoopState::from_events(&f.store.events("e-9").await.unwrap()).unwrap();
    assert_eq!(state.budgets.max_tokens, Some(123_456));
}

/// Runs of one thread, with `history` 1 turn + 1 summary.
static CHATTY: AgentDescriptor =
    AgentDescriptor::new("chatty", "Talks", "Chatty", HERE, "test/model", &[], &[])
        .with_history(crate::agent::History::new(1, 1));

#[tokio::test]
async fn a_thread_remembers_its_last_turns_and_summaries_of_older_ones() {
    let store = Arc::new(MemoryStore::new());
    let model = ScriptedModel::new([
        Turn::text("Blue."),
        Turn::text("Green."),
        // The third run: the first turn is summarized, the second kept as it was.
        Turn::text("The user likes blue.").usage(30, 7),
        Turn::text("Red."),
    ]);
    let app = Application::builder("threads")
        .workflow(Workflow::new("desk").agent_descriptor(&CHATTY))
        .store(store.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let ask = |input: &'static str| app.run("desk", input).thread("t-1").owner("u-1");
    ask("Which colour do I like?").await.unwrap();
    ask("And my partner?").await.unwrap();
    let outcome = ask("And the car?").await.unwrap().into_completed().unwrap();
    assert_eq!(outcome.text(), Some("Red."));
    let requests = model.requests();
    // The second run saw the first turn as it was.
    assert_eq!(
        requests[1].messages,
        [
            crate::model::Message::user("Which colour do I like?"),
            crate::model::Message::Assistant {
                text: Some("Blue.".into()),
                tool_calls: vec![],
                reasoning: Vec::new(),
            },
            crate::model::Message::user("And my partner?"),
        ]
    );
    // The third asked for a summary of the first turn, then saw it and the second turn.
    assert!(requests[2].system.starts_with("You keep the memory"));
    assert_eq!(
        requests[3].messages[0],
        crate::model::Message::user(
            "Earlier in this conversation (summarized, oldest first):\n- The user likes blue."
        )
    );
    assert_eq!(requests[3].messages.len(), 4);
    // The summary's tokens count in the third run.
    assert_eq!(outcome.usage.total(), 37);
    // It is kept with the first turn, and a fourth run does not make it again.
    let first = &store.thread("t-1").await.unwrap()[0];
    assert_eq!(first.summary.as_deref(), Some("The user likes blue."));
}
