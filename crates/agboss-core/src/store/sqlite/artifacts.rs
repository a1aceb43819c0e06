//! Artifacts in the SQLite file: one row per artifact in `artifacts`, written by the writer
//! thread (puts and deletions join its groups like appends) and read on the read connections.

use rusqlite::{Connection, OptionalExtension, Transaction};

use super::sql::{sql_int, sqlite_error};
use crate::store::StoreError;
use crate::tool::{Artifact, ArtifactRef};

/// Version 4 of the file: artifacts. `made` is a rowid alias that only grows, so it orders an
/// execution's artifacts by when they were put; `data` is the rendered result (JSON text).
pub(super) const SCHEMA_V4: &str = "
CREATE TABLE artifacts (
    made INTEGER PRIMARY KEY,
    reference TEXT NOT NULL UNIQUE,
    execution_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tool TEXT NOT NULL,
    call_id TEXT NOT NULL,
    size INTEGER NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX artifacts_by_execution ON artifacts (execution_id, kind, made);
";

/// A write of artifacts, for the writer thread.
#[derive(Debug)]
pub(super) enum ArtifactWrite {
    /// Keep one (a reference held already is left as it is).
    Put(Box<Artifact>),
    /// Delete every artifact of an execution.
    Delete(String),
}

/// Applies `write` in the writer's transaction.
pub(super) fn apply(tx: &Transaction<'_>, write: &ArtifactWrite) -> rusqlite::Result<()> {
    match write {
        ArtifactWrite::Put(artifact) => {
            tx.prepare_cached(
                "INSERT INTO artifacts (reference, execution_id, kind, tool, call_id, size, data) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (reference) DO NOTHING",
            )?
            .execute(rusqlite::params![
                artifact.reference,
                artifact.execution_id,
                artifact.kind,
                artifact.tool,
                artifact.call_id,
                sql_int(artifact.size()),
                artifact.data,
            ])?;
        }
        ArtifactWrite::Delete(execution_id) => {
            tx.prepare_cached("DELETE FROM artifacts WHERE execution_id = ?1")?
                .execute([execution_id])?;
        }
    }
    Ok(())
}

/// The artifact `reference` of `execution_id`.
pub(super) fn get(
    conn: &Connection,
    execution_id: &str,
    reference: &str,
) -> Result<Option<Artifact>, StoreError> {
    conn.prepare_cached(
        "SELECT reference, execution_id, kind, tool, call_id, data FROM artifacts \
         WHERE reference = ?1 AND execution_id = ?2",
    )
    .and_then(|mut statement| {
        statement
            .query_row([reference, execution_id], |row| {
                Ok(Artifact {
                    reference: row.get(0)?,
                    execution_id: row.get(1)?,
                    kind: row.get(2)?,
                    tool: row.get(3)?,
                    call_id: row.get(4)?,
                    data: row.get(5)?,
                })
            })
            .optional()
    })
    .map_err(|e| sqlite_error(&e))
}

/// The artifacts of `kind` of `execution_id`, oldest first.
pub(super) fn list(
    conn: &Connection,
    execution_id: &str,
    kind: &str,
) -> Result<Vec<ArtifactRef>, StoreError> {
    conn.prepare_cached(
        "SELECT reference, kind, tool, size FROM artifacts \
         WHERE execution_id = ?1 AND kind = ?2 ORDER BY made",
    )
    .and_then(|mut statement| {
        statement
            .query_map([execution_id, kind], |row| {
                Ok(ArtifactRef {
                    reference: row.get(0)?,
                    kind: row.get(1)?,
                    tool: row.get(2)?,
                    size: row.get::<_, i64>(3)?.max(0) as u64,
                })
            })?
            .collect()
    })
    .map_err(|e| sqlite_error(&e))
}

/// How many artifacts `execution_id` holds (read before a deletion, to report its count).
pub(super) fn count(conn: &Connection, execution_id: &str) -> Result<u64, StoreError> {
    conn.prepare_cached("SELECT count(*) FROM artifacts WHERE execution_id = ?1")
        .and_then(|mut statement| statement.query_row([execution_id], |row| row.get::<_, i64>(0)))
        .map(|n| n.max(0) as u64)
        .map_err(|e| sqlite_error(&e))
}
