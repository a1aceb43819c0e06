//! How a store waits: on the application's clock, handed over by
//! [`Store::use_clock`](crate::store::Store::use_clock) (the system clock until then).
//!
//! On the system clock a wait is one of its timers. A [`ManualClock`](crate::time::ManualClock)
//! moves only when a test moves it, while what a store waits for (a server, another process's
//! lock) moves in real time: waiting on the manual clock would hang the test, and waiting in
//! real time would read the time behind the clock's back. So on a manual clock the store does
//! not wait on time at all: a backoff passes at once (the task yields), and an operation waits
//! for its server without a deadline. It registers no timer on the manual clock either, so it
//! never counts among [`ManualClock::pending_timers`](crate::time::ManualClock::pending_timers).

use std::future::Future;
use std::sync::RwLock;
use std::time::Duration;

use crate::time::Clock;

/// The clock a store waits on, changeable once the store is shared.
#[derive(Debug, Default)]
pub(crate) struct Waits {
    clock: RwLock<Clock>,
}

impl Waits {
    /// Waits on `clock` from now on.
    pub(crate) fn use_clock(&self, clock: &Clock) {
        // A clock is replaced whole: a poisoned lock holds a whole one.
        *self.clock.write().unwrap_or_else(|p| p.into_inner()) = clock.clone();
    }

    /// The clock to wait on.
    pub(crate) fn clock(&self) -> Clock {
        self.clock.read().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// Pauses for `pause` on `clock` before a store tries an operation again; at once on a manual
/// clock.
pub(crate) async fn backoff(clock: &Clock, pause: Duration) {
    if clock.as_manual().is_some() {
        tokio::task::yield_now().await;
    } else {
        clock.sleep(pause).await;
    }
}

/// `work`'s output, or `None` once `limit` passed on `clock` without it; on a manual clock,
/// `work`'s output however long it takes.
pub(crate) async fn within<F: Future>(
    clock: &Clock,
    limit: Duration,
    work: F,
) -> Option<F::Output> {
    if clock.as_manual().is_some() {
        return Some(work.await);
    }
    tokio::select! {
        biased;
        output = work => Some(output),
        () = clock.sleep(limit) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::ManualClock;

    #[tokio::test]
    async fn on_a_manual_clock_nothing_waits_on_it() {
        let manual = ManualClock::new();
        let clock = Clock::from(&manual);
        backoff(&clock, Duration::from_secs(3_600)).await;
        let slow = async {
            tokio::task::yield_now().await;
            7
        };
        assert_eq!(within(&clock, Duration::ZERO, slow).await, Some(7));
        assert_eq!(manual.pending_timers(), 0, "no timer on the test's clock");
        assert_eq!(
            manual.elapsed(),
            Duration::ZERO,
            "and its time did not move"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn on_the_system_clock_a_wait_is_one_of_its_timers() {
        let clock = Clock::system();
        let start = tokio::time::Instant::now();
        backoff(&clock, Duration::from_millis(40)).await;
        assert_eq!(start.elapsed(), Duration::from_millis(40));
        let never = std::future::pending::<()>();
        assert_eq!(within(&clock, Duration::from_secs(5), never).await, None);
        assert_eq!(start.elapsed(), Duration::from_millis(5_040));
        let waits = Waits::default();
        assert!(
            waits.clock().as_manual().is_none(),
            "the system's until told"
        );
        waits.use_clock(&Clock::from(ManualClock::new()));
        assert!(waits.clock().as_manual().is_some());
    }
}
