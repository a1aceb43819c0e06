//! One batch of [`group`](super::group)'s appends, checked and written in one transaction.
//!
//! Every append is checked as the one-append path of [`append`](super::append) checks it, with
//! the same decisions ([`fence_refusal`], [`next_record`], [`thread_owner_change`]) in the same
//! order, under the same locks taken in the same order: the executions' rows (`FOR UPDATE`),
//! the leases of the fenced appends (`FOR SHARE`), and for first events their threads' rows
//! (`FOR SHARE`), each set sorted by key so that two batches never wait on each other in a
//! cycle; all of it read in one round trip with `BEGIN`. The appends are decided in their
//! order against the rows as the batch's earlier appends leave them, so two appends of one
//! execution in a batch are the next one and the one after.
//!
//! A refused append is answered with its refusal and nothing of it is written. The accepted
//! ones are written by one statement (their events, the records they leave, the executions and
//! threads they start) pipelined with the `COMMIT`, and answered once it committed. Anything
//! out of the ordinary (a sequence number already taken, an execution not started, a thread
//! whose owner refuses the run) is left to the one-append path, which decides it alone, with
//! its words. An execution or a thread another writer starts while the batch is checked makes
//! the batch's insert fail on its key: the whole batch is tried again (the pool treats a taken
//! key as transient), and then finds the row.

use std::collections::HashMap;

use tokio::sync::oneshot;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Row, Statement};

use super::append::to_json;
use super::error::corrupt;
use super::pool::{BEGIN, Conn, Failure};
use super::write::{Append, Released, committed};
use super::{STORE, lease, read, sql_int};
use crate::journal::{ExecutionRecord, Fence, LoopEvent, ThreadOwner, next_record, pause_change};
use crate::store::{StoreError, StoreErrorKind, fence_refusal, thread_owner_change};

const LOCK_EXECUTIONS: &str = "SELECT execution_id, record FROM executions \
     WHERE execution_id = ANY($1::text[]) ORDER BY execution_id FOR UPDATE";
const LOCK_LEASES: &str = "SELECT execution_id, epoch, holder IS NOT NULL FROM leases \
     WHERE execution_id = ANY($1::text[]) ORDER BY execution_id FOR SHARE";
const LOCK_THREADS: &str = "SELECT thread_id, owner_id FROM threads \
     WHERE thread_id = ANY($1::text[]) ORDER BY thread_id FOR SHARE";
/// The accepted events ($1 to $4); the threads ($8, $9) and the executions ($10 to $13) the
/// batch starts, each execution with the record the batch's last append of it leaves; and the
/// records of the executions that were there before ($5 to $7). (The statement's parts see the
/// same snapshot: an execution started here is written whole by its insert.)
const WRITE: &str = "
WITH event AS (
    INSERT INTO events (execution_id, seq, event, epoch)
    SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[])
), thread AS (
    INSERT INTO threads (thread_id, owner_id)
    SELECT * FROM unnest($8::text[], $9::text[])
), started AS (
    INSERT INTO executions (execution_id, thread_id, runnable, record)
    SELECT * FROM unnest($10::text[], $11::text[], $12::boolean[], $13::text[])
)
UPDATE executions AS x SET runnable = r.runnable, record = r.record
FROM unnest($5::text[], $6::boolean[], $7::text[]) AS r (execution_id, runnable, record)
WHERE x.execution_id = r.execution_id";

/// What a queued append is told.
#[derive(Debug)]
pub(super) enum Answer {
    /// Committed with its batch, or refused (nothing of it written).
    Done(Result<(), StoreError>),
    /// Not decided here: the one-append path decides it.
    Alone,
}

/// An append in the queue, owned: the batch that takes it may outlive its caller's borrow.
#[derive(Debug)]
pub(super) struct Waiting {
    pub(super) execution_id: String,
    pub(super) seq: u64,
    pub(super) event: LoopEvent,
    pub(super) json: String,
    pub(super) fence: Fence,
    pub(super) releases: bool,
    pub(super) answer: oneshot::Sender<Answer>,
}

impl Waiting {
    /// The append as the one-append path takes it.
    pub(super) fn as_append(&self) -> Append<'_> {
        Append {
            execution_id: &self.execution_id,
            seq: self.seq,
            event: &self.event,
            json: &self.json,
            fence: self.fence,
            releases: self.releases,
        }
    }
}

/// What a batch decided for one append before writing.
enum Decision {
    Write,
    Refused(StoreError),
    Alone,
}

/// What the batch read, as its appends change it.
#[derive(Default)]
struct Rows<'b> {
    /// Each execution's record: from its locked row, or as the batch started it.
    executions: HashMap<&'b str, Result<ExecutionRecord, StoreError>>,
    /// The executions this batch starts, in the order it starts them.
    started: Vec<&'b str>,
    leases: HashMap<&'b str, Result<(u64, bool), StoreError>>,
    /// Each thread's owner: from its locked row, or as the batch made it.
    threads: HashMap<String, Result<ThreadOwner, StoreError>>,
    /// The threads this batch makes, with their owners.
    made: Vec<(String, Option<String>)>,
}

/// Locks, checks and writes one batch in one transaction; each append's answer in order.
pub(super) async fn checked_batch(
    conn: &mut Conn,
    batch: &[Waiting],
) -> Result<Vec<Answer>, Failure> {
    let ids = sorted(batch.iter().map(|w| w.execution_id.as_str()));
    let fenced = sorted(
        batch
            .iter()
            .filter(|w| w.fence.epoch().is_some())
            .map(|w| w.execution_id.as_str()),
    );
    // The threads of the batch's first events (`started` names its thread).
    let starting: Vec<Option<ExecutionRecord>> = batch
        .iter()
        .map(|w| (w.seq == 0).then(|| next_record(None, &w.execution_id, 0, &w.event))?)
        .collect();
    let threads = sorted(starting.iter().flatten().map(|r| r.thread_id.as_str()));

    let lock_executions = conn.statement(LOCK_EXECUTIONS).await?;
    let lock_leases = conn.statement(LOCK_LEASES).await?;
    let lock_threads = conn.statement(LOCK_THREADS).await?;
    let client = &conn.client;
    let ids_key: [&(dyn ToSql + Sync); 1] = [&ids];
    let fenced_key: [&(dyn ToSql + Sync); 1] = [&fenced];
    let threads_key: [&(dyn ToSql + Sync); 1] = [&threads];
    conn.in_transaction = true;
    // Every answer is awaited, then the first failure in the order they were sent is the one.
    let (begun, executions, leases, owners) = tokio::join!(
        client.batch_execute(BEGIN),
        client.query(&lock_executions, &ids_key),
        locked_if(client, &lock_leases, &fenced_key, !fenced.is_empty()),
        locked_if(client, &lock_threads, &threads_key, !threads.is_empty()),
    );
    begun.map_err(Failure::Pg)?;
    let (executions, leases, owners) = (
        executions.map_err(Failure::Pg)?,
        leases.map_err(Failure::Pg)?,
        owners.map_err(Failure::Pg)?,
    );
    let mut rows = Rows::default();
    for row in &executions {
        let id = key(row, "an execution's id")?;
        let what = format!("the record of execution `{id}`");
        let record = read::json_at(row, 1, &what).map_err(store_error);
        rows.executions.insert(id, record);
    }
    for row in &leases {
        let id = key(row, "a lease's execution id")?;
        let fence = lease::fence_at(row, 1).map_err(store_error);
        rows.leases.insert(id, fence);
    }
    for row in &owners {
        let id = key(row, "a thread's id")?;
        let owner: Result<Option<&str>, _> = row.try_get(1);
        let owner = owner.map_err(|e| corrupt("the owner of a thread", &e));
        rows.threads
            .insert(id.to_owned(), owner.map(ThreadOwner::of));
    }

    let decisions: Vec<Decision> = batch
        .iter()
        .zip(starting)
        .map(|(waiting, starting)| {
            let decision = decide(waiting, starting, &mut rows);
            if let (Decision::Write, true, Some(epoch)) =
                (&decision, waiting.releases, waiting.fence.epoch())
            {
                // Its commit releases the claim: what follows it in the batch finds it so.
                let id = waiting.execution_id.as_str();
                rows.leases.insert(id, Ok((epoch, false)));
            }
            decision
        })
        .collect();
    if !decisions.iter().any(|d| matches!(d, Decision::Write)) {
        conn.client
            .batch_execute("ROLLBACK")
            .await
            .map_err(Failure::Pg)?;
        conn.in_transaction = false;
    } else {
        write_batch(conn, batch, &decisions, &rows).await?;
    }
    Ok(decisions
        .into_iter()
        .map(|decision| match decision {
            Decision::Write => Answer::Done(Ok(())),
            Decision::Refused(refused) => Answer::Done(Err(refused)),
            Decision::Alone => Answer::Alone,
        })
        .collect())
}

/// Decides one append against the rows as the batch left them so far, and when it is
/// accepted, applies it.
fn decide<'b>(
    waiting: &'b Waiting,
    starting: Option<ExecutionRecord>,
    rows: &mut Rows<'b>,
) -> Decision {
    let id = waiting.execution_id.as_str();
    if let Fence::Epoch(epoch) = waiting.fence {
        let current = match rows.leases.get(id) {
            None => None,
            Some(Ok(fence)) => Some(*fence),
            Some(Err(unreadable)) => return Decision::Refused(unreadable.clone()),
        };
        if let Some(refused) = fence_refusal(STORE, id, epoch, current) {
            // Released by this append's own earlier commit, perhaps: the one-append path
            // tells a retry.
            if waiting.releases && current == Some((epoch, false)) {
                return Decision::Alone;
            }
            return Decision::Refused(refused);
        }
    }
    let Some(entry) = rows.executions.get_mut(id) else {
        // A first event starts the execution, and its thread if it has none.
        let Some(record) = starting else {
            return Decision::Alone;
        };
        let held = match rows.threads.get(&record.thread_id) {
            None => None,
            Some(Ok(owner)) => Some(owner),
            Some(Err(unreadable)) => return Decision::Refused(unreadable.clone()),
        };
        let Ok(made) = thread_owner_change(STORE, &record, held) else {
            return Decision::Alone;
        };
        if let Some(owner) = made {
            let thread = record.thread_id.clone();
            rows.made.push((thread.clone(), record.owner_id.clone()));
            rows.threads.insert(thread, Ok(owner));
        }
        rows.started.push(id);
        rows.executions.insert(id, Ok(record));
        return Decision::Write;
    };
    let record = match entry {
        Ok(record) => record,
        Err(unreadable) => return Decision::Refused(unreadable.clone()),
    };
    if record.events != waiting.seq {
        return Decision::Alone;
    }
    let Some(next) = next_record(Some(record), id, waiting.seq, &waiting.event) else {
        return Decision::Alone;
    };
    if pause_change(&next, waiting.seq, &waiting.event).is_some() {
        return Decision::Alone;
    }
    *record = next;
    Decision::Write
}

/// The accepted appends' writes in one statement, and the `COMMIT`, pipelined.
async fn write_batch(
    conn: &mut Conn,
    batch: &[Waiting],
    decisions: &[Decision],
    rows: &Rows<'_>,
) -> Result<(), Failure> {
    let accepted: Vec<&Waiting> = batch
        .iter()
        .zip(decisions)
        .filter(|(_, d)| matches!(d, Decision::Write))
        .map(|(w, _)| w)
        .collect();
    let event_ids: Vec<&str> = accepted.iter().map(|w| w.execution_id.as_str()).collect();
    let seqs: Vec<i64> = accepted.iter().map(|w| sql_int(w.seq)).collect();
    let events: Vec<&str> = accepted.iter().map(|w| w.json.as_str()).collect();
    let epochs: Vec<Option<i64>> = accepted
        .iter()
        .map(|w| w.fence.epoch().map(sql_int))
        .collect();
    // Each execution written once, with the record its last accepted append leaves.
    let written = sorted(event_ids.iter().copied());
    let mut changed = Columns::default();
    let mut started = Columns::default();
    for id in rows.started.iter().chain(&written) {
        let is_started = rows.started.contains(id);
        let (columns, thread) = match is_started {
            true if started.ids.contains(id) => continue,
            true => (&mut started, true),
            false => (&mut changed, false),
        };
        let Some(Ok(record)) = rows.executions.get(id) else {
            // Only an execution whose record could be read is accepted.
            return Err(StoreError::new(
                STORE,
                StoreErrorKind::Invalid,
                format!("execution `{id}`: its record was lost from the batch"),
            )
            .into());
        };
        columns.ids.push(id);
        if thread {
            columns.threads.push(&record.thread_id);
        }
        columns.runnable.push(record.is_runnable());
        columns.records.push(to_json(record)?);
    }
    let made_threads: Vec<&str> = rows.made.iter().map(|(t, _)| t.as_str()).collect();
    let made_owners: Vec<Option<&str>> = rows.made.iter().map(|(_, o)| o.as_deref()).collect();
    let mut released = Released::default();
    for waiting in &accepted {
        released.push(&waiting.as_append());
    }
    let values: [&(dyn ToSql + Sync); 13] = [
        &event_ids,
        &seqs,
        &events,
        &epochs,
        &changed.ids,
        &changed.runnable,
        &changed.records,
        &made_threads,
        &made_owners,
        &started.ids,
        &started.threads,
        &started.runnable,
        &started.records,
    ];
    committed(conn, WRITE, &values, &released).await
}

/// The executions' columns of the write.
#[derive(Default)]
struct Columns<'b> {
    ids: Vec<&'b str>,
    threads: Vec<&'b str>,
    runnable: Vec<bool>,
    records: Vec<String>,
}

/// The rows `statement` locks, when there are keys to lock.
async fn locked_if(
    client: &Client,
    statement: &Statement,
    keys: &[&(dyn ToSql + Sync)],
    any: bool,
) -> Result<Vec<Row>, tokio_postgres::Error> {
    match any {
        true => client.query(statement, keys).await,
        false => Ok(Vec::new()),
    }
}

/// `keys` sorted, each once.
fn sorted<'b>(keys: impl Iterator<Item = &'b str>) -> Vec<&'b str> {
    let mut keys: Vec<&str> = keys.collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The key in a locked row's first column.
fn key<'r>(row: &'r Row, what: &str) -> Result<&'r str, Failure> {
    row.try_get(0).map_err(|e| corrupt(what, &e).into())
}

/// A row the store cannot read, as the refusal of the appends it concerns.
fn store_error(failure: Failure) -> StoreError {
    match failure {
        Failure::Store(error) => error,
        Failure::Pg(error) | Failure::Commit(error) => corrupt("a row of the batch", &error),
    }
}
