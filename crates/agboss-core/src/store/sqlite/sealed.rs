//! Sealed arguments in the SQLite file: one row per call in `sealed_arguments`, written by the
//! writer thread (in its groups, like appends) and read on the read connections. The store's
//! [`SealStore`](crate::store::SealStore) over them is `seal_store.rs`.

use rusqlite::{Connection, OptionalExtension, Transaction};

use super::sql::sqlite_error;
use crate::store::{SealedArguments, StoreError};

/// Version 7 of the file: the arguments of calls the journal keeps masked, while the calls may
/// still run.
pub(super) const SCHEMA_V7: &str = "
CREATE TABLE sealed_arguments (
    execution_id TEXT NOT NULL,
    call_id TEXT NOT NULL,
    arguments TEXT NOT NULL,
    PRIMARY KEY (execution_id, call_id)
);
";

/// A write of sealed arguments, for the writer thread.
#[derive(Debug)]
pub(super) enum SealWrite {
    /// Keep a call's arguments (kept already: left as they are).
    Seal(SealedArguments),
    /// Forget a call's arguments, or (`None`) every call's of an execution.
    Forget(String, Option<String>),
}

/// Applies `write` in the writer's transaction.
pub(super) fn apply(tx: &Transaction<'_>, write: &SealWrite) -> rusqlite::Result<()> {
    match write {
        SealWrite::Seal(sealed) => {
            tx.prepare_cached(
                "INSERT INTO sealed_arguments (execution_id, call_id, arguments) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (execution_id, call_id) DO NOTHING",
            )?
            .execute([&sealed.execution_id, &sealed.call_id, &sealed.arguments])?;
        }
        SealWrite::Forget(execution_id, Some(call_id)) => {
            tx.prepare_cached(
                "DELETE FROM sealed_arguments WHERE execution_id = ?1 AND call_id = ?2",
            )?
            .execute([execution_id, call_id])?;
        }
        SealWrite::Forget(execution_id, None) => {
            tx.prepare_cached("DELETE FROM sealed_arguments WHERE execution_id = ?1")?
                .execute([execution_id])?;
        }
    }
    Ok(())
}

/// The arguments of call `call_id` of `execution_id`, if kept.
pub(super) fn unseal(
    conn: &Connection,
    execution_id: &str,
    call_id: &str,
) -> Result<Option<String>, StoreError> {
    conn.prepare_cached(
        "SELECT arguments FROM sealed_arguments WHERE execution_id = ?1 AND call_id = ?2",
    )
    .and_then(|mut statement| {
        statement
            .query_row([execution_id, call_id], |row| row.get(0))
            .optional()
    })
    .map_err(|e| sqlite_error(&e))
}

/// How many calls' arguments a forgetting of `call_id` (`None`: every call) of `execution_id`
/// takes (read before it, to report its count).
pub(super) fn count(
    conn: &Connection,
    execution_id: &str,
    call_id: Option<&str>,
) -> Result<u64, StoreError> {
    let counted = match call_id {
        Some(call_id) => conn
            .prepare_cached(
                "SELECT count(*) FROM sealed_arguments WHERE execution_id = ?1 AND call_id = ?2",
            )
            .and_then(|mut s| s.query_row([execution_id, call_id], |row| row.get::<_, i64>(0))),
        None => conn
            .prepare_cached("SELECT count(*) FROM sealed_arguments WHERE execution_id = ?1")
            .and_then(|mut s| s.query_row([execution_id], |row| row.get::<_, i64>(0))),
    };
    counted
        .map(|n| n.max(0) as u64)
        .map_err(|e| sqlite_error(&e))
}
