//! The writer thread: it owns the write connection and commits appends in groups. Whatever
//! appends wait when a transaction begins join it; each is checked on its own (the sequence
//! number, the journal's first event, the pause it changes) and refused on its own before it
//! writes anything, so a refusal never undoes its neighbours. One commit, one `fsync`, makes the
//! group durable: at `synchronous = FULL` that is what lets one file take thousands of appends a
//! second from concurrent executions.

use std::path::Path;
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OptionalExtension, TransactionBehavior, params};
use tokio::sync::oneshot;

use super::{STORE, corrupt, sqlite_error};
use crate::journal::{
    ExecutionRecord, Fence, Lease, LoopEvent, PauseRecord, StoreError, StoreErrorKind,
    fence_refusal, next_record, pause_change, taken_seq,
};

/// The most appends one transaction takes: bounds how long the first one waits.
const MAX_GROUP: usize = 512;

/// How many times a group is tried again when another process holds the write lock past the
/// busy timeout, before its appends are reported unavailable.
const BUSY_RETRIES: u32 = 5;

/// One write on its way to the writer: an append or a lease operation.
#[derive(Debug)]
pub(super) struct Job {
    work: Work,
    reply: oneshot::Sender<Result<Done, StoreError>>,
}

/// What a job writes.
#[derive(Debug)]
pub(super) enum Work {
    /// An event, from a writer, with its JSON.
    Append {
        execution_id: String,
        seq: u64,
        event: Box<LoopEvent>,
        json: String,
        fence: Fence,
    },
    /// A claim of one execution.
    Acquire {
        execution_id: String,
        holder: String,
        ttl: Duration,
    },
    /// A claim of the oldest runnable executions nobody holds.
    Claim {
        holder: String,
        ttl: Duration,
        limit: usize,
    },
    /// A renewal.
    Renew(Lease),
    /// A release.
    Release(Lease),
}

/// What a job did.
#[derive(Debug)]
pub(super) enum Done {
    /// Appended, or renewed, or released.
    Written,
    /// The leases claimed.
    Claimed(Vec<Lease>),
}

impl Job {
    /// The job, and where its result arrives.
    pub(super) fn new(work: Work) -> (Job, oneshot::Receiver<Result<Done, StoreError>>) {
        let (reply, result) = oneshot::channel();
        (Job { work, reply }, result)
    }
}

/// The error of an append the writer did not take (it stopped).
pub(super) fn stopped() -> StoreError {
    StoreError::new(
        STORE,
        StoreErrorKind::Unavailable,
        "the store's writer stopped",
    )
}

/// Starts the writer thread on `conn`.
pub(super) fn start(
    conn: Connection,
    path: &Path,
) -> Result<(mpsc::Sender<Job>, JoinHandle<()>), StoreError> {
    let (appends, received) = mpsc::channel();
    let writer = std::thread::Builder::new()
        .name("agboss-sqlite-writer".into())
        .spawn(move || run(conn, &received))
        .map_err(|e| {
            StoreError::new(
                STORE,
                StoreErrorKind::Unavailable,
                format!("cannot start the writer of `{}`: {e}", path.display()),
            )
        })?;
    Ok((appends, writer))
}

fn run(mut conn: Connection, received: &mpsc::Receiver<Job>) {
    while let Ok(first) = received.recv() {
        let mut group = vec![first];
        while group.len() < MAX_GROUP {
            match received.try_recv() {
                Ok(append) => group.push(append),
                Err(_) => break,
            }
        }
        let results = commit_group(&mut conn, &group);
        for (job, result) in group.into_iter().zip(results) {
            // The caller may have stopped waiting (its future dropped): nothing to tell.
            let _ = job.reply.send(result);
        }
    }
}

/// Commits `group`, retrying the whole transaction while another process keeps the write lock.
fn commit_group(conn: &mut Connection, group: &[Job]) -> Vec<Result<Done, StoreError>> {
    let mut attempt = 0;
    loop {
        match try_group(conn, group) {
            Ok(results) => return results,
            Err(e) if is_busy(&e) && attempt < BUSY_RETRIES => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(10 << attempt));
            }
            Err(e) => {
                let error = sqlite_error(&e);
                return group.iter().map(|_| Err(error.clone())).collect();
            }
        }
    }
}

fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

/// One transaction over `group`: `Err` when SQLite failed (nothing of the group is written),
/// else each append's own result.
fn try_group(
    conn: &mut Connection,
    group: &[Job],
) -> rusqlite::Result<Vec<Result<Done, StoreError>>> {
    // IMMEDIATE takes the write lock first, so the checks below read what no other writer can
    // change before the commit (a deferred transaction could read, then lose the upgrade).
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut results = Vec::with_capacity(group.len());
    for job in group {
        let done = match &job.work {
            Work::Append {
                execution_id,
                seq,
                event,
                json,
                fence,
            } => apply(&tx, execution_id, *seq, event, json, *fence)?.map(|()| Done::Written),
            Work::Acquire {
                execution_id,
                holder,
                ttl,
            } => Ok(Done::Claimed(
                super::lease::acquire(&tx, execution_id, holder, *ttl)?
                    .into_iter()
                    .collect(),
            )),
            Work::Claim { holder, ttl, limit } => Ok(Done::Claimed(super::lease::claim(
                &tx, holder, *ttl, *limit,
            )?)),
            Work::Renew(lease) => super::lease::renew(&tx, lease)?.map(|()| Done::Written),
            Work::Release(lease) => {
                super::lease::release(&tx, lease)?;
                Ok(Done::Written)
            }
        };
        results.push(done);
    }
    // The fault tests kill a worker here: a journal append written, not committed.
    if group
        .iter()
        .any(|job| matches!(job.work, Work::Append { .. }))
    {
        crate::base::failpoint("store-commit");
    }
    tx.commit()?;
    Ok(results)
}

/// Checks and writes one append, as `MemoryStore` does: the same checks, in the same order,
/// with the same messages. Every check comes before the first write.
fn apply(
    conn: &Connection,
    execution_id: &str,
    seq: u64,
    event: &LoopEvent,
    json: &str,
    fence: Fence,
) -> rusqlite::Result<Result<(), StoreError>> {
    if let Fence::Epoch(epoch) = fence {
        let current = super::lease::current(conn, execution_id)?;
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

/// SQLite integers are signed: values past `i64::MAX` (no sequence or millisecond count
/// reaches it) are kept at the maximum, which keeps their order.
pub(super) fn sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
