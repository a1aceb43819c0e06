//! Paused executions resumed through real applications: `Application::resume` in the process
//! that answers, and answers journaled by one process (`Application::answer`) and taken up by
//! four worker instances sharing the store. Every execution runs an agent whose one tool waits
//! for its owner's approval: the model's answer, the pause, the answer, the call, the model's
//! last answer, as the loop journals them.
//!
//! `cargo bench -p agboss --bench resumes` runs 2,000 executions (`AGBOSS_BENCH_EXECUTIONS` for
//! another count) on an SQLite file at `Durability::Full`; with feature `postgres` and
//! `AGBOSS_BENCH_POSTGRES=<url>` of an empty database, on PostgreSQL (with group commit, or
//! without it with `AGBOSS_BENCH_GROUP_COMMIT=0`). `cargo test` runs it with
//! 60 on SQLite, so it never rots. `AGBOSS_BENCH_PROFILE_PAUSE=<seconds>` prints `WORKERS START`
//! and waits that long before the workers' phase, for a profile of that phase alone (reset
//! the server's `pg_stat_statements` then: docs/performance.md). `AGBOSS_BENCH_WORKER_PLACES`
//! sets how many executions each worker drives at once (16 by default);
//! `AGBOSS_BENCH_STORE_PER_WORKER=1` gives each worker a store of its own, as separate processes
//! have, instead of the one the answering application uses.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::channel::ChannelAsk;
use agboss::context::Signal;
use agboss::model::{ChatFuture, ChatModel, ChatRequest, ChatResponse, Message, ToolCall};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{SqliteStore, Store};
use agboss::{Application, Resume, Workflow};

/// A note to save.
#[dto]
pub struct Note {
    /// Its text.
    pub text: String,
}

/// The thread's owner approves each note.
#[channel_role(name = "note-approval-channel", approves = Note, answered_by = ThreadOwner)]
pub struct NoteApproval;

/// Asks the owner; the answer comes later.
#[channel(name = "owner-inbox-channel")]
pub struct OwnerInbox;

impl ChannelHandler for OwnerInbox {
    type Role = NoteApproval;

    async fn send(
        &self,
        _: ChannelAsk<NoteApproval>,
    ) -> Result<ChannelOutcome<NoteApproval>, ToolError> {
        Ok(ChannelOutcome::await_reply())
    }
}

/// Saves a note, once approved.
#[tool(name = "note-save-tool", channel = NoteApproval)]
pub struct SaveNote;

impl ToolHandler for SaveNote {
    type Input = Note;
    type Output = PlainText;

    async fn run(&self, input: Note) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("saved: {}", input.text)))
    }
}

/// Saves notes.
#[agent(name = "notes", prompt = "../../../tests/prompts/helper.prompt.md", model = "bench/notes", tools = [SaveNote])]
pub struct Notes;

/// Asks to save a note until a result is in the conversation, then answers.
struct NotesModel;

impl ChatModel for NotesModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        let saved = request
            .messages
            .iter()
            .any(|m| matches!(m, Message::Tool { .. }));
        let response = if saved {
            ChatResponse {
                text: Some("Saved.".into()),
                ..ChatResponse::default()
            }
        } else {
            ChatResponse {
                tool_calls: vec![ToolCall {
                    provider_id: Some("call_1".into()),
                    name: "note-save-tool".into(),
                    arguments: r#"{"text": "the meeting moved to Thursday"}"#.into(),
                }],
                ..ChatResponse::default()
            }
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn app(store: &Arc<dyn Store>, instance: &str) -> Arc<Application> {
    Arc::new(
        Application::builder("notes")
            .workflow(Workflow::new("desk").agent::<Notes>())
            .channel::<OwnerInbox>()
            .chat_model(Arc::new(NotesModel))
            .store(store.clone())
            .instance(instance)
            .build()
            .unwrap(),
    )
}

/// Runs `n` executions until they pause, 64 at a time; their pause ids.
async fn pause_all(app: &Arc<Application>, prefix: &str, n: usize) -> Vec<String> {
    let mut pauses = Vec::with_capacity(n);
    for chunk in (0..n).collect::<Vec<_>>().chunks(64) {
        let tasks: Vec<_> = chunk
            .iter()
            .map(|i| {
                let (app, id) = (app.clone(), format!("{prefix}-{i}"));
                tokio::spawn(async move {
                    let outcome = app
                        .run("desk", "Save: the meeting moved to Thursday")
                        .execution_id(&id)
                        .owner("user-42")
                        .await
                        .unwrap();
                    let RunOutcome::Paused(paused) = outcome else {
                        panic!("{outcome:?}")
                    };
                    paused.pending[0].pause_id.clone()
                })
            })
            .collect();
        for task in tasks {
            pauses.push(task.await.unwrap());
        }
    }
    pauses
}

fn approve(pause_id: &str) -> Resume {
    Resume::decision(pause_id, ToolCallApprovalDecision::<Note>::approve()).answered_by("user-42")
}

/// The store to measure: PostgreSQL when `AGBOSS_BENCH_POSTGRES` names a database, else an
/// SQLite file in `folder`.
async fn open(folder: &std::path::Path) -> (Arc<dyn Store>, &'static str) {
    #[cfg(feature = "postgres")]
    if let Ok(url) = std::env::var("AGBOSS_BENCH_POSTGRES") {
        // `AGBOSS_BENCH_GROUP_COMMIT=0`: each append commits alone, for a comparison.
        let grouped = std::env::var("AGBOSS_BENCH_GROUP_COMMIT").map_or(true, |v| v != "0");
        let options = agboss::store::PostgresOptions::default().group_commit(grouped);
        let store = agboss::store::PostgresStore::connect_with(&url, options)
            .await
            .unwrap();
        let name = if grouped {
            "PostgreSQL"
        } else {
            "PostgreSQL (each append alone)"
        };
        return (Arc::new(store), name);
    }
    let store = SqliteStore::open(folder.join("resumes.db")).await.unwrap();
    (Arc::new(store), "SQLite (Durability::Full)")
}

fn per_second(n: usize, took: Duration) -> f64 {
    n as f64 / took.as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let testing = !std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("AGBOSS_BENCH_EXECUTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if testing { 60 } else { 2_000 });
    let folder = std::env::temp_dir().join(format!("agboss-bench-resumes-{}", std::process::id()));
    let (store, which) = open(&folder).await;
    let answering = app(&store, "answering");

    // Paused, then resumed by the process that answers, 32 answers at a time.
    let started = Instant::now();
    let pauses = pause_all(&answering, "here", n).await;
    let paused_took = started.elapsed();
    let started = Instant::now();
    for chunk in pauses.chunks(32) {
        let tasks: Vec<_> = chunk
            .iter()
            .map(|p| {
                let (app, p) = (answering.clone(), p.clone());
                tokio::spawn(async move { app.resume(approve(&p)).await.unwrap() })
            })
            .collect();
        for task in tasks {
            assert!(task.await.unwrap().completed().is_some());
        }
    }
    let resumed_took = started.elapsed();

    // Paused; answered by one process that only takes answers; driven on by four workers.
    let pauses = pause_all(&answering, "workers", n).await;
    for chunk in pauses.chunks(64) {
        let tasks: Vec<_> = chunk
            .iter()
            .map(|p| {
                let (app, p) = (answering.clone(), p.clone());
                tokio::spawn(async move { app.answer(approve(&p)).await.unwrap() })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    }
    if let Ok(pause) = std::env::var("AGBOSS_BENCH_PROFILE_PAUSE") {
        println!("WORKERS START");
        tokio::time::sleep(Duration::from_secs(pause.parse().unwrap())).await;
    }
    let places: usize = std::env::var("AGBOSS_BENCH_WORKER_PLACES")
        .map_or(16, |places| places.parse().expect("a number of places"));
    // `AGBOSS_BENCH_STORE_PER_WORKER=1`: each worker opens the store for itself (its own
    // connections and commit queue), as four instances in four processes would.
    let mut stores = Vec::new();
    for _ in 0..4 {
        stores.push(match std::env::var_os("AGBOSS_BENCH_STORE_PER_WORKER") {
            Some(_) => open(&folder).await.0,
            None => store.clone(),
        });
    }
    let started = Instant::now();
    let workers: Vec<_> = stores
        .iter()
        .enumerate()
        .map(|(w, store)| {
            let app = app(store, &format!("worker-{w}"));
            tokio::spawn(async move {
                app.worker()
                    .concurrency(places)
                    .until_idle()
                    .run(Signal::new())
                    .await
            })
        })
        .collect();
    let mut completed = 0;
    let mut shares = Vec::new();
    for worker in workers {
        let report = worker.await.unwrap();
        completed += report.completed;
        shares.push(report.completed);
    }
    let workers_took = started.elapsed();
    assert_eq!(completed, n, "every answered execution completed once");

    println!("{n} executions on {which}, each: a call that waits for approval");
    println!(
        "  paused through Application::run: {:.0}/s",
        per_second(n, paused_took)
    );
    println!(
        "  resumed through Application::resume (32 at once): {:.0}/s",
        per_second(n, resumed_took)
    );
    println!(
        "  answered with Application::answer, driven on by 4 workers ({places} each): {:.0}/s (shares {shares:?})",
        per_second(n, workers_took)
    );
    drop(store);
    drop(answering);
    let _ = std::fs::remove_dir_all(&folder);
}
