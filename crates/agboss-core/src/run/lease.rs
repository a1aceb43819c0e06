//! Keeping an execution's lease while its driver runs: renewals on the application's clock,
//! and the loop's question before each model or tool call, "may I still start one?".
//!
//! The keeper counts the lease as valid until one ttl after the start of the last renewal that
//! succeeded (measured on the application's monotonic clock, before the request went out, so
//! never later than the store's own expiry). When the store refuses a renewal (another instance
//! took the lease) or stays silent until that moment, the lease is lost: the execution's signal
//! fires with [`ExecutionLeaseLostError`], the loop starts no further call and writes nothing
//! more. While renewals fail but the lease still runs, no new call starts either: the loop
//! waits for the store to answer.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agboss_rules::codes;
use tokio::sync::Notify;

use crate::context::{AbortKind, AbortReason, Signal};
use crate::journal::Lease;
use crate::store::{Store, StoreError};
use crate::time::{Clock, ClockTime};

/// The instance lost an execution's lease mid-run: it starts no further model or tool call for
/// it, and its late writes are refused by the lease's fence.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct ExecutionLeaseLostError {
    /// The execution.
    pub execution_id: String,
    /// The epoch of the claim that was lost.
    pub epoch: u64,
    /// How it was lost.
    pub loss: LeaseLoss,
}

/// How a lease was lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeaseLoss {
    /// The store refused a renewal or a write: another instance holds a newer claim (or the
    /// claim was released). The store's words.
    Taken(String),
    /// The store did not answer until the lease ran out (by this instance's clock).
    StoreSilent {
        /// The lease's ttl.
        ttl: Duration,
        /// The last error the store gave, if it gave one.
        last_error: Option<String>,
    },
}

impl ExecutionLeaseLostError {
    /// `lease.lost`.
    pub fn code(&self) -> &'static str {
        codes::LEASE_LOST.id()
    }

    fn message(&self) -> String {
        let why = match &self.loss {
            LeaseLoss::Taken(detail) => format!("claim {} was taken over ({detail})", self.epoch),
            LeaseLoss::StoreSilent { ttl, last_error } => format!(
                "claim {} ran out: the store answered no renewal for {} ms{}",
                self.epoch,
                ttl.as_millis(),
                last_error
                    .as_deref()
                    .map(|e| format!(" (last: {e})"))
                    .unwrap_or_default()
            ),
        };
        codes::LEASE_LOST.fill(&[("execution", &self.execution_id), ("why", &why)])
    }
}

/// Renews one lease while a driver runs, until dropped.
pub(crate) struct LeaseKeeper {
    shared: Arc<Shared>,
    renewer: tokio::task::JoinHandle<()>,
}

struct Shared {
    lease: Lease,
    store: Arc<dyn Store>,
    clock: Clock,
    /// The execution's signal, fired when the lease is lost.
    signal: Signal,
    /// Until when the lease is valid, by this instance's clock: nanoseconds since its origin
    /// (read before every append, so an atomic rather than a lock).
    valid_until: AtomicU64,
    /// Whether the last renewal went through.
    healthy: AtomicBool,
    last_error: Mutex<Option<String>>,
    lost: OnceLock<ExecutionLeaseLostError>,
    /// Whether the run's last append released the lease with it: nothing is renewed after,
    /// and a renewal refused meanwhile is not a loss.
    released: AtomicBool,
    changed: Notify,
}

impl LeaseKeeper {
    /// Keeps `lease`, claimed at `claimed_at` (taken before the claim was asked for), for the
    /// execution whose signal is `signal`.
    pub(crate) fn start(
        lease: Lease,
        claimed_at: ClockTime,
        store: Arc<dyn Store>,
        clock: Clock,
        signal: Signal,
    ) -> LeaseKeeper {
        let shared = Arc::new(Shared {
            valid_until: AtomicU64::new(nanos(claimed_at.saturating_add(lease.ttl))),
            lease,
            store,
            clock,
            signal,
            healthy: AtomicBool::new(true),
            last_error: Mutex::new(None),
            lost: OnceLock::new(),
            released: AtomicBool::new(false),
            changed: Notify::new(),
        });
        let renewer = tokio::spawn(renew(shared.clone()));
        LeaseKeeper { shared, renewer }
    }

    /// The lease kept.
    pub(crate) fn lease(&self) -> &Lease {
        &self.shared.lease
    }

    /// Waits until a call may start: at once while renewals go through; while they fail, until
    /// one goes through again. `Err` once the lease is lost.
    pub(crate) async fn may_start(&self) -> Result<(), ExecutionLeaseLostError> {
        let shared = &self.shared;
        loop {
            let changed = shared.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            shared.check_time();
            if let Some(lost) = shared.lost.get() {
                return Err(lost.clone());
            }
            if shared.healthy.load(Ordering::SeqCst) {
                return Ok(());
            }
            let left = shared.left();
            tokio::select! {
                () = changed => {}
                () = shared.clock.sleep(left) => {}
            }
        }
    }

    /// Waits `backoff` before a write is tried again, or less if the lease runs out sooner.
    pub(crate) async fn wait_to_retry(&self, backoff: Duration) {
        let left = self.shared.left();
        self.shared.clock.sleep(backoff.min(left)).await;
    }

    /// Why the lease is lost, if it is (checked against the clock now).
    pub(crate) fn lost(&self) -> Option<ExecutionLeaseLostError> {
        self.shared.check_time();
        self.shared.lost.get().cloned()
    }

    /// Takes note that the run's last append released the lease
    /// ([`Store::append_releasing`]): renewals stop.
    pub(crate) fn released_with_last_append(&self) {
        self.shared.released.store(true, Ordering::SeqCst);
    }

    /// Whether the run's last append released the lease.
    pub(crate) fn is_released(&self) -> bool {
        self.shared.released.load(Ordering::SeqCst)
    }

    /// Takes note that the store refused a write of this claim: the lease is lost.
    pub(crate) fn refused(&self, error: &StoreError) -> ExecutionLeaseLostError {
        self.shared
            .lose(LeaseLoss::Taken(error.detail.clone()))
            .clone()
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.renewer.abort();
    }
}

impl Shared {
    fn left(&self) -> Duration {
        let until = Duration::from_nanos(self.valid_until.load(Ordering::Acquire));
        until.saturating_sub(self.clock.now().since_origin())
    }

    /// Loses the lease if its time ran out without a renewal.
    fn check_time(&self) {
        if self.lost.get().is_none() && self.left().is_zero() {
            let last_error = self
                .last_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .clone();
            self.lose(LeaseLoss::StoreSilent {
                ttl: self.lease.ttl,
                last_error,
            });
        }
    }

    fn lose(&self, loss: LeaseLoss) -> &ExecutionLeaseLostError {
        let lost = self.lost.get_or_init(|| {
            let error = ExecutionLeaseLostError {
                execution_id: self.lease.execution_id.clone(),
                epoch: self.lease.epoch,
                loss,
            };
            tracing::warn!(execution_id = %error.execution_id, epoch = error.epoch, "{error}");
            self.signal
                .cancel(AbortReason::new(AbortKind::LeaseLost, error.to_string()));
            error
        });
        self.changed.notify_waiters();
        lost
    }
}

/// `time` as the nanoseconds since its clock's origin (saturating: 584 years).
fn nanos(time: ClockTime) -> u64 {
    u64::try_from(time.since_origin().as_nanos()).unwrap_or(u64::MAX)
}

/// Renews every third of the ttl; after a failed renewal, again sooner. Stops when the lease is
/// lost.
async fn renew(shared: Arc<Shared>) {
    let ttl = shared.lease.ttl;
    let period = (ttl / 3).max(Duration::from_millis(1));
    let retry = (ttl / 10).max(Duration::from_millis(1));
    let mut wait = period;
    loop {
        let left = shared.left();
        shared.clock.sleep(wait.min(left)).await;
        shared.check_time();
        if shared.lost.get().is_some() || shared.released.load(Ordering::SeqCst) {
            return;
        }
        let sent = shared.clock.now();
        let left = shared.left();
        let renewed = tokio::select! {
            renewed = shared.store.renew(&shared.lease) => Some(renewed),
            () = shared.clock.sleep(left) => None,
        };
        match renewed {
            Some(Ok(())) => {
                shared
                    .valid_until
                    .store(nanos(sent.saturating_add(ttl)), Ordering::Release);
                shared.healthy.store(true, Ordering::SeqCst);
                shared.changed.notify_waiters();
                wait = period;
            }
            // Refused as released by the run's last append, sent meanwhile: not a loss.
            Some(Err(error)) if error.is_fenced() && shared.released.load(Ordering::SeqCst) => {
                return;
            }
            Some(Err(error)) if error.is_fenced() => {
                shared.lose(LeaseLoss::Taken(error.detail));
                return;
            }
            Some(Err(error)) => {
                *shared.last_error.lock().unwrap_or_else(|p| p.into_inner()) =
                    Some(error.to_string());
                shared.healthy.store(false, Ordering::SeqCst);
                shared.changed.notify_waiters();
                wait = retry;
            }
            // The store stayed silent until the lease ran out.
            None => {
                shared.check_time();
                shared.healthy.store(false, Ordering::SeqCst);
                shared.changed.notify_waiters();
                wait = retry;
            }
        }
    }
}
