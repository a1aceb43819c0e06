//! [`ManualClock`]: time that moves only when a test says so.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

use tokio::sync::Notify;

/// A clock for tests: it starts at zero and moves only on [`advance`](Self::advance), which
/// wakes every timer that became due, earliest first.
///
/// ```
/// use agboss_core::time::{Clock, ManualClock};
/// use std::time::Duration;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let manual = ManualClock::new();
/// let clock = Clock::from(&manual);
/// let sleeper = tokio::spawn(clock.sleep(Duration::from_secs(10)));
/// manual.wait_for_timers(1).await;      // the sleeper is now waiting on the clock
/// manual.advance(Duration::from_secs(10));
/// sleeper.await.unwrap();
/// # });
/// ```
#[derive(Clone)]
pub struct ManualClock {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    timer_added: Notify,
}

struct State {
    now: Duration,
    wall_origin: SystemTime,
    next_id: u64,
    timers: BTreeMap<(Duration, u64), Waker>,
}

impl ManualClock {
    /// A clock at zero whose wall time starts at 2026-01-01T00:00:00Z.
    pub fn new() -> ManualClock {
        ManualClock::with_wall_origin(SystemTime::UNIX_EPOCH + Duration::from_secs(1_767_225_600))
    }

    /// A clock at zero whose wall time starts at `origin`.
    pub fn with_wall_origin(origin: SystemTime) -> ManualClock {
        ManualClock {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    now: Duration::ZERO,
                    wall_origin: origin,
                    next_id: 0,
                    timers: BTreeMap::new(),
                }),
                timer_added: Notify::new(),
            }),
        }
    }

    /// Moves the clock forward by `by` and wakes every timer now due, earliest first.
    pub fn advance(&self, by: impl Into<Duration>) {
        let due: Vec<Waker> = {
            let mut state = self.state();
            let now = state.now.saturating_add(by.into());
            state.now = now;
            let later = state.timers.split_off(&(now, u64::MAX));
            std::mem::replace(&mut state.timers, later)
                .into_values()
                .collect()
        };
        for waker in due {
            waker.wake();
        }
    }

    /// The time elapsed on this clock since it was made.
    pub fn elapsed(&self) -> Duration {
        self.state().now
    }

    /// The wall time: the origin plus the elapsed time.
    pub fn wall_time(&self) -> SystemTime {
        let state = self.state();
        state.wall_origin + state.now
    }

    /// How many timers are waiting on this clock.
    pub fn pending_timers(&self) -> usize {
        self.state().timers.len()
    }

    /// Waits until at least `count` timers are waiting on this clock, so that a test can
    /// advance the clock knowing its tasks have reached their timers.
    pub async fn wait_for_timers(&self, count: usize) {
        loop {
            let notified = self.shared.timer_added.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.pending_timers() >= count {
                return;
            }
            notified.await;
        }
    }

    pub(super) fn sleep(&self, duration: Duration) -> ManualSleep {
        ManualSleep {
            clock: self.clone(),
            deadline: self.elapsed().saturating_add(duration),
            key: None,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while holding this lock cannot leave the state half-written: every update is
        // a single assignment or map operation, so a poisoned lock is still consistent.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Default for ManualClock {
    fn default() -> ManualClock {
        ManualClock::new()
    }
}

impl fmt::Debug for ManualClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("ManualClock")
            .field("now", &state.now)
            .field("pending_timers", &state.timers.len())
            .finish()
    }
}

/// A timer on a [`ManualClock`].
#[derive(Debug)]
pub(super) struct ManualSleep {
    clock: ManualClock,
    deadline: Duration,
    key: Option<(Duration, u64)>,
}

impl Future for ManualSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        let mut state = this.clock.state();
        if state.now >= this.deadline {
            if let Some(key) = this.key.take() {
                state.timers.remove(&key);
            }
            return Poll::Ready(());
        }
        let added = match this.key {
            Some(key) => {
                state.timers.insert(key, cx.waker().clone());
                false
            }
            None => {
                let key = (this.deadline, state.next_id);
                state.next_id += 1;
                state.timers.insert(key, cx.waker().clone());
                this.key = Some(key);
                true
            }
        };
        drop(state);
        if added {
            this.clock.shared.timer_added.notify_waiters();
        }
        Poll::Pending
    }
}

impl Drop for ManualSleep {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            self.clock.state().timers.remove(&key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::Clock;

    #[tokio::test]
    async fn fires_due_timers_only() {
        let manual = ManualClock::new();
        let clock = Clock::from(&manual);
        let short = tokio::spawn(clock.sleep(Duration::from_secs(1)));
        let long = tokio::spawn(clock.sleep(Duration::from_secs(5)));
        manual.wait_for_timers(2).await;
        manual.advance(Duration::from_secs(2));
        short.await.unwrap();
        assert!(!long.is_finished());
        assert_eq!(manual.pending_timers(), 1);
        manual.advance(Duration::from_secs(3));
        long.await.unwrap();
        assert_eq!(manual.pending_timers(), 0);
    }

    #[tokio::test]
    async fn a_dropped_timer_leaves_the_clock() {
        let manual = ManualClock::new();
        let clock = Clock::from(&manual);
        let sleeper = tokio::spawn(clock.sleep(Duration::from_secs(1)));
        manual.wait_for_timers(1).await;
        sleeper.abort();
        let _ = sleeper.await;
        assert_eq!(manual.pending_timers(), 0);
    }

    #[test]
    fn wall_time_moves_with_the_clock() {
        let manual = ManualClock::new();
        let before = manual.wall_time();
        manual.advance(Duration::from_millis(1500));
        assert_eq!(
            manual.wall_time().duration_since(before).unwrap(),
            Duration::from_millis(1500)
        );
    }
}
