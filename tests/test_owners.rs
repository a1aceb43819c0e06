//! Who may act in a thread, on every store a user would keep threads in (memory, SQLite,
//! PostgreSQL): a thread keeps the owner its first run named; a run by anyone else is refused
//! with `[thread.owner-mismatch]` before the model is asked or the thread's history is read,
//! and two first runs racing in a new thread leave one owner. A run of an agent whose tools wait
//! for the thread's owner needs an owner (`[run.owner-required]`), and `describe` says which
//! agents do.

use std::sync::Arc;

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{MemoryStore, Store};
use agboss::{Application, Resume, Workflow};
use fixtures::stores::each_store;

#[dto]
pub struct NoteInput {
    /// The note's text.
    pub text: String,
}

/// Approves saving a note; the thread's owner answers.
#[channel_role(name = "note-approval-channel", approves = NoteInput, answered_by = ThreadOwner)]
pub struct NoteApproval;

fixtures::inbox! {
    /// Waits for the owner's answer.
    #[channel(name = "owner-inbox-channel")]
    pub struct OwnerInbox for NoteApproval;
}

/// Saves a note for the user.
#[tool(name = "note-save-tool", channel = NoteApproval)]
pub struct SaveNote;

impl ToolHandler for SaveNote {
    type Input = NoteInput;
    type Output = PlainText;

    async fn run(&self, input: NoteInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("saved: {}", input.text)))
    }
}

/// Keeps the user's notes.
#[agent(name = "notes", prompt = "prompts/helper.prompt.md", model = "test/model", tools = [SaveNote])]
pub struct Notes;

/// Answers questions.
#[agent(
    name = "helper",
    prompt = "prompts/helper.prompt.md",
    model = "test/model"
)]
pub struct Helper;

fn app(store: Arc<dyn Store>, model: &ScriptedModel) -> Application {
    Application::builder("owners")
        .workflow(Workflow::new("desk").agent::<Helper>().agent::<Notes>())
        .channel::<OwnerInbox>()
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thread_takes_runs_of_its_first_owner_only() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        let model = ScriptedModel::new([Turn::text("Hello, Alice."), Turn::text("Again.")]);
        let app = app(store, &model);
        let first = app.run("desk", "hi").thread("t-1").owner("alice").await;
        assert!(first.is_ok(), "{name}: {first:?}");

        let error = app
            .run("desk", "what did alice say?")
            .thread("t-1")
            .owner("bob")
            .await
            .unwrap_err();
        assert_eq!(error.code(), "thread.owner-mismatch", "{name}");
        assert_eq!(
            error.to_string(),
            "thread `t-1` belongs to another owner, so `bob` may not run in it, read its history or answer its pauses: start a new thread",
            "{name}: the refusal never names the owner"
        );
        let nobody = app.run("desk", "and me?").thread("t-1").await.unwrap_err();
        assert_eq!(nobody.code(), "thread.owner-mismatch", "{name}");
        assert_eq!(
            model.requests().len(),
            1,
            "{name}: refused before the model was asked, and before the history was read"
        );

        // The owner goes on with her thread, and reads her history.
        app.run("desk", "again")
            .thread("t-1")
            .owner("alice")
            .await
            .unwrap();
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "{name}");
        let history = format!("{:?}", requests[1].messages);
        assert!(history.contains("Hello, Alice."), "{name}: {history}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_first_runs_racing_in_a_new_thread_leave_one_owner() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        for round in 0..10 {
            let model = ScriptedModel::new([Turn::text("one"), Turn::text("two")]);
            let app = Arc::new(app(store.clone(), &model));
            let thread = format!("race-{round}");
            let runs = ["alice", "bob"].map(|owner| {
                let (app, thread) = (app.clone(), thread.clone());
                tokio::spawn(async move {
                    app.run("desk", "hi")
                        .thread(&thread)
                        .owner(owner)
                        .await
                        .map_err(|e| e.code())
                })
            });
            let mut taken = 0;
            let mut refused = 0;
            for run in runs {
                match run.await.unwrap() {
                    Ok(RunOutcome::Completed(_)) => taken += 1,
                    Err(code) if code == "thread.owner-mismatch" => refused += 1,
                    other => panic!("{name}: {other:?}"),
                }
            }
            assert_eq!((taken, refused), (1, 1), "{name}, round {round}");
            let owner = store.thread_owner(&thread).await.unwrap().unwrap();
            assert!(
                matches!(owner.owner(), Some("alice" | "bob")),
                "{name}: {owner:?}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_may_wait_for_its_owner_states_one_and_only_the_owner_answers() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in each_store().await {
        let model = ScriptedModel::new([
            Turn::call("note-save-tool", serde_json::json!({"text": "dentist"})),
            Turn::text("Saved."),
        ]);
        let app = app(store, &model);
        let error = app
            .run("desk", "save it")
            .agent("notes")
            .thread("t-2")
            .await
            .unwrap_err();
        assert_eq!(error.code(), "run.owner-required", "{name}");
        assert!(
            model.requests().is_empty(),
            "{name}: before the first model call"
        );

        let outcome = app
            .run("desk", "save it")
            .agent("notes")
            .thread("t-2")
            .owner("alice")
            .await
            .unwrap();
        let RunOutcome::Paused(paused) = outcome else {
            panic!("{name}: {outcome:?}");
        };
        let pause_id = &paused.pending[0].pause_id;
        let approve = ToolCallApprovalDecision::<NoteInput>::approve();
        let wrong = app
            .resume(Resume::decision(pause_id, &approve).answered_by("bob"))
            .await
            .unwrap_err();
        assert_eq!(wrong.code(), "pause.wrong-answerer", "{name}");
        let done = app
            .resume(Resume::decision(pause_id, &approve).answered_by("alice"))
            .await
            .unwrap();
        assert_eq!(done.text(), Some("Saved."), "{name}");
    }
}

#[test]
fn describe_says_which_agents_need_an_owner() {
    let model = ScriptedModel::new([]);
    let app = app(Arc::new(MemoryStore::new()), &model);
    let text = agboss::describe::text(&app);
    let notes = text
        .lines()
        .find(|l| l.trim_start().starts_with("notes"))
        .unwrap();
    assert!(
        notes.ends_with(" · needs an owner (note-approval-channel)"),
        "{notes}"
    );
    let helper = text
        .lines()
        .find(|l| l.trim_start().starts_with("helper"))
        .unwrap();
    assert!(!helper.contains("needs an owner"), "{helper}");
    let json = agboss::describe::json(&app);
    let agents = &json["workflows"][0]["agents"];
    assert_eq!(agents[0]["needsOwner"], false);
    assert_eq!(agents[1]["needsOwner"], true);
    assert_eq!(
        agents[1]["ownerRoles"],
        serde_json::json!(["note-approval-channel"])
    );
}
