//! Appends: one transaction each, checked as `MemoryStore` checks, in its order (the fence, then
//! the sequence number, then the record and the pause), with the shared decision functions and
//! their words; nothing is written before every check has passed.
//!
//! What makes the checks hold against concurrent writers (other connections, other instances):
//! the execution's row is locked (`FOR UPDATE`) before its record is read, so appends to one
//! execution take turns; the lease row is locked (`FOR SHARE`) for a fenced append, so a claim
//! waits for it and it never writes under a claim that is no longer current; a pause's row is
//! locked before its record is read (pause ids are global, and another execution may name it).
//! The first append of an execution has no row to lock: the events table's key
//! `(execution_id, seq)`, and the pause's key, are the last word, and the store tries the
//! append again once a concurrent writer took them (it then reads what that writer wrote).
//! Locks are always taken in that order (execution, lease, pause), so appends and claims never
//! deadlock each other.
//!
//! The statements of each step are pipelined: `BEGIN` with the reads, the writes with `COMMIT`.

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::error::{corrupt, is_connection_lost, is_unique_violation};
use super::pool::{Conn, Failure};
use super::{STORE, lease, read, sql_int};
use crate::channel::PauseAnswerer;
use crate::journal::{
    ExecutionRecord, Fence, LoopEvent, PauseRecord, StoreError, StoreErrorKind, fence_refusal,
    next_record, pause_change, taken_seq,
};

const LOCK_EXECUTION: &str = "SELECT record FROM executions WHERE execution_id = $1 FOR UPDATE";
const LOCK_PAUSE: &str = "SELECT record FROM pauses WHERE pause_id = $1 FOR UPDATE";
const WRITTEN: &str = "SELECT epoch, event FROM events WHERE execution_id = $1 AND seq = $2";
const INSERT_EVENT: &str =
    "INSERT INTO events (execution_id, seq, event, epoch) VALUES ($1, $2, $3, $4)";
const INSERT_EXECUTION: &str = "INSERT INTO executions (execution_id, thread_id, runnable, record) \
                                VALUES ($1, $2, $3, $4)";
const UPDATE_EXECUTION: &str =
    "UPDATE executions SET runnable = $2, record = $3 WHERE execution_id = $1";
const INSERT_PAUSE: &str = "INSERT INTO pauses (pause_id, execution_id, thread_id, owner_id, \
                            opened_at_ms, opened_at_seq, open, record) \
                            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
const UPDATE_PAUSE: &str = "UPDATE pauses SET open = $2, record = $3 WHERE pause_id = $1";

/// One append to make: the event, its JSON as stored, and who appends it.
pub(super) struct Append<'a> {
    pub(super) execution_id: &'a str,
    pub(super) seq: u64,
    pub(super) event: &'a LoopEvent,
    pub(super) json: &'a str,
    pub(super) fence: Fence,
}

/// Checks and writes `append` in one transaction. `Ok` once committed, or when the same event
/// from the same claim is there already (nothing written). On the `last` try a key taken by a
/// concurrent writer is the conflict it means, rather than a reason to try again.
pub(super) async fn append(
    conn: &mut Conn,
    append: &Append<'_>,
    last: bool,
) -> Result<(), Failure> {
    match checked_append(conn, append).await {
        // The check passed (the journal held `seq` events), then a concurrent writer's row
        // took the key: the conflict SQLite's store reports there too.
        Err(Failure::Pg(e)) if last && is_unique_violation(&e) => {
            let seq = append.seq;
            match taken_seq(STORE, append.execution_id, seq, seq, Fence::Unfenced, None) {
                Err(conflict) => Err(Failure::Store(conflict)),
                Ok(()) => Err(Failure::Pg(e)),
            }
        }
        other => other,
    }
}

async fn checked_append(conn: &mut Conn, append: &Append<'_>) -> Result<(), Failure> {
    let Append {
        execution_id,
        seq,
        event,
        json,
        fence,
    } = *append;
    let lock_execution = conn.statement(LOCK_EXECUTION).await?;
    let key: [&(dyn ToSql + Sync); 1] = [&execution_id];
    let (execution_row, lease_row) = match fence {
        Fence::Unfenced => {
            let (_, row) = tokio::try_join!(
                conn.client.batch_execute("BEGIN"),
                conn.client.query_opt(&lock_execution, &key),
            )
            .map_err(Failure::Pg)?;
            (row, None)
        }
        Fence::Epoch(_) => {
            let fence = conn.statement(lease::FENCE).await?;
            let (_, row, lease) = tokio::try_join!(
                conn.client.batch_execute("BEGIN"),
                conn.client.query_opt(&lock_execution, &key),
                conn.client.query_opt(&fence, &key),
            )
            .map_err(Failure::Pg)?;
            (row, lease)
        }
    };
    if let Fence::Epoch(epoch) = fence {
        let current = lease_row.as_ref().map(lease::fence_of).transpose()?;
        if let Some(refused) = fence_refusal(STORE, execution_id, epoch, current) {
            return Err(refused.into());
        }
    }
    let what = format!("the record of execution `{execution_id}`");
    let current: Option<ExecutionRecord> = execution_row
        .map(|row| read::json(&row, &what))
        .transpose()?;
    let held = current.as_ref().map_or(0, |r| r.events);
    if held != seq {
        let written = conn.statement(WRITTEN).await?;
        let written = conn
            .client
            .query_opt(&written, &[&execution_id, &sql_int(seq)])
            .await
            .map_err(Failure::Pg)?
            .map(|row| stored_as(&row, json, execution_id))
            .transpose()?;
        taken_seq(STORE, execution_id, held, seq, fence, written)?;
        // The same event from the same claim: taken before, nothing to write.
        conn.client
            .batch_execute("ROLLBACK")
            .await
            .map_err(Failure::Pg)?;
        return Ok(());
    }
    let Some(mut record) = next_record(current.as_ref(), execution_id, seq, event) else {
        return Err(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("execution `{execution_id}`: a journal starts with `started`, once"),
        )
        .into());
    };
    // The pause as it will be written, and whether it is new.
    let mut pause_write = None;
    if let Some(change) = pause_change(&record, seq, event) {
        let lock_pause = conn.statement(LOCK_PAUSE).await?;
        let what = format!("the record of pause `{}`", change.pause_id());
        let known: Option<PauseRecord> = conn
            .client
            .query_opt(&lock_pause, &[&change.pause_id()])
            .await
            .map_err(Failure::Pg)?
            .map(|row| read::json(&row, &what))
            .transpose()?;
        let (pause, opens) = change
            .checked(known, &mut record)
            .map_err(|refused| StoreError::new(STORE, StoreErrorKind::Invalid, refused))?;
        let pause_json = to_json(&pause)?;
        pause_write = Some((opens, pause, pause_json));
    }
    let record_json = to_json(&record)?;
    write(conn, append, &record, &record_json, pause_write).await
}

/// The writes of a checked append and its commit, pipelined: the server runs them in order,
/// and a failed write aborts the transaction, so the `COMMIT` after it rolls back.
async fn write(
    conn: &mut Conn,
    append: &Append<'_>,
    record: &ExecutionRecord,
    record_json: &str,
    pause_write: Option<(bool, PauseRecord, String)>,
) -> Result<(), Failure> {
    let insert_event = conn.statement(INSERT_EVENT).await?;
    let seq = sql_int(append.seq);
    let epoch = append.fence.epoch().map(sql_int);
    let event_values: [&(dyn ToSql + Sync); 4] = [&append.execution_id, &seq, &append.json, &epoch];
    let runnable = record.is_runnable();
    let (execution_sql, execution_values): (&str, Vec<&(dyn ToSql + Sync)>) = if append.seq == 0 {
        (
            INSERT_EXECUTION,
            vec![
                &record.execution_id,
                &record.thread_id,
                &runnable,
                &record_json,
            ],
        )
    } else {
        (
            UPDATE_EXECUTION,
            vec![&record.execution_id, &runnable, &record_json],
        )
    };
    let write_execution = conn.statement(execution_sql).await?;
    let pause = match &pause_write {
        Some((opens, pause, json)) => {
            let sql = if *opens { INSERT_PAUSE } else { UPDATE_PAUSE };
            Some((conn.statement(sql).await?, *opens, pause, json))
        }
        None => None,
    };
    // The owner filter of `open_pauses` lists thread-owner pauses only: others get no owner.
    let owner = pause.as_ref().and_then(|(_, _, pause, _)| {
        (pause.opened.answered_by == PauseAnswerer::ThreadOwner)
            .then_some(pause.opened.owner.as_deref())
            .flatten()
    });
    let opened_at = pause
        .as_ref()
        .map(|(_, _, p, _)| (sql_int(p.opened.opened_at_ms), sql_int(p.opened_at_seq)));
    let open = pause.as_ref().is_some_and(|(_, _, p, _)| p.is_open());
    let pause_values: Vec<&(dyn ToSql + Sync)> = match (&pause, &opened_at) {
        (Some((_, true, pause, json)), Some((at_ms, at_seq))) => vec![
            &pause.opened.pause_id,
            &pause.execution_id,
            &pause.thread_id,
            &owner,
            at_ms,
            at_seq,
            &open,
            *json,
        ],
        (Some((_, false, pause, json)), _) => vec![&pause.opened.pause_id, &open, *json],
        _ => Vec::new(),
    };
    let client = &conn.client;
    let write_pause = async {
        match &pause {
            Some((statement, ..)) => client.execute(statement, &pause_values).await.map(|_| ()),
            None => Ok(()),
        }
    };
    let written = tokio::try_join!(
        client.execute(&insert_event, &event_values),
        client.execute(&write_execution, &execution_values),
        write_pause,
        client.batch_execute("COMMIT"),
    );
    match written {
        Ok(_) => Ok(()),
        // The server answered: the transaction failed before its commit, which rolled it back.
        Err(e) if e.as_db_error().is_some() && !is_connection_lost(&e) => Err(Failure::Pg(e)),
        // The commit was sent with the writes; whether it was done is not known.
        Err(e) => Err(Failure::Commit(e)),
    }
}

/// What is written at a taken seq, for the retry check: its claim, and whether it is the same
/// event (the same JSON text: the store keeps what serde wrote).
fn stored_as(row: &Row, json: &str, execution_id: &str) -> Result<(Option<u64>, bool), Failure> {
    let what = format!("an event of execution `{execution_id}`");
    let epoch: Option<i64> = row.try_get(0).map_err(|e| corrupt(&what, &e))?;
    let text: &str = row.try_get(1).map_err(|e| corrupt(&what, &e))?;
    Ok((epoch.map(|e| e as u64), text == json))
}

/// A record as JSON. The journal's types serialize (their maps have string keys); were one ever
/// not to, the append is refused.
fn to_json<T: serde::Serialize>(record: &T) -> Result<String, Failure> {
    serde_json::to_string(record).map_err(|e| {
        Failure::Store(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("a record cannot be written as JSON: {e}"),
        ))
    })
}
