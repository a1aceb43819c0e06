//! Journal appends per second on PostgreSQL and on SQLite, for the same workload, in one run.
//!
//! Each execution journals a small run as the loop does, one append after the other, each
//! awaited before the next: `started`, the model's answer with two calls, both calls' results,
//! the answer (5 appends). `tasks` executions run at once, for several values of `tasks`; each
//! store is fresh for each: `SqliteStore` in a temporary file at `Durability::Full` (every
//! commit synced), `PostgresStore` on a database of its own on the tests' server (pg-server:
//! `fsync` and `synchronous_commit` on, every commit synced), with its default 8 connections
//! and with 32.
//!
//! `cargo bench -p agboss-tests --bench journal-appends` runs 1,000 executions per row at 1, 16,
//! 64 and 256 tasks (`AGBOSS_BENCH_EXECUTIONS` for another count, `AGBOSS_BENCH_TASKS=1,64` for
//! other rows); `cargo test` runs it with 24, so it never rots.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::journal::LoopEvent;
use agboss::store::{
    Durability, PostgresOptions, PostgresStore, SqliteOptions, SqliteStore, Store,
};
use agboss::testing::conformance::events::{answered, model_answered, started, tool_finished};

/// A small run's journal, as the loop appends it.
fn journal(id: &str) -> Vec<LoopEvent> {
    vec![
        started(id, Some("bench-thread"), Some("user-42")),
        model_answered(1, &["c-1", "c-2"]),
        tool_finished("c-1"),
        tool_finished("c-2"),
        answered("Saved both notes."),
    ]
}

/// Appends the journals of `executions` executions on `tasks` concurrent tasks; how long it
/// took.
async fn run(store: Arc<dyn Store>, executions: usize, tasks: usize) -> Duration {
    let mut fences = Vec::with_capacity(executions);
    for i in 0..executions {
        let id = format!("exec-{i:07}");
        let lease = store.acquire(&id, "bench", Duration::from_secs(600)).await;
        let lease = lease
            .unwrap_or_else(|e| panic!("{e}"))
            .expect("a free lease");
        fences.push(lease.fence());
    }
    let fences = Arc::new(fences);
    let began = Instant::now();
    let workers: Vec<_> = (0..tasks.min(executions))
        .map(|task| {
            let store = Arc::clone(&store);
            let fences = Arc::clone(&fences);
            tokio::spawn(async move {
                for i in (task..executions).step_by(tasks) {
                    let id = format!("exec-{i:07}");
                    for (seq, event) in journal(&id).iter().enumerate() {
                        store
                            .append_as(&id, seq as u64, event, fences[i])
                            .await
                            .unwrap_or_else(|e| panic!("{e}"));
                    }
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a bench task");
    }
    let took = began.elapsed();
    let last = format!("exec-{:07}", executions - 1);
    assert_eq!(store.events(&last).await.unwrap(), journal(&last));
    took
}

async fn sqlite(executions: usize, tasks: usize) -> Duration {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let options = SqliteOptions::default().durability(Durability::Full);
    let store = SqliteStore::open_with(folder.path().join("bench.db"), options)
        .await
        .unwrap();
    run(Arc::new(store), executions, tasks).await
}

async fn postgres(executions: usize, tasks: usize, grouped: bool) -> Duration {
    let database = tokio::task::spawn_blocking(pg_server::fresh_database)
        .await
        .unwrap();
    let options = PostgresOptions::default().group_commit(grouped);
    let store = PostgresStore::connect_with(database.url(), options)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let took = run(Arc::new(store), executions, tasks).await;
    tokio::task::spawn_blocking(move || drop(database))
        .await
        .unwrap();
    took
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let full = std::env::args().any(|a| a == "--bench");
    let executions: usize = std::env::var("AGBOSS_BENCH_EXECUTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 1_000 } else { 24 });
    let levels: Vec<usize> = match std::env::var("AGBOSS_BENCH_TASKS") {
        Ok(tasks) => tasks
            .split(',')
            .filter_map(|t| t.trim().parse().ok())
            .collect(),
        Err(_) if full => vec![1, 16, 64, 256],
        Err(_) => vec![1, 8],
    };
    let appends = 5 * executions;
    println!(
        "journal appends: {executions} executions x 5 appends per row, every commit synced; \
         load average {}",
        load()
    );
    println!(
        "{:>6} | {:>16} | {:>18} | {:>18} | {:>15} | {:>14}",
        "tasks",
        "sqlite (Full)",
        "postgres, alone",
        "postgres, grouped",
        "grouped/alone",
        "grouped/sqlite"
    );
    for &tasks in &levels {
        let per_second = |took: Duration| appends as f64 / took.as_secs_f64();
        let lite = per_second(sqlite(executions, tasks).await);
        let alone = per_second(postgres(executions, tasks, false).await);
        let grouped = per_second(postgres(executions, tasks, true).await);
        println!(
            "{tasks:>6} | {lite:>13.0} /s | {alone:>15.0} /s | {grouped:>15.0} /s | {:>14.2}x | {:>13.2}x",
            grouped / alone,
            grouped / lite
        );
    }
    println!("load average after: {}", load());
}
