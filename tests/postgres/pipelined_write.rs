//! An append's writes and its `COMMIT` go to the server in one pipeline: when the write fails,
//! the server refuses what follows it as part of a failed transaction. The append is decided
//! by the write's own failure, not by one of those refusals.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::store::{Fence, Journal, Leases, StoreErrorKind};
use tokio_postgres::NoTls;

use super::{LONG, connect, started_in, texts};

/// Whether a session of the database of `url` other than the asker's waits for a row lock.
fn someone_waits_for_a_lock(url: &str) -> bool {
    let sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
         AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()";
    texts(url, sql)[0] != "0"
}

/// Another writer starts execution `x` while an append that would start it too, and end its
/// claim with that commit, is checked. The append's insert waits for the other's row and
/// fails on its key once the other commits, with the claim's release and the `COMMIT` behind
/// it in the pipeline. A key taken meanwhile is worth another try, which finds what the other
/// wrote: the append is told its first event conflicts with the one there, and its claim is
/// kept. (Decided by the refusal of the release instead, it was told the store failed, and
/// grouped appends went one by one: the group-commit storm caught that under load.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_whose_write_fails_in_its_pipeline_is_decided_by_that_failure() {
    let database = tokio::task::block_in_place(pg_server::fresh_database);
    let url = database.url().to_owned();
    let store = Arc::new(connect(&url).await);
    // An execution as the store writes it, for the other writer to copy as `x`.
    let model = started_in("model", "t-other", None);
    store
        .append_as("model", 0, &model, Fence::Unfenced)
        .await
        .unwrap();
    let lease = store.acquire("x", "w", LONG).await.unwrap().unwrap();

    let (other, connection) = tokio_postgres::connect(&url, NoTls).await.unwrap();
    tokio::spawn(connection);
    other
        .batch_execute(
            "BEGIN; \
             INSERT INTO agboss.executions (execution_id, thread_id, runnable, record) \
             SELECT 'x', thread_id, runnable, replace(record, '\"model\"', '\"x\"') \
             FROM agboss.executions WHERE execution_id = 'model'; \
             INSERT INTO agboss.events (execution_id, seq, event, epoch) \
             SELECT 'x', seq, replace(event, '\"model\"', '\"x\"'), epoch \
             FROM agboss.events WHERE execution_id = 'model'",
        )
        .await
        .unwrap();
    let appending = {
        let (store, lease) = (Arc::clone(&store), lease.clone());
        let first = started_in("x", "t-x", None);
        tokio::spawn(async move { store.append_releasing(&lease, 0, &first).await })
    };
    let since = Instant::now();
    while !tokio::task::block_in_place(|| someone_waits_for_a_lock(&url)) {
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "the append never waited for the other writer's row"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    other.batch_execute("COMMIT").await.unwrap();

    let refused = appending.await.unwrap().expect_err("seq 0 of `x` is taken");
    assert_eq!(refused.kind, StoreErrorKind::Conflict, "{refused}");
    // Nothing of it was written: the other writer's event stands, and the claim is still held.
    let events = texts(
        &url,
        "SELECT event FROM agboss.events WHERE execution_id = 'x'",
    );
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(events[0].contains("\"t-other\""), "{events:?}");
    let held = store.lease("x").await.unwrap().expect("x's lease");
    assert!(held.live, "{held:?}");
    assert_eq!(held.holder.as_deref(), Some("w"));
}
