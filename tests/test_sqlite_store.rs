//! What only the SQLite store has: its file (created with its folders, migrated, refused when it
//! is not one it can read), the data folder it defaults to, and several processes appending to
//! one file. What every store does is in the conformance suite (test_store_conformance.rs).

mod store_common;

use std::path::Path;
use std::process::Command;
use store_common::started;

use agboss::Env;
use agboss::journal::LoopEvent;
use agboss::store::{Journal, Leases, SqliteStore, Store, StoreErrorKind};

fn failed(code: &str) -> LoopEvent {
    LoopEvent::Failed {
        code: code.to_owned(),
        message: code.to_owned(),
    }
}

fn pragma(path: &Path, name: &str) -> i64 {
    let conn = rusqlite::Connection::open(path).unwrap();
    conn.query_row(&format!("PRAGMA {name}"), [], |row| row.get(0))
        .unwrap()
}

#[tokio::test]
async fn opening_creates_the_file_and_its_folders_in_wal_mode_and_migrates_once() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("a/b/app.db");
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(store.path(), path);
    store.append("e-1", 0, &started("e-1")).await.unwrap();
    drop(store);
    assert_eq!(pragma(&path, "user_version"), 7);
    assert_eq!(pragma(&path, "application_id"), 0x6167_6273);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    // Opening again migrates nothing and keeps what was there.
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(store.events("e-1").await.unwrap(), [started("e-1")]);
    assert_eq!(pragma(&path, "user_version"), 7);
}

/// The schema of version 1, as the first SQLite store wrote it.
const SCHEMA_1: &str = "
CREATE TABLE executions (started INTEGER PRIMARY KEY, execution_id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL, record TEXT NOT NULL);
CREATE INDEX executions_by_thread ON executions (thread_id, started);
CREATE TABLE events (execution_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL,
    PRIMARY KEY (execution_id, seq));
CREATE TABLE pauses (pause_id TEXT NOT NULL UNIQUE, execution_id TEXT NOT NULL,
    thread_id TEXT NOT NULL, owner_id TEXT, opened_at_ms INTEGER NOT NULL,
    opened_at_seq INTEGER NOT NULL, open INTEGER NOT NULL, record TEXT NOT NULL);
PRAGMA application_id = 1634165363;
PRAGMA user_version = 1;
";

/// A file of schema 1 (no leases; records without the counts a worker's claim reads) is
/// migrated on open: its records are derived again from the journals, so a paused execution is
/// not claimed and a running one is.
#[tokio::test]
async fn a_store_of_schema_1_is_migrated_and_its_records_derived_again() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("old.db");
    let fixture = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/journals/v2/paused.json"),
    )
    .unwrap();
    let fixture: serde_json::Value = serde_json::from_str(&fixture).unwrap();
    let paused: Vec<LoopEvent> = serde_json::from_value(fixture["events"].clone()).unwrap();
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(SCHEMA_1).unwrap();
        for (id, events) in [
            ("e-paused", paused.clone()),
            ("e-running", vec![started("e-running")]),
        ] {
            for (seq, event) in events.iter().enumerate() {
                conn.execute(
                    "INSERT INTO events (execution_id, seq, event) VALUES (?1, ?2, ?3)",
                    rusqlite::params![id, seq as i64, serde_json::to_string(event).unwrap()],
                )
                .unwrap();
            }
            // The record as schema 1 kept it: no counts of unfinished calls or awaited pauses.
            let record = serde_json::json!({
                "execution_id": id, "workflow": "desk", "agent": "payer", "thread_id": id,
                "owner_id": "u-1", "tenant_id": null, "input": "x",
                "status": {"status": "running"}, "open_pauses": u32::from(id == "e-paused"),
                "events": events.len(),
            });
            conn.execute(
                "INSERT INTO executions (execution_id, thread_id, record) VALUES (?1, ?1, ?2)",
                rusqlite::params![id, record.to_string()],
            )
            .unwrap();
        }
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(pragma(&path, "user_version"), 7);
    let record = store.execution("e-paused").await.unwrap().unwrap();
    assert_eq!((record.unfinished_calls, record.awaiting_pauses), (1, 1));
    assert!(!record.is_runnable());
    let claimed = store
        .claim("w", std::time::Duration::from_secs(60), 10)
        .await
        .unwrap();
    let ids: Vec<&str> = claimed.iter().map(|l| l.execution_id.as_str()).collect();
    assert_eq!(ids, ["e-running"]);
    assert_eq!(store.events("e-paused").await.unwrap(), paused);
}

/// A file of schema 2 (threads had no owners) is migrated on open: each thread gets the owner of
/// its first execution, in start order, even where a later run of it named another (which
/// schema 2 took); later runs are checked against it.
#[tokio::test]
async fn a_store_of_schema_2_gives_each_thread_the_owner_of_its_first_execution() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("old.db");
    let store = SqliteStore::open(&path).await.unwrap();
    store_common::three_threads(&store).await;
    drop(store);
    {
        // What schema 2 held: no threads table, and a later run of `t-1` by another owner.
        let conn = rusqlite::Connection::open(&path).unwrap();
        let first: String = conn
            .query_row(
                "SELECT record FROM executions WHERE execution_id = 'e-2'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let later = first
            .replace(r#""e-2""#, r#""e-9""#)
            .replace(r#""ann""#, r#""bob""#);
        conn.execute(
            "INSERT INTO executions (execution_id, thread_id, record, runnable) \
             VALUES ('e-9', 't-1', ?1, 1)",
            [later],
        )
        .unwrap();
        conn.execute_batch("DROP TABLE threads; DROP TABLE artifacts; DROP TABLE mcp_pins; DROP TABLE sealed_arguments; ALTER TABLE leases DROP COLUMN holder_pid; ALTER TABLE leases DROP COLUMN holder_started; ALTER TABLE leases DROP COLUMN holder_pid_ns; PRAGMA user_version = 2;")
            .unwrap();
    }
    let store = SqliteStore::open(&path).await.unwrap();
    assert_eq!(pragma(&path, "user_version"), 7);
    store_common::owners_after_migration(&store).await;
}

#[tokio::test]
async fn a_store_of_a_newer_schema_is_refused_naming_the_file() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("app.db");
    drop(SqliteStore::open(&path).await.unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.pragma_update(None, "user_version", 8).unwrap();
    drop(conn);
    let error = SqliteStore::open(&path).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid);
    assert_eq!(
        error.to_string(),
        format!(
            "store `sqlite`: cannot open `{}`: its store schema is version 8, newer than the 7 this build knows: open it with a newer agboss",
            path.display()
        )
    );
}

#[tokio::test]
async fn another_programs_database_is_refused_and_left_alone() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("theirs.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("CREATE TABLE notes (body TEXT)")
        .unwrap();
    drop(conn);
    let error = SqliteStore::open(&path).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid);
    assert_eq!(
        error.detail,
        format!(
            "cannot open `{}`: it is not an agboss store (another program's database)",
            path.display()
        )
    );
    assert_eq!(pragma(&path, "user_version"), 0, "not migrated");
}

#[tokio::test]
async fn a_file_that_is_not_a_database_is_refused_naming_it() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("notes.txt");
    std::fs::write(&path, "these are notes, not a database, ".repeat(100)).unwrap();
    let error = SqliteStore::open(&path).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Invalid);
    assert_eq!(
        error.detail,
        format!("cannot open `{}`: file is not a database", path.display())
    );
}

#[tokio::test]
async fn a_folder_that_cannot_be_made_is_reported_unavailable() {
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("plain-file");
    std::fs::write(&file, "x").unwrap();
    let error = SqliteStore::open(file.join("app.db")).await.unwrap_err();
    assert_eq!(error.kind, StoreErrorKind::Unavailable);
    assert!(
        error
            .detail
            .starts_with(&format!("cannot create the folder `{}`: ", file.display())),
        "{error}"
    );
}

#[test]
fn the_data_folder_is_agboss_data_dir_then_xdg_data_home_then_home() {
    let path = |pairs: &[(&str, &str)]| {
        SqliteStore::default_path("desk", &Env::from_pairs(pairs.iter().copied()))
    };
    let all = [
        ("AGBOSS_DATA_DIR", "/srv/agboss"),
        ("XDG_DATA_HOME", "/home/ann/.data"),
        ("HOME", "/home/ann"),
    ];
    assert_eq!(path(&all).unwrap(), Path::new("/srv/agboss/desk.db"));
    assert_eq!(
        path(&all[1..]).unwrap(),
        Path::new("/home/ann/.data/agboss/desk.db")
    );
    assert_eq!(
        path(&all[2..]).unwrap(),
        Path::new("/home/ann/.local/share/agboss/desk.db")
    );
    let empty_is_unset = [("AGBOSS_DATA_DIR", ""), ("HOME", "/home/ann")];
    assert_eq!(
        path(&empty_is_unset).unwrap(),
        Path::new("/home/ann/.local/share/agboss/desk.db")
    );
    let none = path(&[]).unwrap_err();
    assert_eq!(none.kind, StoreErrorKind::Unavailable);
    assert_eq!(
        none.detail,
        "no data folder: set AGBOSS_DATA_DIR, XDG_DATA_HOME or HOME"
    );
    for app in ["", "..", "a/b", "a\\b"] {
        let error = SqliteStore::default_path(app, &Env::from_pairs(all)).unwrap_err();
        assert_eq!(error.kind, StoreErrorKind::Invalid);
        assert_eq!(
            error.detail,
            format!("`{app}` is not a plain file name for an application's store")
        );
    }
}

#[tokio::test]
async fn open_default_opens_the_store_in_the_data_folder_of_the_environment() {
    // The variable must be in the process's environment, so a child process (this test again)
    // opens the store with it set.
    if std::env::var("AGBOSS_TEST_OPEN_DEFAULT").is_ok() {
        let store = SqliteStore::open_default("desk").await.unwrap();
        store.append("e-1", 0, &started("e-1")).await.unwrap();
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let status = Command::new(std::env::current_exe().unwrap())
        .args([
            "open_default_opens_the_store_in_the_data_folder_of_the_environment",
            "--exact",
        ])
        .env("AGBOSS_TEST_OPEN_DEFAULT", "1")
        .env("AGBOSS_DATA_DIR", folder.path().join("data"))
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let store = SqliteStore::open(folder.path().join("data/desk.db"))
        .await
        .unwrap();
    assert_eq!(store.events("e-1").await.unwrap(), [started("e-1")]);
}

/// The child's side of the test below: set by the parent, it names the file and the writer.
const CHILD: &str = "AGBOSS_TEST_SQLITE_WRITER";
const SHARED_EVENTS: u64 = 60;
const OWN_EXECUTIONS: usize = 20;

/// Races the other writers for each seq of execution `shared`, and journals executions of its
/// own; prints how many seqs it won.
async fn write_as(path: &Path, writer: &str) -> u64 {
    let store = SqliteStore::open(path).await.unwrap();
    let mut won = 0;
    loop {
        let next = store
            .execution("shared")
            .await
            .unwrap()
            .map_or(0, |r| r.events);
        if next >= SHARED_EVENTS {
            break;
        }
        let event = if next == 0 {
            started("shared")
        } else {
            failed(&format!("{writer}-{next}"))
        };
        match store.append("shared", next, &event).await {
            Ok(()) => won += 1,
            Err(e) => assert_eq!(e.kind, StoreErrorKind::Conflict, "{e}"),
        }
    }
    for k in 0..OWN_EXECUTIONS {
        let id = format!("{writer}-{k}");
        store.append(&id, 0, &started(&id)).await.unwrap();
        store.append(&id, 1, &failed("done")).await.unwrap();
    }
    won
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn several_processes_append_to_one_file_and_never_both_win_a_seq() {
    if let Ok(child) = std::env::var(CHILD) {
        // This process is a writer the test below started.
        let (path, writer) = child.split_once('|').unwrap();
        println!("won={}", write_as(Path::new(path), writer).await);
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("shared.db");
    drop(SqliteStore::open(&path).await.unwrap());
    let children: Vec<_> = (0..3)
        .map(|i| {
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "several_processes_append_to_one_file_and_never_both_win_a_seq",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, format!("{}|w{i}", path.display()))
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut won = write_as(&path, "parent").await;
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "a writer failed");
        let stdout = String::from_utf8(out.stdout).unwrap();
        // The harness may print the test's name on the same line before it.
        let count = stdout.split("won=").nth(1).expect("the writer's count");
        let digits: String = count.chars().take_while(char::is_ascii_digit).collect();
        won += digits.parse::<u64>().unwrap();
    }
    assert_eq!(won, SHARED_EVENTS, "each seq won exactly once");
    let store = SqliteStore::open(&path).await.unwrap();
    let events = store.events("shared").await.unwrap();
    assert_eq!(events.len() as u64, SHARED_EVENTS);
    for writer in ["parent", "w0", "w1", "w2"] {
        for k in 0..OWN_EXECUTIONS {
            let id = format!("{writer}-{k}");
            assert_eq!(store.events(&id).await.unwrap().len(), 2, "{id}");
        }
    }
}

/// The one wait of the stores not on the application's clock (docs/architecture.md): a file
/// whose write lock another process holds is waited for in the machine's time, in SQLite's busy
/// handler on the writer thread. So a store handed a manual clock is held exactly as long as the
/// lock is, and no longer: the clock neither moves nor gets a timer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_locked_file_is_waited_for_in_real_time_even_on_a_manual_clock() {
    const HELD: std::time::Duration = std::time::Duration::from_millis(400);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("locked.db");
    let store = SqliteStore::open(&path).await.unwrap();
    let manual = agboss::time::ManualClock::new();
    store.use_clock(&agboss::time::Clock::from(&manual));
    // Another process's write transaction, as SQLite sees it: a connection of its own.
    let (locked, lock_taken) = std::sync::mpsc::channel();
    let holder = std::thread::spawn({
        let path = path.clone();
        move || {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch("BEGIN IMMEDIATE").unwrap();
            locked.send(std::time::Instant::now()).unwrap();
            std::thread::sleep(HELD);
            conn.execute_batch("COMMIT").unwrap();
        }
    });
    let since = lock_taken.recv().unwrap();
    store.append("e-1", 0, &started("e-1")).await.unwrap();
    let waited = since.elapsed();
    holder.join().unwrap();
    assert!(
        waited >= HELD,
        "the append went through the lock after {waited:?}"
    );
    assert_eq!(store.events("e-1").await.unwrap(), [started("e-1")]);
    assert_eq!(manual.pending_timers(), 0, "no timer on the manual clock");
    assert_eq!(manual.elapsed(), std::time::Duration::ZERO);
}
