//! One append, checked and written inside the writer's transaction as `MemoryStore` does it:
//! the same checks (the fence, the sequence number, the journal's first event, the thread's
//! owner, the pause it changes), in the same order, with the same words, every check before the
//! first write.

use rusqlite::{Connection, ErrorCode, OptionalExtension, params};

use super::sql::{STORE, corrupt, sql_int};
use super::{lease, read};
use crate::journal::{ExecutionRecord, Fence, LoopEvent, PauseRecord, next_record, pause_change};
use crate::store::{StoreError, StoreErrorKind, fence_refusal, taken_seq, thread_owner_change};

/// Checks and writes one append, as `MemoryStore` does: the same checks, in the same order,
/// with the same messages. Every check comes before the first write.
pub(super) fn apply(
    conn: &Connection,
    execution_id: &str,
    seq: u64,
    event: &LoopEvent,
    json: &str,
    fence: Fence,
) -> rusqlite::Result<Result<(), StoreError>> {
    if let Fence::Epoch(epoch) = fence {
        let current = lease::current(conn, execution_id)?;
        if let Some(refused) = fence_refusal(STORE, execution_id, epoch, current) {
            return Ok(Err(refused));
        }
    }
    let current = match execution_record(conn, execution_id)? {
        Ok(current) => current,
        Err(refused) => return Ok(Err(refused)),
    };
    let held = current.as_ref().map_or(0, |r| r.events);
    if held != seq {
        let written: Option<(Option<i64>, String)> = conn
            .prepare_cached("SELECT epoch, event FROM events WHERE execution_id = ?1 AND seq = ?2")?
            .query_row(params![execution_id, sql_int(seq)], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?;
        let written = written.map(|(epoch, text)| (epoch.map(|e| e as u64), text == json));
        return Ok(taken_seq(STORE, execution_id, held, seq, fence, written));
    }
    let Some(mut record) = next_record(current.as_ref(), execution_id, seq, event) else {
        return Ok(Err(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("execution `{execution_id}`: a journal starts with `started`, once"),
        )));
    };
    // A run's first event: its thread's owner, recorded by the thread's first run.
    let new_thread = if seq == 0 {
        let held = read::thread_owner(conn, &record.thread_id)?;
        match thread_owner_change(STORE, &record, held.as_ref()) {
            Ok(new) => new,
            Err(refused) => return Ok(Err(refused)),
        }
    } else {
        None
    };
    // The pause as it will be written, and whether it is new.
    let mut pause_write = None;
    if let Some(change) = pause_change(&record, seq, event) {
        let known = match pause_record(conn, change.pause_id())? {
            Ok(known) => known,
            Err(refused) => return Ok(Err(refused)),
        };
        match change.checked(known, &mut record) {
            Ok((pause, opens)) => pause_write = Some((opens, pause)),
            Err(refused) => {
                return Ok(Err(StoreError::new(
                    STORE,
                    StoreErrorKind::Invalid,
                    refused,
                )));
            }
        }
    }
    // Everything that can fail short of SQLite is done before the first write.
    let record_json = match to_json(&record) {
        Ok(json) => json,
        Err(refused) => return Ok(Err(refused)),
    };
    let pause_write = pause_write
        .map(|(opens, pause)| to_json(&pause).map(|json| (opens, pause, json)))
        .transpose();
    let pause_write = match pause_write {
        Ok(write) => write,
        Err(refused) => return Ok(Err(refused)),
    };
    // The key (execution_id, seq) is the last word: were the check above ever wrong, the row
    // would still not be written twice.
    let inserted = conn
        .prepare_cached(
            "INSERT INTO events (execution_id, seq, event, epoch) VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            execution_id,
            sql_int(seq),
            json,
            fence.epoch().map(sql_int)
        ]);
    match inserted {
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
            return Ok(taken_seq(
                STORE,
                execution_id,
                held,
                seq,
                Fence::Unfenced,
                None,
            ));
        }
        other => other?,
    };
    write_execution(conn, &record, &record_json, seq)?;
    if let Some(owner) = new_thread {
        conn.prepare_cached("INSERT INTO threads (thread_id, owner_id) VALUES (?1, ?2)")?
            .execute(params![record.thread_id, owner.owner()])?;
    }
    match pause_write {
        Some((true, pause, json)) => insert_pause(conn, &pause, &json)?,
        Some((false, pause, json)) => update_pause(conn, &pause, &json)?,
        None => {}
    }
    Ok(Ok(()))
}

fn execution_record(
    conn: &Connection,
    execution_id: &str,
) -> rusqlite::Result<Result<Option<ExecutionRecord>, StoreError>> {
    let json: Option<String> = conn
        .prepare_cached("SELECT record FROM executions WHERE execution_id = ?1")?
        .query_row([execution_id], |row| row.get(0))
        .optional()?;
    Ok(json
        .map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|e| corrupt(&format!("the record of execution `{execution_id}`"), &e)))
}

fn pause_record(
    conn: &Connection,
    pause_id: &str,
) -> rusqlite::Result<Result<Option<PauseRecord>, StoreError>> {
    let json: Option<String> = conn
        .prepare_cached("SELECT record FROM pauses WHERE pause_id = ?1")?
        .query_row([pause_id], |row| row.get(0))
        .optional()?;
    Ok(json
        .map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|e| corrupt(&format!("the record of pause `{pause_id}`"), &e)))
}

fn write_execution(
    conn: &Connection,
    record: &ExecutionRecord,
    json: &str,
    seq: u64,
) -> rusqlite::Result<()> {
    if seq == 0 {
        conn.prepare_cached(
            "INSERT INTO executions (execution_id, thread_id, record, runnable) \
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![
            record.execution_id,
            record.thread_id,
            json,
            record.is_runnable()
        ])?;
    } else {
        conn.prepare_cached(
            "UPDATE executions SET record = ?2, runnable = ?3 WHERE execution_id = ?1",
        )?
        .execute(params![record.execution_id, json, record.is_runnable()])?;
    }
    Ok(())
}

fn insert_pause(conn: &Connection, pause: &PauseRecord, json: &str) -> rusqlite::Result<()> {
    // The owner filter of `open_pauses` lists thread-owner pauses only: others get no owner.
    let owner = (pause.opened.answered_by == crate::channel::PauseAnswerer::ThreadOwner)
        .then_some(pause.opened.owner.as_deref())
        .flatten();
    conn.prepare_cached(
        "INSERT INTO pauses (pause_id, execution_id, thread_id, owner_id, opened_at_ms, \
         opened_at_seq, open, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        pause.pause_id(),
        pause.execution_id,
        pause.thread_id,
        owner,
        sql_int(pause.opened.opened_at_ms),
        sql_int(pause.opened_at_seq),
        pause.is_open(),
        json,
    ])?;
    Ok(())
}

fn update_pause(conn: &Connection, pause: &PauseRecord, json: &str) -> rusqlite::Result<()> {
    conn.prepare_cached("UPDATE pauses SET open = ?2, record = ?3 WHERE pause_id = ?1")?
        .execute(params![pause.pause_id(), pause.is_open(), json])?;
    Ok(())
}

/// A record as JSON. The journal's types serialize (their maps have string keys); were one
/// ever not to, the append is refused rather than the writer thread stopped.
fn to_json<T: serde::Serialize>(record: &T) -> Result<String, StoreError> {
    serde_json::to_string(record).map_err(|e| {
        StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("a record cannot be written as JSON: {e}"),
        )
    })
}
