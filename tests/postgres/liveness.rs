//! Liveness on PostgreSQL (docs/durability.md, "Liveness"), in one process: the leases of a
//! store whose session ended are taken over at once; those written before the server restarted
//! or recovered from a crash (which end every session, while their instances may run on) last
//! their ttl until their holder renews them.

use std::time::{Duration, Instant};

use agboss::store::{Journal, Leases, PostgresStore, StoreErrorKind};
use pg_server::{PrivateServer, query_texts};

use super::{LONG, connect, started};

/// Claims `id` for `holder` on `store` as soon as it can, within a few seconds (the server sees
/// a closed session end in a moment).
async fn taken_soon(store: &PostgresStore, id: &str, holder: &str) -> agboss::store::Lease {
    let since = Instant::now();
    loop {
        if let Some(lease) = store.acquire(id, holder, LONG).await.unwrap() {
            return lease;
        }
        assert!(
            since.elapsed() < Duration::from_secs(5),
            "a gone holder's lease is taken over at once, not when its hour runs out"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_stores_leases_are_taken_over_at_once_and_its_writes_fenced() {
    let database = tokio::task::block_in_place(pg_server::fresh_database);
    let a = connect(database.url()).await;
    let b = connect(database.url()).await;
    let held = a.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    a.append_as("e-1", 0, &started("e-1"), held.fence())
        .await
        .unwrap();
    assert_eq!(b.acquire("e-1", "b", LONG).await.unwrap(), None);
    assert!(b.lease("e-1").await.unwrap().unwrap().live);
    assert!(b.claim("b", LONG, 5).await.unwrap().is_empty());
    drop(a);
    let taken = taken_soon(&b, "e-1", "b").await;
    assert_eq!(taken.epoch, 2);
    // Whatever a store concluded, the epoch fences the holder it took the lease from.
    let late = b
        .append_as("e-1", 1, &started("e-1"), held.fence())
        .await
        .unwrap_err();
    assert_eq!(late.kind, StoreErrorKind::Fenced, "{late}");
    assert_eq!(
        b.renew(&held).await.unwrap_err().kind,
        StoreErrorKind::Fenced
    );
}

/// The backend process of one session on the server at `url`: a crash of it makes the server
/// recover from a crash (every session ends, the server's start stays).
fn crash_a_backend(url: &str) {
    let pid = query_texts(
        url,
        "SELECT pid::text FROM pg_stat_activity WHERE backend_type = 'client backend' \
         AND pid <> pg_backend_pid() LIMIT 1",
    )
    .unwrap()
    .remove(0)
    .unwrap();
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid])
        .status()
        .unwrap();
    assert!(killed.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leases_of_a_server_that_restarted_or_crashed_last_their_ttl_until_renewed() {
    let mut server = tokio::task::block_in_place(PrivateServer::new);
    let database = tokio::task::block_in_place(|| server.fresh_database());
    let url = database.url().to_owned();
    for (n, how) in ["restart", "crash"].into_iter().enumerate() {
        let id = format!("e-{n}");
        let a = connect(&url).await;
        let held = a.acquire(&id, "a", LONG).await.unwrap().unwrap();
        match how {
            "restart" => tokio::task::block_in_place(|| server.restart()),
            _ => {
                const RESET: &str = "SELECT stats_reset::text FROM pg_stat_bgwriter";
                let before = query_texts(&url, RESET).unwrap();
                tokio::task::block_in_place(|| crash_a_backend(&url));
                // The server ends every session and recovers (which resets its statistics),
                // then takes connections again.
                let since = Instant::now();
                while !matches!(query_texts(&url, RESET), Ok(now) if now != before) {
                    assert!(since.elapsed() < Duration::from_secs(30), "never back");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
        // A's session ended with the others, but A may run on: its lease lasts its ttl.
        let b = connect(&url).await;
        assert_eq!(b.acquire(&id, "b", LONG).await.unwrap(), None, "{how}");
        assert!(b.lease(&id).await.unwrap().unwrap().live, "{how}");
        // A renews (its session opened again first): its lease names this life of the server,
        // and goes at once once A is gone.
        let since = Instant::now();
        while let Err(e) = a.renew(&held).await {
            assert_eq!(e.kind, StoreErrorKind::Unavailable, "{how}: {e}");
            assert!(since.elapsed() < Duration::from_secs(10), "{how}: {e}");
        }
        assert_eq!(b.acquire(&id, "b", LONG).await.unwrap(), None, "{how}");
        drop(a);
        let taken = taken_soon(&b, &id, "b").await;
        assert_eq!(taken.epoch, 2, "{how}");
    }
}

/// The backend whose session holds the liveness lock written into `execution_id`'s lease.
fn liveness_backend(url: &str, execution_id: &str) -> String {
    let sql = format!(
        "SELECT k.pid::text FROM pg_locks k JOIN leases l ON l.execution_id = '{execution_id}' \
         WHERE k.locktype = 'advisory' AND k.objsubid = 1 AND k.granted \
         AND k.classid = ((l.holder_lock >> 32) & 4294967295)::oid \
         AND k.objid = (l.holder_lock & 4294967295)::oid"
    );
    let mut pids = query_texts(url, &sql).unwrap();
    assert_eq!(
        pids.len(),
        1,
        "one session holds the key of {execution_id}'s lease"
    );
    pids.remove(0).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_whose_session_the_server_ended_loses_its_leases_at_once_and_holds_new_ones() {
    let database = tokio::task::block_in_place(pg_server::fresh_database);
    let url = database.url().to_owned();
    let a = connect(&url).await;
    let b = connect(&url).await;
    let held = a.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    let backend = liveness_backend(&url, "e-1");
    // An administrator ends A's liveness session; A runs on.
    let ended = query_texts(
        &url,
        &format!("SELECT pg_terminate_backend({backend})::text"),
    )
    .unwrap()
    .remove(0);
    assert_eq!(ended.as_deref(), Some("true"));
    // A counts as gone: B takes its lease over at once, and A's writes under it are fenced.
    let taken = taken_soon(&b, "e-1", "b").await;
    assert_eq!(taken.epoch, held.epoch + 1);
    let late = a
        .append_as("e-1", 0, &started("e-1"), held.fence())
        .await
        .unwrap_err();
    assert_eq!(late.kind, StoreErrorKind::Fenced, "{late}");
    // Once A has seen its session end, its next claim opens it again: the lease it writes
    // holds while A lives, and goes at once when A does. (One written before A saw the end
    // names no session, and lasts its ttl: given back, and claimed again.)
    let since = Instant::now();
    let again = loop {
        let lease = a.acquire("e-2", "a", LONG).await.unwrap().unwrap();
        let named = query_texts(
            &url,
            "SELECT (holder_lock IS NOT NULL)::text FROM leases WHERE execution_id = 'e-2'",
        )
        .unwrap()
        .remove(0);
        if named.as_deref() == Some("true") {
            break lease;
        }
        a.release(&lease).await.unwrap();
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "A never saw its session end"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_ne!(
        liveness_backend(&url, "e-2"),
        backend,
        "a new session holds the key"
    );
    assert_eq!(b.acquire("e-2", "b", LONG).await.unwrap(), None);
    assert!(b.lease("e-2").await.unwrap().unwrap().live);
    drop(a);
    let taken = taken_soon(&b, "e-2", "b").await;
    assert_eq!(taken.epoch, again.epoch + 1);
}
