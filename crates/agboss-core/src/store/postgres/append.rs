//! Appends: one transaction each, checked as `MemoryStore` checks, in its order (the fence, then
//! the sequence number, then the record, the thread's owner and the pause), with the shared
//! decision functions and their words; nothing is written before every check has passed (but
//! a new thread's row, which a refusal rolls back).
//!
//! What makes the checks hold against concurrent writers (other connections, other instances):
//! the execution's row is locked (`FOR UPDATE`) before its record is read, so appends to one
//! execution take turns; the lease row is locked (`FOR SHARE`) for a fenced append, so a claim
//! waits for it and it never writes under a claim that is no longer current; a pause's row is
//! locked before its record is read (pause ids are global, and another execution may name it).
//! The first append of an execution has no row to lock: the events table's key
//! `(execution_id, seq)`, and the pause's key, are the last word, and the store tries the
//! append again once a concurrent writer took them (it then reads what that writer wrote).
//! A run's first event makes its thread's row if there is none (`ON CONFLICT DO NOTHING`, which
//! waits for a concurrent first run of the thread to end) and reads its owner `FOR SHARE`, so
//! of two first runs racing in a new thread one makes the row and the other reads its owner.
//! Waiting for that row can outlast a concurrent first append of the same execution, read as
//! missing a moment before: a run the owner refuses reads the execution again, and when it is
//! there now the append is the conflict it is in `MemoryStore`'s order, not a refusal.
//! Locks are always taken in that order (execution, lease, pause, thread), so appends and claims
//! never deadlock each other.
//!
//! The statements of each step are pipelined, so an append costs two round trips: `BEGIN` with
//! the locking reads, then one statement of every write with `COMMIT` ([`write`](super::write)).

use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use super::error::{corrupt, is_unique_violation};
use super::pool::{BEGIN, Conn, Failure, Pool};
use super::write::{Append, Released, write};
use super::{STORE, lease, read, sql_int};
use crate::journal::{
    ExecutionRecord, Fence, LoopEvent, PauseRecord, ThreadOwner, next_record, pause_change,
    released_by_itself,
};
use crate::store::{StoreError, StoreErrorKind, fence_refusal, taken_seq, thread_owner_change};

const LOCK_EXECUTION: &str = "SELECT record FROM executions WHERE execution_id = $1 FOR UPDATE";
const LOCK_PAUSE: &str = "SELECT record FROM pauses WHERE pause_id = $1 FOR UPDATE";
const WRITTEN: &str = "SELECT epoch, event FROM events WHERE execution_id = $1 AND seq = $2";
/// A run's first event makes its thread's row if there is none (waiting for a concurrent first
/// run of the thread to end), then reads the owner, locking the row against a change.
const MAKE_THREAD: &str =
    "INSERT INTO threads (thread_id, owner_id) VALUES ($1, $2) ON CONFLICT (thread_id) DO NOTHING";
const LOCK_THREAD: &str = "SELECT owner_id FROM threads WHERE thread_id = $1 FOR SHARE";

/// `append` decided alone: one transaction of its own, tried as the pool tries operations.
pub(super) async fn alone(pool: &Pool, append: &Append<'_>) -> Result<(), StoreError> {
    pool.run(move |mut conn, last| async move {
        let result = self::append(&mut conn, append, last).await;
        (conn, result)
    })
    .await
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

/// The rows an append reads before it decides, each locked until the transaction ends.
struct Locked {
    execution: Option<Row>,
    lease: Option<Row>,
    /// The pause the event names.
    pause: Option<Row>,
    /// For an execution's first event: the thread's owner before this append (`None`: the
    /// thread is new, and its row was just made with this run's owner).
    thread: Option<Option<ThreadOwner>>,
}

/// Begins the transaction and reads, locking them, the rows the checks need: the execution's,
/// the lease's (for a fenced append), the pause the event names, and for a run's first event
/// its thread's (made if there is none: the thread's first run owns it). One round trip.
async fn lock_rows(conn: &mut Conn, append: &Append<'_>) -> Result<Locked, Failure> {
    let Append {
        execution_id,
        seq,
        event,
        fence,
        ..
    } = *append;
    let lock_execution = conn.statement(LOCK_EXECUTION).await?;
    let lock_lease = match fence {
        Fence::Unfenced => None,
        Fence::Epoch(_) => Some(conn.statement(lease::FENCE).await?),
    };
    // The pause the event names, locked with the rest (it is checked below that it is the one
    // the event changes).
    let named = pause_named(event);
    let lock_pause = match named {
        Some(_) => Some(conn.statement(LOCK_PAUSE).await?),
        None => None,
    };
    // The record a first event makes, for its thread and owner: if the execution turns out to
    // hold events already, the append is refused and the thread's row rolled back.
    let starting = (seq == 0)
        .then(|| next_record(None, execution_id, 0, event))
        .flatten();
    let thread_statements = match starting {
        Some(_) => Some((
            conn.statement(MAKE_THREAD).await?,
            conn.statement(LOCK_THREAD).await?,
        )),
        None => None,
    };
    let key: [&(dyn ToSql + Sync); 1] = [&execution_id];
    let pause_key: [&(dyn ToSql + Sync); 1] = [&named];
    let client = &conn.client;
    let lease_read = async {
        match &lock_lease {
            Some(statement) => client.query_opt(statement, &key).await,
            None => Ok(None),
        }
    };
    let pause_read = async {
        match &lock_pause {
            Some(statement) => client.query_opt(statement, &pause_key).await,
            None => Ok(None),
        }
    };
    let thread_read = async {
        let (Some(record), Some((make, lock))) = (&starting, &thread_statements) else {
            return Ok(None);
        };
        let thread: [&(dyn ToSql + Sync); 2] = [&record.thread_id, &record.owner_id];
        let (made, row) = tokio::join!(
            client.execute(make, &thread),
            client.query_one(lock, &thread[..1]),
        );
        Ok(Some((made?, row?)))
    };
    conn.in_transaction = true;
    // Every answer is awaited, then the first failure in the order they were sent is the one:
    // after it the server refuses the rest as part of a failed transaction.
    let (begun, execution, lease, pause, thread) = tokio::join!(
        client.batch_execute(BEGIN),
        client.query_opt(&lock_execution, &key),
        lease_read,
        pause_read,
        thread_read,
    );
    begun.map_err(Failure::Pg)?;
    let execution = execution.map_err(Failure::Pg)?;
    let lease = lease.map_err(Failure::Pg)?;
    let pause = pause.map_err(Failure::Pg)?;
    let thread = thread.map_err(Failure::Pg)?;
    let thread = match thread {
        None => None,
        Some((1, _)) => Some(None),
        Some((_, row)) => {
            let what = "the owner of a thread";
            let owner: Option<&str> = row.try_get(0).map_err(|e| corrupt(what, &e))?;
            Some(Some(ThreadOwner::of(owner)))
        }
    };
    Ok(Locked {
        execution,
        lease,
        pause,
        thread,
    })
}

async fn checked_append(conn: &mut Conn, append: &Append<'_>) -> Result<(), Failure> {
    let Append {
        execution_id,
        seq,
        event,
        fence,
        ..
    } = *append;
    let locked = lock_rows(conn, append).await?;
    let (execution_row, lease_row, named_row) = (locked.execution, locked.lease, locked.pause);
    let named = pause_named(event);
    if let Fence::Epoch(epoch) = fence {
        let current = lease_row.as_ref().map(lease::fence_of).transpose()?;
        if let Some(refused) = fence_refusal(STORE, execution_id, epoch, current) {
            // The claim released by an earlier commit of this very append (a retry whose
            // answer was lost): written once, answered as a retry, the transaction rolled back.
            if append.releases
                && released_by_itself(epoch, current, written_at(conn, append).await?)
            {
                return end(conn, "ROLLBACK").await;
            }
            return Err(refused.into());
        }
    }
    let what = format!("the record of execution `{execution_id}`");
    let current: Option<ExecutionRecord> = execution_row
        .map(|row| read::json(&row, &what))
        .transpose()?;
    let held = current.as_ref().map_or(0, |r| r.events);
    if held != seq {
        return seq_taken(conn, append, held).await;
    }
    let Some(mut record) = next_record(current.as_ref(), execution_id, seq, event) else {
        return Err(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("execution `{execution_id}`: a journal starts with `started`, once"),
        )
        .into());
    };
    if let Some(held) = &locked.thread {
        // A new thread's row is made already, with this run's owner.
        if let Err(refused) = thread_owner_change(STORE, &record, held.as_ref()) {
            // The thread's row may have waited for a concurrent first append of this very
            // execution, which committed after its row was found missing: then this append
            // comes after that one, and is the conflict `MemoryStore` reports.
            let lock_execution = conn.statement(LOCK_EXECUTION).await?;
            let now = conn
                .client
                .query_opt(&lock_execution, &[&execution_id])
                .await
                .map_err(Failure::Pg)?;
            if let Some(row) = now {
                let record: ExecutionRecord = read::json(&row, &what)?;
                return seq_taken(conn, append, record.events).await;
            }
            return Err(refused.into());
        }
    }
    // The pause as it will be written, and whether it is new.
    let mut pause_write = None;
    if let Some(change) = pause_change(&record, seq, event) {
        let what = format!("the record of pause `{}`", change.pause_id());
        let row = if named == Some(change.pause_id()) {
            named_row
        } else {
            let lock_pause = conn.statement(LOCK_PAUSE).await?;
            conn.client
                .query_opt(&lock_pause, &[&change.pause_id()])
                .await
                .map_err(Failure::Pg)?
        };
        let known: Option<PauseRecord> = row.map(|row| read::json(&row, &what)).transpose()?;
        let (pause, opens) = change
            .checked(known, &mut record)
            .map_err(|refused| StoreError::new(STORE, StoreErrorKind::Invalid, refused))?;
        let pause_json = to_json(&pause)?;
        pause_write = Some((opens, pause, pause_json));
    }
    let record_json = to_json(&record)?;
    write(conn, append, &record, &record_json, pause_write).await
}

/// The answer to an append at a seq that is not the next one, the journal holding `held`
/// events: taken (the same event from the same claim, written before: nothing to write, the
/// transaction rolled back), or refused.
async fn seq_taken(conn: &mut Conn, append: &Append<'_>, held: u64) -> Result<(), Failure> {
    let written = written_at(conn, append).await?;
    taken_seq(
        STORE,
        append.execution_id,
        held,
        append.seq,
        append.fence,
        written,
    )?;
    let mut released = Released::default();
    released.push(append);
    if released.is_empty() {
        return end(conn, "ROLLBACK").await;
    }
    // Taken, under a claim its fence check found held: the claim ends now.
    let release = conn.statement(lease::RELEASE_ENDED).await?;
    conn.client
        .execute(&release, &released.values())
        .await
        .map_err(Failure::Pg)?;
    end(conn, "COMMIT").await
}

/// What is written at `append`'s seq, if anything: the claim that wrote it, and whether it is
/// the same event.
async fn written_at(
    conn: &mut Conn,
    append: &Append<'_>,
) -> Result<Option<(Option<u64>, bool)>, Failure> {
    let statement = conn.statement(WRITTEN).await?;
    conn.client
        .query_opt(&statement, &[&append.execution_id, &sql_int(append.seq)])
        .await
        .map_err(Failure::Pg)?
        .map(|row| stored_as(&row, append.json, append.execution_id))
        .transpose()
}

/// Ends the transaction with `end` (`COMMIT` or `ROLLBACK`).
async fn end(conn: &mut Conn, end: &str) -> Result<(), Failure> {
    conn.client.batch_execute(end).await.map_err(Failure::Pg)?;
    conn.in_transaction = false;
    Ok(())
}

/// The pause an event names, if it names one (what [`pause_change`] changes, known before the
/// execution's record is read).
pub(super) fn pause_named(event: &LoopEvent) -> Option<&str> {
    match event {
        LoopEvent::PauseOpened(opened) => Some(&opened.pause_id),
        LoopEvent::PauseAwaiting { pause_id } | LoopEvent::PauseResolved { pause_id, .. } => {
            Some(pause_id)
        }
        _ => None,
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
pub(super) fn to_json<T: serde::Serialize>(record: &T) -> Result<String, Failure> {
    serde_json::to_string(record).map_err(|e| {
        Failure::Store(StoreError::new(
            STORE,
            StoreErrorKind::Invalid,
            format!("a record cannot be written as JSON: {e}"),
        ))
    })
}
