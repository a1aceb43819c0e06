//! Reads: a fixed pool of read connections, each used by one blocking task at a time. In WAL
//! mode a reader sees the last commit and never waits for the writer. The pool is bounded: a
//! read waits (asynchronously) for a free connection rather than opening one more, so a burst of
//! reads neither opens and closes connections nor fills tokio's blocking threads.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use tokio::sync::Semaphore;

use rusqlite::{Connection, OpenFlags, OptionalExtension, ToSql};
use serde::de::DeserializeOwned;

use super::options::SqliteOptions;
use super::sql::{STORE, blocking, corrupt, sql_int, sqlite_error};
use crate::journal::{
    ExecutionRecord, JournalEntry, LoopEvent, PauseQuery, PauseRecord, ThreadOwner,
};
use crate::store::{StoreError, StoreErrorKind};

/// How many read connections a store opens at most (on first use). Reads are short; a few
/// connections keep the cores busy.
const READERS: usize = 4;

/// The read connections of one file.
#[derive(Debug)]
pub(super) struct Readers {
    path: PathBuf,
    options: SqliteOptions,
    idle: Mutex<Vec<Connection>>,
    /// One permit per connection, open or not yet opened.
    permits: Arc<Semaphore>,
}

impl Readers {
    /// No connections yet: they open on first use.
    pub(super) fn new(path: PathBuf, options: SqliteOptions) -> Readers {
        Readers {
            path,
            options,
            idle: Mutex::new(Vec::new()),
            permits: Arc::new(Semaphore::new(READERS)),
        }
    }

    /// Runs `query` on a read connection, on a blocking thread.
    pub(super) fn read<T: Send + 'static>(
        self: &Arc<Readers>,
        query: impl FnOnce(&Connection) -> Result<T, StoreError> + Send + 'static,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + 'static {
        let readers = Arc::clone(self);
        async move {
            // The permit goes into the blocking task: were this future dropped, the
            // connection stays counted until the task gives it back.
            let permit = Arc::clone(&readers.permits)
                .acquire_owned()
                .await
                .map_err(|_| {
                    StoreError::new(STORE, StoreErrorKind::Unavailable, "the store is closed")
                })?;
            let pool = Arc::clone(&readers);
            blocking(move || {
                let _permit = permit;
                let conn = pool.take()?;
                let result = query(&conn);
                pool.give(conn);
                result
            })
            .await
        }
    }

    fn take(&self) -> Result<Connection, StoreError> {
        if let Some(conn) = self.lock().pop() {
            return Ok(conn);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn =
            Connection::open_with_flags(&self.path, flags).map_err(|e| at(&self.path, &e))?;
        conn.busy_timeout(self.options.busy_timeout)
            .map_err(|e| at(&self.path, &e))?;
        conn.set_prepared_statement_cache_capacity(32);
        Ok(conn)
    }

    fn give(&self, conn: Connection) {
        self.lock().push(conn);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Connection>> {
        // A connection is pushed or popped whole: a poisoned lock holds a consistent list.
        self.idle.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn at(path: &std::path::Path, error: &rusqlite::Error) -> StoreError {
    let mut error = sqlite_error(error);
    error.detail = format!("cannot read `{}`: {}", path.display(), error.detail);
    error
}

/// Every event of an execution, in order.
pub(super) fn events(conn: &Connection, execution_id: &str) -> Result<Vec<LoopEvent>, StoreError> {
    rows(
        conn,
        "SELECT event FROM events WHERE execution_id = ?1 ORDER BY seq",
        &[&execution_id],
        &format!("an event of execution `{execution_id}`"),
    )
}

/// Every event of an execution, in order, with the epoch of the claim that wrote it.
pub(super) fn entries(
    conn: &Connection,
    execution_id: &str,
) -> Result<Vec<JournalEntry>, StoreError> {
    let rows: Vec<(String, Option<i64>)> = conn
        .prepare_cached("SELECT event, epoch FROM events WHERE execution_id = ?1 ORDER BY seq")
        .and_then(|mut statement| {
            statement
                .query_map([execution_id], |row| Ok((row.get(0)?, row.get(1)?)))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| sqlite_error(&e))?;
    let what = format!("an event of execution `{execution_id}`");
    rows.into_iter()
        .map(|(json, epoch)| {
            Ok(JournalEntry {
                event: serde_json::from_str(&json).map_err(|e| corrupt(&what, &e))?,
                epoch: epoch.map(|e| e as u64),
            })
        })
        .collect()
}

/// An execution's record.
pub(super) fn execution(
    conn: &Connection,
    execution_id: &str,
) -> Result<Option<ExecutionRecord>, StoreError> {
    one(
        conn,
        "SELECT record FROM executions WHERE execution_id = ?1",
        execution_id,
        &format!("the record of execution `{execution_id}`"),
    )
}

/// A pause's record.
pub(super) fn pause(conn: &Connection, pause_id: &str) -> Result<Option<PauseRecord>, StoreError> {
    one(
        conn,
        "SELECT record FROM pauses WHERE pause_id = ?1",
        pause_id,
        &format!("the record of pause `{pause_id}`"),
    )
}

/// A thread's executions, in the order they started.
pub(super) fn thread(
    conn: &Connection,
    thread_id: &str,
) -> Result<Vec<ExecutionRecord>, StoreError> {
    rows(
        conn,
        "SELECT record FROM executions WHERE thread_id = ?1 ORDER BY started",
        &[&thread_id],
        &format!("an execution of thread `{thread_id}`"),
    )
}

/// A thread's owner (`None`: no run has started in it), on any connection: a reader's, or the
/// writer's inside an append.
pub(super) fn thread_owner(
    conn: &Connection,
    thread_id: &str,
) -> rusqlite::Result<Option<ThreadOwner>> {
    let owner: Option<Option<String>> = conn
        .prepare_cached("SELECT owner_id FROM threads WHERE thread_id = ?1")?
        .query_row([thread_id], |row| row.get(0))
        .optional()?;
    Ok(owner.map(|owner| ThreadOwner::of(owner.as_deref())))
}

/// The open pauses `query` asks for, oldest first: the order `MemoryStore` sorts them in
/// (opened at, then execution id, then position in the journal), served by the partial index
/// of the filters given.
pub(super) fn open_pauses(
    conn: &Connection,
    query: &PauseQuery,
) -> Result<Vec<PauseRecord>, StoreError> {
    let mut sql = String::from("SELECT record FROM pauses WHERE open = 1");
    let mut values: Vec<&dyn ToSql> = Vec::new();
    for (column, value) in [
        ("owner_id", &query.owner),
        ("thread_id", &query.thread),
        ("execution_id", &query.execution),
    ] {
        if let Some(value) = value {
            values.push(value);
            sql.push_str(&format!(" AND {column} = ?{}", values.len()));
        }
    }
    let limit = query.limit.map_or(-1, |limit| {
        sql_int(u64::try_from(limit).unwrap_or(u64::MAX))
    });
    values.push(&limit);
    sql.push_str(&format!(
        " ORDER BY opened_at_ms, execution_id, opened_at_seq LIMIT ?{}",
        values.len()
    ));
    rows(conn, &sql, &values, "an open pause")
}

fn one<T: DeserializeOwned>(
    conn: &Connection,
    sql: &str,
    key: &str,
    what: &str,
) -> Result<Option<T>, StoreError> {
    let json: Option<String> = conn
        .prepare_cached(sql)
        .and_then(|mut statement| statement.query_row([key], |row| row.get(0)).optional())
        .map_err(|e| sqlite_error(&e))?;
    json.map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|e| corrupt(what, &e))
}

fn rows<T: DeserializeOwned>(
    conn: &Connection,
    sql: &str,
    values: &[&dyn ToSql],
    what: &str,
) -> Result<Vec<T>, StoreError> {
    let texts: Vec<String> = conn
        .prepare_cached(sql)
        .and_then(|mut statement| {
            statement
                .query_map(values, |row| row.get(0))?
                .collect::<Result<_, _>>()
        })
        .map_err(|e| sqlite_error(&e))?;
    texts
        .iter()
        .map(|json| serde_json::from_str(json).map_err(|e| corrupt(what, &e)))
        .collect()
}
