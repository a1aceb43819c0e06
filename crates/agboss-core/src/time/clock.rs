//! [`Clock`]: the system clock or a manual one, behind one cheap handle.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant, SystemTime};

use super::manual::{ManualClock, ManualSleep};

/// A point in time on a [`Clock`], as the time elapsed since the clock's origin.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClockTime(Duration);

impl ClockTime {
    /// The time elapsed between `earlier` and `self` (zero if `earlier` is later).
    pub fn saturating_since(self, earlier: ClockTime) -> Duration {
        self.0.saturating_sub(earlier.0)
    }

    /// The time since the clock's origin.
    pub fn since_origin(self) -> Duration {
        self.0
    }

    /// The point `by` later (the latest point there is, should it overflow).
    pub fn saturating_add(self, by: Duration) -> ClockTime {
        ClockTime(self.0.saturating_add(by))
    }
}

/// The clock an application runs on. Cloning is cheap.
///
/// ```
/// use agboss_core::time::{Clock, ManualClock};
/// use std::time::Duration;
///
/// let manual = ManualClock::new();
/// let clock = Clock::from(manual.clone());
/// let start = clock.now();
/// manual.advance(Duration::from_secs(3));
/// assert_eq!(clock.now().saturating_since(start), Duration::from_secs(3));
/// ```
#[derive(Clone, Debug)]
pub struct Clock(Kind);

#[derive(Clone, Debug)]
enum Kind {
    System {
        origin: Instant,
        wall_offset: Option<WallOffset>,
    },
    Manual(ManualClock),
}

/// How far a clock's wall time is off the system's, changeable while the clock runs: what a
/// machine whose clock is set wrong, or stepped by NTP, reads. Only [`Clock::wall_time`] moves
/// with it; timers, timeouts and leases run on the monotonic time, which it leaves alone.
#[derive(Clone, Debug, Default)]
pub struct WallOffset(Arc<AtomicI64>);

impl WallOffset {
    /// No offset yet.
    pub fn new() -> WallOffset {
        WallOffset::default()
    }

    /// The wall time reads `millis` milliseconds ahead of the system's (behind, when negative).
    pub fn set_millis(&self, millis: i64) {
        self.0.store(millis, Ordering::SeqCst);
    }

    /// The offset, in milliseconds.
    pub fn millis(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

impl Clock {
    /// The operating system's monotonic clock; timers run on tokio's timer.
    pub fn system() -> Clock {
        Clock(Kind::System {
            origin: Instant::now(),
            wall_offset: None,
        })
    }

    /// The system's clock with its wall time off by `offset` (a test of clock jumps).
    pub fn system_with_wall_offset(offset: WallOffset) -> Clock {
        Clock(Kind::System {
            origin: Instant::now(),
            wall_offset: Some(offset),
        })
    }

    /// The current time on this clock.
    pub fn now(&self) -> ClockTime {
        match &self.0 {
            Kind::System { origin, .. } => ClockTime(origin.elapsed()),
            Kind::Manual(manual) => ClockTime(manual.elapsed()),
        }
    }

    /// The wall-clock time, for timestamps that leave the process.
    pub fn wall_time(&self) -> SystemTime {
        match &self.0 {
            Kind::System {
                wall_offset: None, ..
            } => SystemTime::now(),
            Kind::System {
                wall_offset: Some(offset),
                ..
            } => {
                let millis = offset.millis();
                let by = Duration::from_millis(millis.unsigned_abs());
                if millis >= 0 {
                    SystemTime::now() + by
                } else {
                    SystemTime::now() - by
                }
            }
            Kind::Manual(manual) => manual.wall_time(),
        }
    }

    /// A future that completes once `duration` has passed on this clock.
    ///
    /// On the system clock it must be polled inside a tokio runtime with its timer enabled.
    pub fn sleep(&self, duration: Duration) -> Sleep {
        Sleep {
            inner: match &self.0 {
                Kind::System { .. } => SleepInner::System {
                    sleep: tokio::time::sleep(duration),
                },
                Kind::Manual(manual) => SleepInner::Manual {
                    sleep: manual.sleep(duration),
                },
            },
        }
    }

    /// The manual clock behind this one, if it is manual.
    pub fn as_manual(&self) -> Option<&ManualClock> {
        match &self.0 {
            Kind::Manual(manual) => Some(manual),
            Kind::System { .. } => None,
        }
    }
}

impl Default for Clock {
    fn default() -> Clock {
        Clock::system()
    }
}

impl From<ManualClock> for Clock {
    fn from(manual: ManualClock) -> Clock {
        Clock(Kind::Manual(manual))
    }
}

impl From<&ManualClock> for Clock {
    fn from(manual: &ManualClock) -> Clock {
        Clock(Kind::Manual(manual.clone()))
    }
}

pin_project_lite::pin_project! {
    /// The future [`Clock::sleep`] returns.
    #[derive(Debug)]
    pub struct Sleep {
        #[pin]
        inner: SleepInner,
    }
}

pin_project_lite::pin_project! {
    #[project = SleepProj]
    #[derive(Debug)]
    enum SleepInner {
        System { #[pin] sleep: tokio::time::Sleep },
        Manual { #[pin] sleep: ManualSleep },
    }
}

impl Future for Sleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match self.project().inner.project() {
            SleepProj::System { sleep } => sleep.poll(cx),
            SleepProj::Manual { sleep } => sleep.poll(cx),
        }
    }
}
