//! The application's clock: every timer of the runtime runs on it.
//!
//! Production uses [`Clock::system`]; tests use a [`ManualClock`] whose
//! [`advance`](ManualClock::advance) fires due timers deterministically. Nothing else in the
//! runtime reads the time or sleeps.

mod clock;
mod manual;

pub use clock::{Clock, ClockTime, Sleep, WallOffset};
pub use manual::ManualClock;
