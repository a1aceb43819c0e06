//! Workers: an instance that takes up the executions of a shared store that can go on. Several
//! processes on one store share its executions this way: each claims (with a lease) what nobody
//! drives, so every execution is driven by one of them at a time, and an execution whose
//! instance stopped is taken up by another once its lease runs out.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};

use super::Application;
use super::hosting::Begin;
use crate::context::Signal;
use crate::journal::Lease;
use crate::run::{EventSink, Events, RunError, RunEvent, RunOptions, RunOutcome};
use crate::units::TimeSpan;

/// What one driven execution ended as, for a worker's `on_end` hook.
pub type WorkEnd<'a> = (&'a str, &'a Result<RunOutcome, RunError>);

type Hook<'a> = Box<dyn FnMut(WorkEnd<'_>) + Send + 'a>;

type EventHook<'a> = Box<dyn FnMut(&str, RunEvent) + Send + 'a>;

type Driving<'a> =
    Pin<Box<dyn Future<Output = (String, Result<RunOutcome, RunError>)> + Send + 'a>>;

type Claiming<'a> = Pin<
    Box<
        dyn Future<
                Output = (
                    crate::time::ClockTime,
                    Result<Vec<Lease>, crate::store::StoreError>,
                ),
            > + Send
            + 'a,
    >,
>;

/// A worker being set up: [`Application::worker`], then [`run`](Worker::run).
#[must_use = "a worker does nothing until it runs"]
pub struct Worker<'a> {
    app: &'a Application,
    concurrency: usize,
    poll: Duration,
    /// Claim in batches: (slots, longest wait); `None`: a quarter of `concurrency`, 10 ms.
    batch: Option<(usize, Duration)>,
    until_idle: bool,
    on_end: Option<Hook<'a>>,
    on_event: Option<EventHook<'a>>,
}

/// What a worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkReport {
    /// Executions it claimed.
    pub claimed: usize,
    /// Of those, how many it drove to an answer.
    pub completed: usize,
    /// How many it left waiting for answers.
    pub paused: usize,
    /// How many ended with an error (the execution failed, or the store did), by id with the
    /// error's code.
    pub failed: Vec<(String, String)>,
    /// How many it lost the lease of mid-run (another instance went on with them).
    pub lost: usize,
    /// How many another instance held when this one got to them.
    pub elsewhere: usize,
}

impl WorkReport {
    fn count(&mut self, execution_id: &str, outcome: &Result<RunOutcome, RunError>) {
        match outcome {
            Ok(RunOutcome::Completed(_)) => self.completed += 1,
            Ok(RunOutcome::Paused(_)) => self.paused += 1,
            Ok(RunOutcome::Elsewhere(_)) => self.elsewhere += 1,
            Err(RunError::LeaseLost(_)) => self.lost += 1,
            Err(error) => self.failed.push((execution_id.to_owned(), error.code())),
        }
    }
}

impl Application {
    /// A worker of this application: it claims the executions of the store that can go on
    /// (new ones handed over with [`RunBuilder::submit`](super::RunBuilder::submit), answered
    /// pauses, and those whose instance stopped, once their lease runs out) and drives them, a
    /// few at a time.
    pub fn worker(&self) -> Worker<'_> {
        Worker {
            app: self,
            concurrency: 4,
            poll: Duration::from_secs(1),
            batch: None,
            until_idle: false,
            on_end: None,
            on_event: None,
        }
    }

    /// Recovers what this process, or another that stopped, left unfinished: drives every
    /// execution of the store that can go on and that no live instance holds (not ended, not
    /// only waiting for answers) to its end or its next pause, and returns when none is left.
    /// Call it when the application starts; [`Application::worker`] does it on a timer.
    pub async fn recover(&self) -> WorkReport {
        self.worker().until_idle().run(Signal::new()).await
    }
}

impl<'a> Worker<'a> {
    /// Drives at most `n` executions at once (4 by default; at least 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Asks the store for work every `poll` while it has room (1 s by default), on the
    /// application's clock.
    pub fn poll(mut self, poll: TimeSpan) -> Self {
        self.poll = poll.as_duration().max(Duration::from_millis(1));
        self
    }

    /// Claims in batches: once an execution it drives stops, it claims again when `slots` of
    /// its places are free, or `within` after the first came free, whichever is first, one claim
    /// for every free place. By default a quarter of [`concurrency`](Self::concurrency) (at
    /// least 1: the default worker claims as each place frees) within 10 ms. A claim is a
    /// transaction the store commits durably, so claiming one execution at a time costs a
    /// busy worker a commit per execution; a place left free for a few milliseconds costs
    /// nothing against an agent's run. `claim_batch(1, ..)` claims as each place frees.
    pub fn claim_batch(mut self, slots: usize, within: TimeSpan) -> Self {
        self.batch = Some((slots.max(1), within.as_duration()));
        self
    }

    /// Returns once a claim finds nothing and nothing it claimed still runs, instead of
    /// waiting for more work.
    pub fn until_idle(mut self) -> Self {
        self.until_idle = true;
        self
    }

    /// Calls `hook` with each execution it drove, as its driver stops.
    pub fn on_end(mut self, hook: impl FnMut(WorkEnd<'_>) + Send + 'a) -> Self {
        self.on_end = Some(Box::new(hook));
        self
    }

    /// Calls `hook` with each event of the executions it drives, as they happen (with the
    /// execution's id): the same events `app.run(..).stream()` gives, but for `Finished`
    /// (`on_end` tells that). Executions it does not watch pay nothing for it.
    pub fn on_event(mut self, hook: impl FnMut(&str, RunEvent) + Send + 'a) -> Self {
        self.on_event = Some(Box::new(hook));
        self
    }

    /// Works until `stop` fires (or, [`until_idle`](Self::until_idle), until there is no work):
    /// then it claims nothing more and returns once what it drives has stopped. Dropping the
    /// future instead abandons those executions to their leases: another worker takes them up
    /// when they run out.
    pub async fn run(mut self, stop: Signal) -> WorkReport {
        let app = self.app;
        let mut report = WorkReport::default();
        let mut driving: FuturesUnordered<Driving<'a>> = FuturesUnordered::new();
        // The claim under way. It is polled beside the drives, never awaited alone: a store
        // with a bounded pool hands its connections to the drives waiting for one, and they
        // give them back only while they are polled.
        let mut claiming: Option<Claiming<'a>> = None;
        let mut claim_now = true;
        // Since when a place is free that waits for others to claim with it.
        let mut gathering: Option<crate::time::ClockTime> = None;
        let (batch, within) = self
            .batch
            .unwrap_or(((self.concurrency / 4).max(1), Duration::from_millis(10)));
        let batch = batch.min(self.concurrency);
        let mut idle = false;
        // Executions their workflow refused to resume under its configuration now
        // (`[resume.config-changed]`): claimed again, they are left to their leases, which run
        // out for another instance (with the configuration they ran under) to take them up.
        let mut refused: HashSet<String> = HashSet::new();
        let (sink, mut events) = match self.on_event {
            Some(_) => {
                let (sink, events) = EventSink::new();
                (Some(sink), Some(events))
            }
            None => (None, None),
        };
        loop {
            let room = driving.len() < self.concurrency && !stop.is_cancelled();
            if claiming.is_none() && room && claim_now {
                let limit = self.concurrency - driving.len();
                let claimed_at = app.clock().now();
                let claim = app.store.claim(&app.instance, app.lease_ttl(), limit);
                claiming = Some(Box::pin(async move { (claimed_at, claim.await) }));
                claim_now = false;
                gathering = None;
            }
            if driving.is_empty()
                && claiming.is_none()
                && (stop.is_cancelled() || (self.until_idle && idle))
            {
                told(&mut events, &mut self.on_event);
                return report;
            }
            tokio::select! {
                Some((execution_id, outcome)) = driving.next(), if !driving.is_empty() => {
                    // What the execution told before it ended comes before its end.
                    told(&mut events, &mut self.on_event);
                    report.count(&execution_id, &outcome);
                    if refused_for_config(&outcome) {
                        refused.insert(execution_id.clone());
                    }
                    if let Some(hook) = &mut self.on_end {
                        hook((&execution_id, &outcome));
                    }
                    // A place came free: look for more once enough are (or soon).
                    let free = self.concurrency - driving.len();
                    claim_now = claim_or_gather(free, batch, &mut gathering, app);
                }
                (claimed_at, claimed) = async { claiming.as_mut().expect("a claim").await }, if claiming.is_some() => {
                    claiming = None;
                    match claimed {
                        Ok(leases) => {
                            report.claimed += leases.len();
                            let mut driven = 0;
                            for lease in leases {
                                if !refused.contains(&lease.execution_id) {
                                    let sink = sink.as_ref().map(|s| s.for_execution(&lease.execution_id));
                                    driving.push(Box::pin(drive(app, lease, claimed_at, sink)));
                                    driven += 1;
                                }
                            }
                            idle = driven == 0;
                            // Found some: there may be more, claimed as places free.
                            let free = self.concurrency - driving.len();
                            claim_now = !idle && claim_or_gather(free, batch, &mut gathering, app);
                        }
                        Err(error) => {
                            idle = true;
                            tracing::warn!(instance = %app.instance, %error, "a worker could not claim work; it asks again");
                        }
                    }
                }
                () = app.clock().sleep(self.poll), if claiming.is_none() && room && !claim_now => {
                    claim_now = true;
                }
                () = gather(app, gathering, within), if gathering.is_some() && claiming.is_none() && room && !claim_now => {
                    claim_now = true;
                }
                Some((execution_id, event)) = async { events.as_mut().expect("events").recv().await }, if events.is_some() => {
                    if let Some(hook) = &mut self.on_event {
                        hook(&execution_id, event);
                    }
                }
                () = stop.cancelled(), if !stop.is_cancelled() => {}
            }
        }
    }
}

/// Whether `free` places are enough to claim for now; if not, and one is free, it waits for
/// others from now (or from when it began to).
fn claim_or_gather(
    free: usize,
    batch: usize,
    gathering: &mut Option<crate::time::ClockTime>,
    app: &Application,
) -> bool {
    if free >= batch {
        return true;
    }
    if free > 0 {
        gathering.get_or_insert_with(|| app.clock().now());
    }
    false
}

/// Until `within` after `since` on the application's clock.
async fn gather(app: &Application, since: Option<crate::time::ClockTime>, within: Duration) {
    if let Some(since) = since {
        let waited = app.clock().now().saturating_since(since);
        app.clock().sleep(within.saturating_sub(waited)).await;
    }
}

/// Hands `hook` the events sent so far.
fn told(events: &mut Option<Events>, hook: &mut Option<EventHook<'_>>) {
    if let (Some(events), Some(hook)) = (events.as_mut(), hook.as_mut()) {
        while let Ok((execution_id, event)) = events.try_recv() {
            hook(&execution_id, event);
        }
    }
}

/// Whether `outcome` is a resume its workflow refused under another configuration.
fn refused_for_config(outcome: &Result<RunOutcome, RunError>) -> bool {
    matches!(outcome, Err(RunError::Refused(problem))
        if problem.code() == agboss_rules::codes::RESUME_CONFIG_CHANGED.id())
}

/// Drives the execution `lease` claims, under its local lock.
async fn drive(
    app: &Application,
    lease: Lease,
    claimed_at: crate::time::ClockTime,
    events: Option<EventSink>,
) -> (String, Result<RunOutcome, RunError>) {
    let execution_id = lease.execution_id.clone();
    let _driver = app.locks.lock(&execution_id).await;
    let options = RunOptions {
        events,
        ..RunOptions::default()
    };
    let begin = Begin::Journal(options);
    let outcome = app
        .drive_claimed(lease, claimed_at, Signal::new(), begin)
        .await;
    (execution_id, outcome)
}
