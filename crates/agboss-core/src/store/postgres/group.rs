//! Group commit: the appends of different executions that wait at the same moment share one
//! transaction, so one commit (one WAL flush, two round trips) answers all of them.
//!
//! Which appends join: every one that names no pause, the bulk of a run (its start, the
//! model's answers, the calls and their results). An append that opens, awaits or resolves a
//! pause takes the one-append path of [`append`](super::append): a pause's row is global
//! (another execution may name it), not worth a second set of rules.
//!
//! How: an append queues itself and waits for its answer. While fewer than [`BATCHES`] batches
//! are running, the append that finds a place free leads: it takes everything queued (up to
//! [`MAX_BATCH`], its own append among them), commits it and answers each, and once its own is
//! answered hands whatever queued meanwhile to a task that goes on until the queue is empty.
//! A batch of one append is written by the one-append path (its statements are simpler, and
//! quicker alone), in its place, so that what queues meanwhile still goes together. A waiting
//! append whose caller gave up before its batch began is dropped unwritten; a leader whose
//! caller gives up mid-batch drops its connection, so its transaction ends as the one-append
//! path's would, and the appends of that batch are decided by the one-append path (which finds
//! a commit that landed).
//!
//! What a batch checks and writes is [`batch`](super::batch)'s. A batch that failed as a whole
//! before its commit sends each of its appends to the one-append path; a commit whose answer
//! was lost is reported to each as the one-append path reports it (the holder's retry finds
//! what was written, and it is not written twice).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::append::{self, pause_named};
use super::batch::{Answer, Waiting, checked_batch};
use super::pool::{Failure, Pool};
use super::write::Append;
use crate::journal::LoopEvent;

/// How many batches may run at once: while one waits for its commit, the next is checked.
const BATCHES: usize = 2;

/// The most appends one batch takes.
const MAX_BATCH: usize = 256;

/// Whether an append may join a batch (see the module).
pub(super) fn joins(event: &LoopEvent) -> bool {
    pause_named(event).is_none()
}

/// The queue of one store's appends waiting for a batch.
#[derive(Debug, Default)]
pub(super) struct Group {
    queue: Mutex<Queue>,
}

#[derive(Debug, Default)]
struct Queue {
    waiting: Vec<Waiting>,
    /// Batches running (at most [`BATCHES`]).
    running: usize,
}

impl Group {
    /// Queues `append` and waits for its batch's answer. An append that finds a batch's place
    /// free leads: it runs batches itself until its own is answered (alone, its batch is the
    /// first), then hands what is still queued to a task of its own.
    pub(super) async fn append(self: &Arc<Self>, pool: &Arc<Pool>, append: &Append<'_>) -> Answer {
        // A batch handed over runs on a task; outside a runtime the one-append path says why
        // nothing can run.
        if tokio::runtime::Handle::try_current().is_err() {
            return Answer::Alone;
        }
        let (answer, mut answered) = oneshot::channel();
        let leads = {
            let mut queue = self.lock();
            queue.waiting.push(Waiting {
                execution_id: append.execution_id.to_owned(),
                seq: append.seq,
                event: append.event.clone(),
                json: append.json.to_owned(),
                fence: append.fence,
                releases: append.releases,
                answer,
            });
            let leads = queue.running < BATCHES;
            queue.running += usize::from(leads);
            leads
        };
        if leads {
            let mut place = Place {
                group: Arc::clone(self),
                pool: Arc::clone(pool),
                held: true,
            };
            while let Some(batch) = place.take() {
                place.run(batch).await;
                if let Ok(answer) = answered.try_recv() {
                    place.hand_over();
                    return answer;
                }
            }
            // The queue emptied while another batch took this append: its answer comes.
        }
        // A batch that ended without answering (its caller gave up, its task panicked, the
        // runtime is going away) leaves the append to the one-append path.
        answered.await.unwrap_or(Answer::Alone)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        // The queue is changed whole under the lock: a poisoned one is consistent.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One of the [`BATCHES`] places, held by whoever runs batches in it: a leading append, or
/// the task it handed over to.
struct Place {
    group: Arc<Group>,
    pool: Arc<Pool>,
    /// Whether it is still held (not given back or handed over).
    held: bool,
}

impl Place {
    /// The next batch, or `None` with the place given back when nothing waits (one step under
    /// the queue's lock, so an append queued after it finds the place free).
    fn take(&mut self) -> Option<Vec<Waiting>> {
        let mut queue = self.group.lock();
        // A caller that gave up is not written for.
        queue.waiting.retain(|w| !w.answer.is_closed());
        if queue.waiting.is_empty() {
            queue.running -= 1;
            self.held = false;
            return None;
        }
        let taken = queue.waiting.len().min(MAX_BATCH);
        Some(queue.waiting.drain(..taken).collect())
    }

    /// Commits `batch` and answers each of its appends.
    async fn run(&self, batch: Vec<Waiting>) {
        // An append alone is quicker by the one-append path's simpler statements (measured:
        // docs/performance.md), and decided the same.
        let answers = match &batch[..] {
            [one] => vec![Answer::Done(
                append::alone(&self.pool, &one.as_append()).await,
            )],
            _ => commit(&self.pool, &batch).await,
        };
        for (waiting, answer) in batch.into_iter().zip(answers) {
            let _ = waiting.answer.send(answer);
        }
    }

    /// Gives the place back if nothing waits, else hands it to a task that runs what waits.
    fn hand_over(&mut self) {
        if !self.held {
            return;
        }
        let mut queue = self.group.lock();
        if queue.waiting.is_empty() || tokio::runtime::Handle::try_current().is_err() {
            queue.running -= 1;
            if queue.running == 0 {
                // Nobody is left to run them: each goes to the one-append path.
                queue.waiting.clear();
            }
            self.held = false;
            return;
        }
        drop(queue);
        let place = Place {
            group: Arc::clone(&self.group),
            pool: Arc::clone(&self.pool),
            held: true,
        };
        self.held = false;
        tokio::spawn(drain(place));
    }
}

impl Drop for Place {
    /// A leader whose caller gave up, or a task that unwound, hands its place over as well.
    fn drop(&mut self) {
        self.hand_over();
    }
}

/// Runs batches in `place` until the queue is empty.
async fn drain(mut place: Place) {
    while let Some(batch) = place.take() {
        place.run(batch).await;
    }
}

/// One batch, tried as any operation of the store is; the answer of each append in order.
async fn commit(pool: &Pool, batch: &[Waiting]) -> Vec<Answer> {
    let commit_lost = AtomicBool::new(false);
    let commit_lost = &commit_lost;
    let tried = pool
        .run(|mut conn, _| async move {
            let result = checked_batch(&mut conn, batch).await;
            commit_lost.store(matches!(result, Err(Failure::Commit(_))), Ordering::Relaxed);
            (conn, result)
        })
        .await;
    match tried {
        Ok(answers) => answers,
        // The commit was sent and its answer lost: each append is told so, as the one-append
        // path tells it (the holder's retry finds what was written).
        Err(lost) if commit_lost.load(Ordering::Relaxed) => batch
            .iter()
            .map(|_| Answer::Done(Err(lost.clone())))
            .collect(),
        // The batch failed as a whole, before a commit: nothing of it was written. Each append
        // is decided alone; a batch failing is out of the ordinary (what one append alone
        // would fail on is left to that path), so it is said.
        Err(error) => {
            let appends = batch.len();
            tracing::warn!(
                %error,
                appends,
                "a batch failed before its commit: each append goes alone"
            );
            batch.iter().map(|_| Answer::Alone).collect()
        }
    }
}
