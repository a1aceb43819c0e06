//! What only the PostgreSQL store has: its schema (migrated once by instances connecting at
//! once, refused when it is not one it can read), a server that goes away and comes back,
//! connections cut on the way, instances claiming work at once, and a commit whose
//! acknowledgement is lost. What every store does is in the conformance suite
//! (test_store_conformance.rs).
//!
//! The servers come from pg-server: the tests' shared server (started on first use, or
//! `AGBOSS_PG_URL`) with a database per test, and private servers for the tests that stop one.

mod store_common;

#[path = "postgres/liveness.rs"]
mod liveness;
#[path = "postgres/pipelined_write.rs"]
mod pipelined_write;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use store_common::{answered, started, started_in, texts};

use agboss::store::{Journal, Leases, PostgresOptions, PostgresStore, StoreErrorKind};
use pg_server::{PrivateServer, Proxy, execute, fresh_database};

const LONG: Duration = Duration::from_secs(3_600);

async fn connect(url: &str) -> PostgresStore {
    PostgresStore::connect(url)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_connecting_at_once_to_a_new_database_migrate_it_once() {
    let database = fresh_database();
    let connecting: Vec<_> = (0..8)
        .map(|_| {
            let url = database.url().to_owned();
            tokio::spawn(async move { PostgresStore::connect(&url).await })
        })
        .collect();
    let mut stores = Vec::new();
    for connection in connecting {
        stores.push(connection.await.unwrap().unwrap_or_else(|e| panic!("{e}")));
    }
    assert_eq!(
        texts(
            database.url(),
            "SELECT version FROM agboss.migrations ORDER BY version"
        ),
        ["1", "2", "3", "4", "5", "6"],
        "each migration, applied once"
    );
    let tables = texts(
        database.url(),
        "SELECT tablename FROM pg_tables WHERE schemaname = 'agboss' ORDER BY tablename",
    );
    assert_eq!(
        tables,
        [
            "artifacts",
            "events",
            "executions",
            "leases",
            "mcp_pins",
            "migrations",
            "pauses",
            "sealed_arguments",
            "threads"
        ]
    );
    stores[0].append("e-1", 0, &started("e-1")).await.unwrap();
    assert_eq!(stores[7].events("e-1").await.unwrap(), [started("e-1")]);
    assert_eq!(stores[3].schema(), "agboss");
    // Connecting again migrates nothing and keeps what was there.
    drop(stores);
    let store = connect(database.url()).await;
    assert_eq!(store.events("e-1").await.unwrap(), [started("e-1")]);
    assert_eq!(
        texts(database.url(), "SELECT count(*) FROM agboss.migrations"),
        ["6"]
    );
}

/// A schema of version 1 (threads had no owners) is migrated on connect: each thread gets the
/// owner of its first execution, in start order, even where a later run of it named another
/// (which version 1 took); later runs are checked against it.
#[tokio::test]
async fn a_store_of_schema_1_gives_each_thread_the_owner_of_its_first_execution() {
    let database = fresh_database();
    let store = connect(database.url()).await;
    store_common::three_threads(&store).await;
    drop(store);
    // What version 1 held: no threads table, and a later run of `t-1` by another owner.
    execute(
        database.url(),
        r#"INSERT INTO agboss.executions (execution_id, thread_id, runnable, record)
           SELECT 'e-9', thread_id, runnable,
                  replace(replace(record, '"e-2"', '"e-9"'), '"ann"', '"bob"')
           FROM agboss.executions WHERE execution_id = 'e-2';
           DROP TABLE agboss.threads;
           DROP TABLE agboss.artifacts;
           DROP TABLE agboss.mcp_pins;
           DROP TABLE agboss.sealed_arguments;
           ALTER TABLE agboss.leases DROP COLUMN holder_lock, DROP COLUMN holder_server_start,
               DROP COLUMN holder_stats_reset;
           DELETE FROM agboss.migrations WHERE version >= 2"#,
    )
    .unwrap();
    let store = connect(database.url()).await;
    assert_eq!(
        texts(database.url(), "SELECT max(version) FROM agboss.migrations"),
        ["6"]
    );
    store_common::owners_after_migration(&store).await;
}

#[tokio::test]
async fn a_store_of_a_newer_schema_is_refused_naming_the_database() {
    let database = fresh_database();
    let endpoint = connect(database.url()).await.endpoint().to_owned();
    execute(
        database.url(),
        "INSERT INTO agboss.migrations (version) VALUES (8)",
    )
    .unwrap();
    let error = PostgresStore::connect(database.url()).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid);
    assert_eq!(
        error.to_string(),
        format!(
            "store `postgres`: cannot open the store in database `{}` at {endpoint}: its store \
             schema is version 8, newer than the 6 this build knows: connect with a newer agboss",
            database.name()
        )
    );
}

#[tokio::test]
async fn another_programs_schema_is_refused_and_left_alone_and_others_are_apart() {
    let database = fresh_database();
    execute(
        database.url(),
        "CREATE SCHEMA agboss; CREATE TABLE agboss.notes (body text)",
    )
    .unwrap();
    let error = PostgresStore::connect(database.url()).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid);
    assert!(
        error.detail.ends_with(
            "its schema `agboss` holds tables that are not an agboss store's; name another \
             schema in PostgresOptions"
        ),
        "{error}"
    );
    let tables = texts(
        database.url(),
        "SELECT tablename FROM pg_tables WHERE schemaname = 'agboss'",
    );
    assert_eq!(tables, ["notes"], "not migrated");

    // Two stores in two schemas of one database keep apart.
    let options = |schema: &str| PostgresOptions::default().schema(schema);
    let desk = PostgresStore::connect_with(database.url(), options("desk"))
        .await
        .unwrap();
    let refunds = PostgresStore::connect_with(database.url(), options("refunds"))
        .await
        .unwrap();
    desk.append("e-1", 0, &started("e-1")).await.unwrap();
    assert_eq!(refunds.events("e-1").await.unwrap(), []);
    refunds.append("e-1", 0, &started("e-1")).await.unwrap();
    assert_eq!(desk.schema(), "desk");

    // An empty schema made for the store (by an administrator, say) is taken.
    execute(database.url(), "CREATE SCHEMA granted").unwrap();
    PostgresStore::connect_with(database.url(), options("granted"))
        .await
        .unwrap();
}

#[tokio::test]
async fn a_url_or_schema_the_store_cannot_take_is_invalid() {
    let cases = [
        (
            "postgres://a@h:notaport/db",
            "agboss",
            "the URL is not a PostgreSQL URL",
        ),
        ("postgres:///db", "agboss", "the URL names no host"),
        (
            "postgres://a@127.0.0.1/db?sslmode=require",
            "agboss",
            "the URL asks for TLS (sslmode), which the store does not support yet",
        ),
        (
            "postgres://a@127.0.0.1/db",
            "Desk",
            "`Desk` is not a schema name",
        ),
        (
            "postgres://a@127.0.0.1/db",
            "1desk",
            "`1desk` is not a schema name",
        ),
    ];
    for (url, schema, starts) in cases {
        let options = PostgresOptions::default().schema(schema);
        let error = PostgresStore::connect_with(url, options).await.unwrap_err();
        assert_eq!(error.kind, StoreErrorKind::Invalid, "{error}");
        assert!(error.detail.starts_with(starts), "{url}: {error}");
    }
}

#[tokio::test]
async fn an_id_postgresql_text_cannot_hold_is_invalid_and_changes_nothing() {
    let database = fresh_database();
    let store = connect(database.url()).await;
    let id = "e-\0-1";
    let error = store.append(id, 0, &started(id)).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid, "{error}");
    assert!(error.detail.contains("(22021)"), "{error}");
    assert_eq!(
        texts(database.url(), "SELECT count(*) FROM agboss.events"),
        ["0"]
    );
    store.append("e-1", 0, &started("e-1")).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_goes_away_is_unavailable_and_the_store_works_again_when_it_is_back() {
    let mut server = PrivateServer::new();
    let database = server.fresh_database();
    let store = connect(database.url()).await;
    let endpoint = server.addr().to_string();
    assert_eq!(store.endpoint(), endpoint);
    store.append("e-1", 0, &started("e-1")).await.unwrap();

    tokio::task::block_in_place(|| server.stop());
    for attempt in [
        store.append("e-1", 1, &answered("late")).await.map(|_| ()),
        store.events("e-1").await.map(|_| ()),
        store.claim("w", LONG, 10).await.map(|_| ()),
    ] {
        let error = attempt.unwrap_err();
        assert_eq!(error.kind, StoreErrorKind::Unavailable, "{error}");
        assert!(
            error.detail.starts_with(&format!(
                "cannot connect to PostgreSQL at {endpoint}: error connecting to server: "
            )),
            "{error}"
        );
        assert!(
            error
                .detail
                .ends_with("is the server running and taking TCP connections there? Check the host and port in the URL"),
            "{error}"
        );
    }
    let refused = PostgresStore::connect(database.url()).await.unwrap_err();
    assert_eq!(refused.kind, StoreErrorKind::Unavailable);
    assert!(refused.detail.contains(&endpoint), "{refused}");

    tokio::task::block_in_place(|| server.start());
    store.append("e-1", 1, &answered("ok")).await.unwrap();
    assert_eq!(store.events("e-1").await.unwrap().len(), 2);

    // A restart while the store is idle: its connections are dead, the next operation makes
    // new ones without a word.
    for i in 0..4 {
        store.execution(&format!("e-{i}")).await.unwrap();
    }
    tokio::task::block_in_place(|| server.restart());
    assert_eq!(
        store.events("e-1").await.unwrap(),
        [started("e-1"), answered("ok")]
    );
    store.append("e-2", 0, &started("e-2")).await.unwrap();

    // Stopped with operations running: each fails or finishes, none panics or hangs, and the
    // store works again after.
    let store = Arc::new(store);
    let running: Vec<_> = (0..16)
        .map(|i| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let id = format!("r-{i}");
                for seq in 0..50u64 {
                    let event = if seq == 0 {
                        started(&id)
                    } else {
                        answered("x")
                    };
                    if let Err(e) = store.append(&id, seq, &event).await {
                        return Some(e.kind);
                    }
                    if seq == 1 {
                        // An answered execution takes no more events: read instead.
                        loop {
                            if let Err(e) = store.events(&id).await {
                                return Some(e.kind);
                            }
                        }
                    }
                }
                None
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    tokio::task::block_in_place(|| server.stop());
    let mut failures = HashSet::new();
    for task in running {
        failures.insert(task.await.unwrap());
    }
    assert_eq!(failures, HashSet::from([Some(StoreErrorKind::Unavailable)]));
    tokio::task::block_in_place(|| server.start());
    store.append("e-3", 0, &started("e-3")).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_cut_refused_or_held_on_the_way_are_reported_and_made_again() {
    let database = fresh_database();
    let proxy = Proxy::new(pg_server::addr_of(database.url()));
    let options = PostgresOptions {
        connect_timeout: Duration::from_millis(500),
        ..PostgresOptions::default()
    };
    let store = PostgresStore::connect_with(&proxy.url(database.url()), options)
        .await
        .unwrap();
    let endpoint = proxy.addr().to_string();
    store.append("e-1", 0, &started("e-1")).await.unwrap();
    let made = proxy.accepted();

    // Cut while idle: the next operation finds its connection dead and makes a new one.
    proxy.drop_connections();
    store.append("e-1", 1, &answered("ok")).await.unwrap();
    assert_eq!(proxy.accepted(), made + 1, "one new connection");

    // Refused: unavailable, naming where, until the network lets it through again.
    proxy.refuse_for(LONG);
    proxy.drop_connections();
    let error = store.events("e-1").await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Unavailable);
    assert!(
        error
            .detail
            .starts_with(&format!("cannot connect to PostgreSQL at {endpoint}: ")),
        "{error}"
    );
    proxy.refuse_for(Duration::ZERO);
    assert_eq!(store.events("e-1").await.unwrap().len(), 2);

    // Held without an answer: the connect timeout, not a hang.
    proxy.block();
    proxy.drop_connections();
    let began = Instant::now();
    let error = store.execution("e-1").await.unwrap_err();
    assert!(
        began.elapsed() < Duration::from_secs(5),
        "{:?}",
        began.elapsed()
    );
    assert_eq!(
        (error.kind, error.detail),
        (
            StoreErrorKind::Unavailable,
            format!(
                "cannot connect to PostgreSQL at {endpoint}: no answer within 500ms: is the \
                 server up, and reachable from here?"
            )
        )
    );
    proxy.unblock();
    assert_eq!(store.execution("e-1").await.unwrap().unwrap().events, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operation_the_server_does_not_answer_in_time_is_given_up() {
    let database = fresh_database();
    let options = PostgresOptions {
        operation_timeout: Duration::from_millis(500),
        ..PostgresOptions::default()
    };
    let store = PostgresStore::connect_with(database.url(), options)
        .await
        .unwrap();
    store.append("e-1", 0, &started("e-1")).await.unwrap();
    // Another session holds the execution's row: the append waits for it, past the timeout.
    let (locker, connection) = tokio_postgres::connect(database.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    locker
        .batch_execute(
            "BEGIN; SELECT * FROM agboss.executions WHERE execution_id = 'e-1' FOR UPDATE",
        )
        .await
        .unwrap();
    let error = store.append("e-1", 1, &answered("ok")).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Unavailable);
    assert!(
        error.detail.ends_with(
            "did not answer within 500ms: the operation may or may not have been done (the \
             next operation connects again)"
        ),
        "{error}"
    );
    locker.batch_execute("ROLLBACK").await.unwrap();
    store.append("e-1", 1, &answered("ok")).await.unwrap();
    assert_eq!(store.events("e-1").await.unwrap().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instances_claiming_at_once_never_share_an_execution() {
    const EXECUTIONS: usize = 120;
    let database = fresh_database();
    let first = connect(database.url()).await;
    for i in 0..EXECUTIONS {
        let id = format!("e-{i:03}");
        first.append(&id, 0, &started(&id)).await.unwrap();
    }
    drop(first);
    // Four instances, each with its store, claiming batches and finishing what they claimed
    // (a fenced append under the claim) while the others claim; they start together.
    let ready = Arc::new(tokio::sync::Barrier::new(4));
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let url = database.url().to_owned();
            let ready = Arc::clone(&ready);
            tokio::spawn(async move {
                let store = PostgresStore::connect(&url).await.unwrap();
                ready.wait().await;
                let mut mine = Vec::new();
                loop {
                    let claimed = store.claim(&format!("w-{w}"), LONG, 5).await.unwrap();
                    if claimed.is_empty() {
                        return mine;
                    }
                    for lease in claimed {
                        store
                            .append_as(&lease.execution_id, 1, &answered("done"), lease.fence())
                            .await
                            .unwrap_or_else(|e| panic!("{e}"));
                        mine.push(lease.execution_id);
                    }
                }
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for worker in workers {
        claimed.extend(worker.await.unwrap());
    }
    claimed.sort();
    let expected: Vec<String> = (0..EXECUTIONS).map(|i| format!("e-{i:03}")).collect();
    assert_eq!(
        claimed, expected,
        "every execution claimed by exactly one instance"
    );
    assert_eq!(
        texts(
            database.url(),
            "SELECT count(*) FROM agboss.leases WHERE epoch = 1"
        ),
        [EXECUTIONS.to_string()]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_whose_acknowledgement_was_lost_is_taken_once_when_retried() {
    let database = fresh_database();
    let proxy = Proxy::new(pg_server::addr_of(database.url()));
    let store = connect(&proxy.url(database.url())).await;
    let lease = store.acquire("e-1", "a", LONG).await.unwrap().unwrap();
    store
        .append_as("e-1", 0, &started("e-1"), lease.fence())
        .await
        .unwrap();

    // The commit reaches the server; its answer never comes back. (The query message's text
    // ends with its NUL: `BEGIN ISOLATION LEVEL READ COMMITTED` does not match.)
    proxy.cut_after(b"COMMIT\0");
    let lost = store
        .append_as("e-1", 1, &answered("ok"), lease.fence())
        .await
        .unwrap_err();
    assert_eq!(lost.kind, StoreErrorKind::Unavailable);
    assert!(
        lost.detail.contains("it may or may not have been written"),
        "{lost}"
    );
    let rows = "SELECT count(*) FROM agboss.events WHERE execution_id = 'e-1' AND seq = 1";
    // The server commits while the client is already told: wait for it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while texts(database.url(), rows) != ["1"] {
        assert!(Instant::now() < deadline, "the commit never happened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // The holder retries: taken, without a second row.
    store
        .append_as("e-1", 1, &answered("ok"), lease.fence())
        .await
        .unwrap();
    assert_eq!(texts(database.url(), rows), ["1"]);
    assert_eq!(
        store.events("e-1").await.unwrap(),
        [started("e-1"), answered("ok")]
    );
    assert_eq!(store.execution("e-1").await.unwrap().unwrap().events, 2);

    // Another event there from the same claim has diverged; from anyone else it conflicts.
    let other = store
        .append_as("e-1", 1, &answered("other"), lease.fence())
        .await
        .unwrap_err();
    assert_eq!(
        (other.kind, other.detail),
        (
            StoreErrorKind::Diverged,
            "execution `e-1`: claim 1 wrote another event at 1 already".to_owned()
        )
    );
    let unfenced = store.append("e-1", 1, &answered("ok")).await.unwrap_err();
    assert_eq!(unfenced.kind, StoreErrorKind::Conflict);
}

#[tokio::test]
async fn a_lease_runs_out_by_the_servers_clock() {
    let database = fresh_database();
    let store = connect(database.url()).await;
    let a = store
        .acquire("e-1", "a", Duration::from_millis(400))
        .await
        .unwrap()
        .unwrap();
    assert!(store.lease("e-1").await.unwrap().unwrap().live);
    assert_eq!(store.acquire("e-1", "b", LONG).await.unwrap(), None);
    let expires = texts(
        database.url(),
        "SELECT (expires_at - clock_timestamp() > interval '0') \
         AND (expires_at - clock_timestamp() <= interval '400 milliseconds') \
         FROM agboss.leases",
    );
    assert_eq!(expires, ["t"], "expiry is the server's now plus the ttl");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!store.lease("e-1").await.unwrap().unwrap().live);
    let b = store.acquire("e-1", "b", LONG).await.unwrap().unwrap();
    assert_eq!(b.epoch, a.epoch + 1);
}

/// Claimers racing over a batch of executions, their limits adding up to more than the batch:
/// every execution is claimed, by exactly one of them, round after round. (A claimer's pick
/// reads leases in its statement's snapshot; one that picks an execution another claimer leased
/// a moment before must pick again rather than come back short.)
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_claimers_leave_no_runnable_execution_behind() {
    const ROUNDS: usize = 30;
    const BATCH: usize = 48;
    const CLAIMERS: usize = 16;
    let database = fresh_database();
    let options = PostgresOptions::default().max_connections(CLAIMERS);
    let store = Arc::new(
        PostgresStore::connect_with(database.url(), options)
            .await
            .unwrap(),
    );
    for round in 0..ROUNDS {
        for i in 0..BATCH {
            let id = format!("e-{round:02}-{i:02}");
            store.append(&id, 0, &started(&id)).await.unwrap();
        }
        let ready = Arc::new(tokio::sync::Barrier::new(CLAIMERS));
        let claimers: Vec<_> = (0..CLAIMERS)
            .map(|c| {
                let (store, ready) = (Arc::clone(&store), Arc::clone(&ready));
                tokio::spawn(async move {
                    ready.wait().await;
                    store.claim(&format!("w-{c}"), LONG, 4).await.unwrap()
                })
            })
            .collect();
        let mut claimed = Vec::new();
        for claimer in claimers {
            claimed.extend(claimer.await.unwrap().into_iter().map(|l| l.execution_id));
        }
        claimed.sort();
        let expected: Vec<String> = (0..BATCH).map(|i| format!("e-{round:02}-{i:02}")).collect();
        assert_eq!(
            claimed, expected,
            "round {round}: each claimed once, none left"
        );
    }
}

/// Whether WAL the server has written is not yet flushed to disk, asked on `probe`, a session
/// of its own that writes nothing.
async fn unflushed(probe: &tokio_postgres::Client) -> bool {
    probe
        .query_one(
            "SELECT pg_current_wal_flush_lsn() < pg_current_wal_insert_lsn()",
            &[],
        )
        .await
        .unwrap()
        .get(0)
}

/// A standalone release (after a pause, or by a holder that lost its lease) does not wait for
/// its WAL flush: right after it returns, what it wrote is not yet on disk, where right after a
/// renewal everything is. On a server of the test's own, so that no other test's WAL is in the
/// count; the server's WAL writer flushes on its own every 200 ms, so a few of either may land
/// on the other side.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_does_not_wait_for_its_wal_flush_where_a_renewal_does() {
    const LEASES: usize = 20;
    let server = tokio::task::block_in_place(PrivateServer::new);
    let database = server.fresh_database();
    let store = connect(database.url()).await;
    let (probe, connection) = tokio_postgres::connect(database.url(), tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    let mut leases = Vec::new();
    for i in 0..LEASES {
        let lease = store.acquire(&format!("e-{i}"), "a", LONG).await.unwrap();
        leases.push(lease.expect("a free execution"));
    }

    let mut renewals_unflushed = 0;
    for lease in &leases {
        store.renew(lease).await.unwrap();
        renewals_unflushed += usize::from(unflushed(&probe).await);
    }
    let mut releases_unflushed = 0;
    for lease in &leases {
        store.release(lease).await.unwrap();
        releases_unflushed += usize::from(unflushed(&probe).await);
    }
    println!(
        "returned before their WAL flush: releases {releases_unflushed} of {LEASES}, \
         renewals {renewals_unflushed} of {LEASES}"
    );
    assert!(
        renewals_unflushed <= 3,
        "{renewals_unflushed} of {LEASES} renewals returned before their WAL was flushed"
    );
    assert!(
        releases_unflushed >= LEASES - 3,
        "only {releases_unflushed} of {LEASES} releases returned before their WAL was flushed"
    );
    // Each was released all the same: another holder takes every one at once.
    for i in 0..LEASES {
        let taken = store.acquire(&format!("e-{i}"), "b", LONG).await.unwrap();
        assert_eq!(taken.map(|lease| lease.epoch), Some(2), "e-{i}");
    }
}
