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

use rusqlite::{Connection, ErrorCode, TransactionBehavior};
use tokio::sync::oneshot;

use super::append::apply;
use super::sql::{STORE, sqlite_error};
use super::{lease, pins};
use crate::journal::{Fence, Lease, LoopEvent};
use crate::store::{McpApproval, McpDefinitionSeen, McpPin, StoreError, StoreErrorKind};

/// The most appends one transaction takes: bounds how long the first one waits.
const MAX_GROUP: usize = 512;

/// How many times a group is tried again when another process holds the write lock past the
/// busy timeout, before its appends are reported unavailable.
const BUSY_RETRIES: u32 = 5;

/// One write on its way to the writer: an append or a lease operation.
#[derive(Debug)]
struct Job {
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
    /// A definition of an MCP server tool an application saw.
    SeeMcp(McpDefinitionSeen),
    /// A person's approval of a pinned MCP definition.
    ApproveMcp(McpApproval),
    /// A put or a deletion of artifacts.
    Artifacts(super::artifacts::ArtifactWrite),
    /// Sealed arguments kept or forgotten.
    Sealed(super::sealed::SealWrite),
}

/// What a job did.
#[derive(Debug)]
pub(super) enum Done {
    /// Appended, or renewed, or released.
    Written,
    /// The leases claimed.
    Claimed(Vec<Lease>),
    /// A pinned MCP definition after the write (`None`: no pin to approve).
    Pinned(Option<McpPin>),
}

impl Job {
    /// The job, and where its result arrives.
    fn new(work: Work) -> (Job, oneshot::Receiver<Result<Done, StoreError>>) {
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

/// The writer thread's end: where jobs go. The store and its sub-stores share it; dropping the
/// last of them closes the channel, which ends the thread once it has committed what it holds,
/// and waits for it, so the file is closed when that drop returns (it can be reopened or
/// removed).
#[derive(Debug)]
pub(super) struct Writer {
    /// `None` only while dropping, so the thread sees the channel close.
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl Writer {
    /// Starts the writer thread on `conn`.
    pub(super) fn start(conn: Connection, path: &Path) -> Result<Writer, StoreError> {
        let (jobs, received) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("agboss-sqlite-writer".into())
            .spawn(move || run(conn, &received))
            .map_err(|e| {
                StoreError::new(
                    STORE,
                    StoreErrorKind::Unavailable,
                    format!("cannot start the writer of `{}`: {e}", path.display()),
                )
            })?;
        Ok(Writer {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Hands `work` to the thread and waits for what it did.
    pub(super) async fn write(&self, work: Work) -> Result<Done, StoreError> {
        let (job, reply) = Job::new(work);
        self.jobs
            .as_ref()
            .and_then(|jobs| jobs.send(job).ok())
            .ok_or_else(stopped)?;
        reply.await.map_err(|_| stopped())?
    }
}

impl Drop for Writer {
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
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
///
/// The one wait of the stores that is not on the application's clock (docs/architecture.md
/// names it): this thread blocks on the file outside the async runtime, so it waits for another
/// process's lock on the machine's time, in SQLite's busy handler (the busy timeout) and in the
/// pause between tries below. A manual clock would never let it go; real time does, so a test
/// on a manual clock is not held by it longer than the other process holds the lock.
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
                lease::acquire(&tx, execution_id, holder, *ttl)?
                    .into_iter()
                    .collect(),
            )),
            Work::Claim { holder, ttl, limit } => {
                Ok(Done::Claimed(lease::claim(&tx, holder, *ttl, *limit)?))
            }
            Work::Renew(lease) => lease::renew(&tx, lease)?.map(|()| Done::Written),
            Work::Release(lease) => {
                lease::release(&tx, lease)?;
                Ok(Done::Written)
            }
            Work::Artifacts(write) => {
                super::artifacts::apply(&tx, write)?;
                Ok(Done::Written)
            }
            Work::Sealed(write) => {
                super::sealed::apply(&tx, write)?;
                Ok(Done::Written)
            }
            Work::SeeMcp(seen) => pins::see(&tx, seen)?.map(|pin| Done::Pinned(Some(pin))),
            Work::ApproveMcp(approval) => pins::approve(&tx, approval)?.map(Done::Pinned),
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
