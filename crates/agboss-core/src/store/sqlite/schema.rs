//! The file's layout, and how a connection is set up and the file brought up to date: versioned
//! migrations, applied on open in one write transaction, so two processes opening a new file
//! at once migrate it once.

use std::path::Path;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use super::options::{Durability, SqliteOptions};
use super::sql::{STORE, sqlite_error};
use crate::store::{StoreError, StoreErrorKind};

/// Marks the file as an agboss store (`PRAGMA application_id`, "agbs"), so another program's
/// database is refused instead of being written into.
const APPLICATION_ID: i32 = 0x6167_6273;

/// One migration: statements, then (for what SQL cannot say) code run in the same transaction.
struct Migration {
    sql: &'static str,
    then: Option<fn(&rusqlite::Transaction<'_>) -> rusqlite::Result<()>>,
}

/// The migrations, in order: migration `i` takes the file from schema version `i` to `i + 1`.
/// Append new ones; never edit a released one.
const MIGRATIONS: &[Migration] = &[
    Migration {
        sql: V1,
        then: None,
    },
    Migration {
        sql: V2,
        then: Some(rederive_records),
    },
    Migration {
        sql: V3,
        then: Some(own_threads),
    },
    Migration {
        sql: super::artifacts::SCHEMA_V4,
        then: None,
    },
    Migration {
        sql: V5,
        then: None,
    },
    Migration {
        sql: V6,
        then: None,
    },
    Migration {
        sql: super::sealed::SCHEMA_V7,
        then: None,
    },
];

/// The schema version this build writes (`PRAGMA user_version`).
pub(super) const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Version 1. Events and records are JSON text (serde's form of the journal types); the columns
/// beside them are what the queries filter and order by. `executions.started` is a rowid alias
/// that only grows, so it orders a thread's executions by start.
const V1: &str = "
CREATE TABLE executions (
    started INTEGER PRIMARY KEY,
    execution_id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX executions_by_thread ON executions (thread_id, started);

CREATE TABLE events (
    execution_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (execution_id, seq)
);

CREATE TABLE pauses (
    pause_id TEXT NOT NULL UNIQUE,
    execution_id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    owner_id TEXT,
    opened_at_ms INTEGER NOT NULL,
    opened_at_seq INTEGER NOT NULL,
    open INTEGER NOT NULL,
    record TEXT NOT NULL
);
CREATE INDEX open_pauses ON pauses (opened_at_ms, execution_id, opened_at_seq) WHERE open = 1;
CREATE INDEX open_pauses_by_owner
    ON pauses (owner_id, opened_at_ms, execution_id, opened_at_seq) WHERE open = 1;
CREATE INDEX open_pauses_by_thread
    ON pauses (thread_id, opened_at_ms, execution_id, opened_at_seq) WHERE open = 1;
CREATE INDEX open_pauses_by_execution
    ON pauses (execution_id, opened_at_ms, opened_at_seq) WHERE open = 1;
";

/// Version 2: execution leases and fencing. `leases` holds each execution's last claim (its
/// epoch only grows, so a released or expired claim keeps its number); `events.epoch` is the
/// claim that appended each event (NULL: unfenced); `executions.runnable` says whether a worker
/// may claim it (kept with the record, indexed for the claims). Records of version 1 lack the
/// counts `runnable` is derived from: `rederive_records` rebuilds them from the journals.
const V2: &str = "
CREATE TABLE leases (
    execution_id TEXT PRIMARY KEY,
    epoch INTEGER NOT NULL,
    holder TEXT,
    boot_id TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
);
ALTER TABLE events ADD COLUMN epoch INTEGER;
ALTER TABLE executions ADD COLUMN runnable INTEGER NOT NULL DEFAULT 0;
CREATE INDEX runnable_executions ON executions (started) WHERE runnable = 1;
";

/// Version 3: threads' owners. `threads` holds one row per thread, made by the first event of
/// its first execution with the owner that run named (NULL: none), never changed after. The
/// threads of an older file get theirs from `own_threads`.
const V3: &str = "
CREATE TABLE threads (
    thread_id TEXT PRIMARY KEY,
    owner_id TEXT
);
";

/// Version 5: pinned MCP definitions (issue 17, fault plan T20). One row per application,
/// server and tool; `record` is the pin as JSON.
const V5: &str = "
CREATE TABLE mcp_pins (
    application TEXT NOT NULL,
    server TEXT NOT NULL,
    tool TEXT NOT NULL,
    record TEXT NOT NULL,
    PRIMARY KEY (application, server, tool)
);
";

/// Version 6: the process that holds each lease (docs/durability.md, "Liveness"): its pid, its
/// start (clock ticks since the boot) and its pid namespace, so a claim takes over at once the
/// lease of a process that is gone (`process.rs`). NULL (leases of older builds, systems
/// without `/proc`): the lease lasts its ttl.
const V6: &str = "
ALTER TABLE leases ADD COLUMN holder_pid INTEGER;
ALTER TABLE leases ADD COLUMN holder_started INTEGER;
ALTER TABLE leases ADD COLUMN holder_pid_ns INTEGER;
";

/// Gives every thread the owner of its first execution (by start order), as its record says.
/// A thread whose first record this build cannot read gets no row: its next run owns it.
fn own_threads(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let firsts: Vec<(String, String)> = tx
        .prepare(
            "SELECT thread_id, record FROM executions e WHERE started = \
             (SELECT min(started) FROM executions WHERE thread_id = e.thread_id)",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<Result<_, _>>()?;
    for (thread, json) in firsts {
        let Ok(record) = serde_json::from_str::<crate::journal::ExecutionRecord>(&json) else {
            continue;
        };
        tx.execute(
            "INSERT INTO threads (thread_id, owner_id) VALUES (?1, ?2)",
            rusqlite::params![thread, record.owner_id],
        )?;
    }
    Ok(())
}

/// Rebuilds every execution's record from its journal, as appends derive it today, and its
/// `runnable` column.
fn rederive_records(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let ids: Vec<String> = tx
        .prepare("SELECT execution_id FROM executions")?
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    for id in ids {
        let texts: Vec<String> = tx
            .prepare("SELECT event FROM events WHERE execution_id = ?1 ORDER BY seq")?
            .query_map([&id], |row| row.get(0))?
            .collect::<Result<_, _>>()?;
        let events: Result<Vec<crate::journal::LoopEvent>, _> =
            texts.iter().map(|t| serde_json::from_str(t)).collect();
        // A journal this build cannot read keeps its record (and is refused when read).
        let Ok(events) = events else { continue };
        let Ok((record, _)) = crate::journal::derive_records(&id, &events) else {
            continue;
        };
        let Ok(json) = serde_json::to_string(&record) else {
            continue;
        };
        tx.execute(
            "UPDATE executions SET record = ?2, runnable = ?3 WHERE execution_id = ?1",
            rusqlite::params![id, json, record.is_runnable()],
        )?;
    }
    Ok(())
}

/// A connection to `path` with the store's settings: WAL, the durability asked for, deletions
/// that overwrite what they delete, and a busy timeout so a writer of another process is waited
/// for rather than failed.
pub(super) fn connect(path: &Path, options: &SqliteOptions) -> Result<Connection, StoreError> {
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
        | OpenFlags::SQLITE_OPEN_CREATE
        | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(path, flags).map_err(|e| cannot_open(path, &e))?;
    conn.busy_timeout(options.busy_timeout)
        .map_err(|e| cannot_open(path, &e))?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
        .map_err(|e| cannot_open(path, &e))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::new(
            STORE,
            StoreErrorKind::Unavailable,
            format!(
                "cannot open `{}`: it stays in journal mode `{mode}`, not WAL",
                path.display()
            ),
        ));
    }
    let synchronous = match options.durability {
        Durability::Full => "FULL",
        Durability::Normal => "NORMAL",
    };
    conn.pragma_update(None, "synchronous", synchronous)
        .map_err(|e| cannot_open(path, &e))?;
    // What is deleted (sealed arguments once their call ended, an ended run's artifacts) is
    // overwritten in the file, not left in its free pages.
    conn.pragma_update(None, "secure_delete", "ON")
        .map_err(|e| cannot_open(path, &e))?;
    // Room for the statements of every query shape (appends, lookups, the eight filters of
    // `open_pauses`), so none is compiled twice.
    conn.set_prepared_statement_cache_capacity(32);
    Ok(conn)
}

/// Brings the file at `path` to [`SCHEMA_VERSION`], or refuses it: another program's database,
/// or one written by a newer build.
pub(super) fn migrate(conn: &mut Connection, path: &Path) -> Result<(), StoreError> {
    let at = |e: rusqlite::Error| cannot_open(path, &e);
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(at)?;
    let application_id: i32 = tx
        .query_row("PRAGMA application_id", [], |row| row.get(0))
        .map_err(at)?;
    let version: i64 = tx
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(at)?;
    let tables: i64 = tx
        .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
        .map_err(at)?;
    let foreign = if application_id == 0 {
        tables > 0
    } else {
        application_id != APPLICATION_ID
    };
    if foreign {
        return Err(invalid(
            path,
            "it is not an agboss store (another program's database)",
        ));
    }
    if version > SCHEMA_VERSION {
        return Err(invalid(
            path,
            &format!(
                "its store schema is version {version}, newer than the {SCHEMA_VERSION} this build knows: open it with a newer agboss"
            ),
        ));
    }
    if version == SCHEMA_VERSION {
        return Ok(());
    }
    for migration in &MIGRATIONS[usize::try_from(version).unwrap_or(0)..] {
        tx.execute_batch(migration.sql).map_err(at)?;
        if let Some(then) = migration.then {
            then(&tx).map_err(at)?;
        }
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)
        .map_err(at)?;
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)
        .map_err(at)?;
    tx.commit().map_err(at)
}

fn cannot_open(path: &Path, error: &rusqlite::Error) -> StoreError {
    let mut error = sqlite_error(error);
    error.detail = format!("cannot open `{}`: {}", path.display(), error.detail);
    error
}

fn invalid(path: &Path, why: &str) -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Invalid,
        format!("cannot open `{}`: {why}", path.display()),
    )
}
