//! 100,000 executions paused on SQLite, then resumed (issue "Approval channels, pauses and
//! resume in another process"). Each execution journals what the loop journals for one call
//! that waits for approval: `started`, the model's answer with the call, the pause opened and
//! its channel's "answer later". All of them stay paused while the process's resident memory and
//! the file's size are read. Then each is resumed as `Application::resume` does it in the store:
//! the pause looked up, the execution's record read, its events folded into a `LoopState`, and
//! the answer, the call's result and the run's end appended.
//!
//! `cargo bench -p agboss --bench pauses` runs 100,000 at `Durability::Full` (set
//! `AGBOSS_BENCH_DURABILITY=normal` for NORMAL, `AGBOSS_BENCH_EXECUTIONS` for another count);
//! `cargo test` runs it with 300, so it never rots. Executions run as 256 concurrent tasks,
//! each awaiting its appends one after another as the loop does; the store commits whatever
//! appends wait together (group commit).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use agboss::channel::PauseAnswerer;
use agboss::journal::{
    CallResult, LoopEvent, LoopState, PauseOpened, PauseResolution, PendingCall, STATE_VERSION,
};
use agboss::model::{Message, ToolCall, Usage};
use agboss::run::Answer;
use agboss::spend::Budgets;
use agboss::store::{Durability, SqliteOptions, SqliteStore, Store};
use agboss::units::Usd;

const TASKS: usize = 256;

fn started(id: &str) -> LoopEvent {
    LoopEvent::Started {
        version: STATE_VERSION,
        execution_id: id.to_owned(),
        workflow: "desk".into(),
        agent: "notes".into(),
        visit: 1,
        input: "Save a note: the meeting moved to Thursday".into(),
        thread: Some(format!("thread-{id}")),
        owner: Some("user-42".into()),
        tenant: Some("acme".into()),
        budgets: Budgets::none().tokens(50_000),
        history: Vec::new(),
        history_usage: Default::default(),
        history_cost: Default::default(),
        config_hash: None,
    }
}

const ARGUMENTS: &str = r#"{"title":"meeting","body":"the meeting moved to Thursday"}"#;

fn model_answered() -> LoopEvent {
    let call = ToolCall {
        provider_id: Some("call_Xk3v9Qw2".into()),
        name: "note-save-tool".into(),
        arguments: ARGUMENTS.into(),
    };
    LoopEvent::ModelAnswered {
        turn: 1,
        model: "openai/gpt-4o-mini".into(),
        message: Message::Assistant {
            text: None,
            tool_calls: vec![call.clone()],
            reasoning: Vec::new(),
        },
        calls: vec![PendingCall {
            call_id: "call-1".into(),
            call,
            position: 0,
            attempts: 0,
            result: None,
        }],
        counted_calls: 1,
        sealed: Vec::new(),
        usage: Usage {
            input_tokens: 412,
            output_tokens: 38,
        },
        cost: Usd::from_nanos(84_600),
    }
}

fn pause_opened(pause_id: &str, at_ms: u64) -> LoopEvent {
    LoopEvent::PauseOpened(PauseOpened {
        pause_id: pause_id.to_owned(),
        call_id: "call-1".into(),
        role: "note-approval-channel".into(),
        channel: "desk-approval-channel".into(),
        answered_by: PauseAnswerer::ThreadOwner,
        owner: Some("user-42".into()),
        question: serde_json::json!({
            "tool": "note-save-tool",
            "call_id": "call-1",
            "arguments": serde_json::from_str::<serde_json::Value>(ARGUMENTS).unwrap(),
        }),
        arguments_digest: "5f1c0f3e0d7a4a0c9e3b2f8d6a1b4c7e9f0a2d3c4b5e6f708192a3b4c5d6e7f8".into(),
        opened_at_ms: at_ms,
        expires_at_ms: None,
        attempt: 0,
        asked: None,
    })
}

fn resolved(pause_id: &str) -> LoopEvent {
    LoopEvent::PauseResolved {
        pause_id: pause_id.to_owned(),
        resolution: PauseResolution::Answered {
            answer: serde_json::json!({"decision": "approve"}),
            by: Some("user-42".into()),
            reply: None,
            reading: None,
        },
    }
}

/// The resident memory of this process, from /proc (0 where there is none).
fn resident_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn ids(i: usize) -> (String, String) {
    // Pause ids are 128 random bits in hex in the runtime; 32 hex digits here too.
    (
        format!("exec-{i:08}"),
        format!("{:032x}", i as u128 * 0x9E37_79B9_7F4A_7C15),
    )
}

/// Runs `work(i)` for every `i < n` on `TASKS` concurrent tasks; `sample` is called at each
/// quarter of the way.
async fn spread<F, Fut>(n: usize, work: F, sample: impl Fn(usize) + Send + Sync + 'static)
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let work = Arc::new(work);
    let sample = Arc::new(sample);
    let done = Arc::new(AtomicUsize::new(0));
    let tasks: Vec<_> = (0..TASKS.min(n))
        .map(|task| {
            let (work, sample, done) = (work.clone(), sample.clone(), done.clone());
            tokio::spawn(async move {
                for i in (task..n).step_by(TASKS) {
                    work(i).await;
                    let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if finished % (n / 4).max(1) == 0 {
                        sample(finished);
                    }
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.expect("a bench task");
    }
}

fn per_second(count: usize, took: Duration) -> f64 {
    count as f64 / took.as_secs_f64()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let n: usize = std::env::var("AGBOSS_BENCH_EXECUTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 100_000 } else { 300 });
    let durability = match std::env::var("AGBOSS_BENCH_DURABILITY").as_deref() {
        Ok("normal") => Durability::Normal,
        _ => Durability::Full,
    };
    let folder = std::env::temp_dir().join(format!("agboss-bench-pauses-{}", std::process::id()));
    let path = folder.join("pauses.db");
    let options = SqliteOptions::default().durability(durability);
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open_with(&path, options).await.unwrap());
    let before = resident_mb();
    println!("pauses: {n} executions on SQLite at {durability:?}, {TASKS} concurrent tasks");

    let start = Instant::now();
    let writer = store.clone();
    spread(
        n,
        move |i| {
            let store = writer.clone();
            async move {
                let (id, pause) = ids(i);
                let journal = [
                    started(&id),
                    model_answered(),
                    pause_opened(&pause, 1_700_000_000_000 + i as u64),
                    LoopEvent::PauseAwaiting {
                        pause_id: pause.clone(),
                    },
                ];
                for (seq, event) in journal.iter().enumerate() {
                    store.append(&id, seq as u64, event).await.unwrap();
                }
            }
        },
        |done| println!("  paused {done:>7}: resident {:.1} MB", resident_mb()),
    )
    .await;
    let paused_in = start.elapsed();
    let paused_rss = resident_mb();
    let size = |suffix: &str| {
        std::fs::metadata(format!("{}{suffix}", path.display())).map_or(0, |m| m.len())
    };
    let (file, wal) = (size(""), size("-wal"));
    let bytes = file + wal;
    let pending = store
        .open_pauses(&agboss::journal::PauseQuery {
            owner: Some("user-42".into()),
            limit: Some(10),
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(pending.len(), 10.min(n));

    let start = Instant::now();
    let resumer = store.clone();
    spread(
        n,
        move |i| {
            let store = resumer.clone();
            async move {
                let (id, pause) = ids(i);
                let record = store.pause(&pause).await.unwrap().expect("the pause");
                let execution = store
                    .execution(&record.execution_id)
                    .await
                    .unwrap()
                    .unwrap();
                assert!(execution.is_paused());
                let events = store.events(&id).await.unwrap();
                let state = LoopState::from_events(&events).unwrap();
                let rest = [
                    resolved(&pause),
                    LoopEvent::ToolFinished {
                        call_id: "call-1".into(),
                        content: serde_json::to_string(&CallResult {
                            content: "saved".into(),
                            is_error: false,
                            truncated: false,
                        })
                        .unwrap(),
                        is_error: false,
                        truncated: false,
                        spend: Vec::new(),
                        digest: None,
                    },
                    LoopEvent::Answered {
                        answer: Answer::Text("Saved the note.".into()),
                    },
                ];
                for (k, event) in rest.iter().enumerate() {
                    store
                        .append(&id, state.events + k as u64, event)
                        .await
                        .unwrap();
                }
            }
        },
        |_| {},
    )
    .await;
    let resumed_in = start.elapsed();
    let left = store
        .open_pauses(&agboss::journal::PauseQuery::default())
        .await
        .unwrap();
    assert!(left.is_empty(), "every pause answered");

    println!(
        "  pause phase: {} appends in {:.2} s: {:.0} appends/s",
        4 * n,
        paused_in.as_secs_f64(),
        per_second(4 * n, paused_in)
    );
    println!(
        "  resume phase: {n} resumes in {:.2} s: {:.0} resumes/s ({:.0} appends/s)",
        resumed_in.as_secs_f64(),
        per_second(n, resumed_in),
        per_second(3 * n, resumed_in)
    );
    println!(
        "  all paused: resident {paused_rss:.1} MB (at open {before:.1} MB); store {:.1} MB (file {:.1} MB + WAL {:.1} MB), {:.0} bytes per paused execution",
        bytes as f64 / 1e6,
        file as f64 / 1e6,
        wal as f64 / 1e6,
        bytes as f64 / n as f64
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&folder);
}
