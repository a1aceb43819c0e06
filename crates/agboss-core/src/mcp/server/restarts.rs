//! [`Restarts`]: how soon a server that keeps failing is started again (fault plan T19).
//!
//! A failure is a start that did not give a session (the program exited, did not answer
//! `initialize` in time, or the call waiting on the start was dropped), or a session that broke
//! during a call. After the first failure in a row the server is started again at once, as a
//! crash mid-call has always been; after the `n`-th (`n` ≥ 2) not before
//! [`FIRST_BACKOFF`] × 2^(n-2) has passed on the application's clock, at most [`MAX_BACKOFF`].
//! Meanwhile a call is refused at once with `[mcp.restart-backoff]`, naming the last failure.
//! A call the server answers (a result or an error of its own) ends the run of failures.

use std::sync::Mutex;
use std::time::Duration;

use crate::mcp::McpError;
use crate::time::{Clock, ClockTime};

/// The wait after the second failure in a row.
pub const FIRST_BACKOFF: Duration = Duration::from_secs(1);

/// The longest wait between two starts of a failing server.
pub const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// The failures in a row of one server, and when it may be started again.
#[derive(Debug, Default)]
pub(crate) struct Restarts {
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    failures: u32,
    not_before: Option<ClockTime>,
    /// The last failure, as its message says it.
    last: String,
    /// How many times the server was started (tried), over the connection's life.
    starts: u64,
}

/// The wait after the `failures`-th failure in a row.
pub(crate) fn backoff(failures: u32) -> Duration {
    if failures < 2 {
        return Duration::ZERO;
    }
    let doublings = (failures - 2).min(16);
    FIRST_BACKOFF
        .saturating_mul(1 << doublings)
        .min(MAX_BACKOFF)
}

impl Restarts {
    /// Whether the server may be started at `now`: counted as a start when it may, else the
    /// refusal.
    pub(crate) fn admit(&self, server: &'static str, now: ClockTime) -> Result<(), McpError> {
        let mut state = self.lock();
        if let Some(at) = state.not_before
            && at > now
        {
            return Err(McpError::BackingOff {
                server,
                failures: state.failures,
                wait: at.saturating_since(now),
                last: state.last.clone(),
            });
        }
        state.starts += 1;
        Ok(())
    }

    /// A start of server `server`, when it may start now on `clock` (else the refusal): hand
    /// its result to [`Attempt::ended`]; dropped before that (the call that waited on it
    /// ended), it counts as a failure.
    pub(crate) fn attempt<'a>(
        &'a self,
        server: &'static str,
        clock: &'a Clock,
    ) -> Result<Attempt<'a>, McpError> {
        self.admit(server, clock.now())?;
        Ok(Attempt {
            restarts: self,
            clock,
            armed: true,
        })
    }

    /// The server failed at `now`, `why`.
    pub(crate) fn failed(&self, now: ClockTime, why: String) {
        let mut state = self.lock();
        state.failures = state.failures.saturating_add(1);
        state.not_before = Some(now.saturating_add(backoff(state.failures)));
        state.last = why;
    }

    /// The server answered a call: its run of failures ends.
    pub(crate) fn answered(&self) {
        let mut state = self.lock();
        if state.failures > 0 {
            state.failures = 0;
            state.not_before = None;
        }
    }

    /// How many times the server was started (tried).
    pub(crate) fn starts(&self) -> u64 {
        self.lock().starts
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A start under way: a failure unless it ends with a session.
pub(crate) struct Attempt<'a> {
    restarts: &'a Restarts,
    clock: &'a Clock,
    armed: bool,
}

impl Attempt<'_> {
    /// How the start ended: a failure is counted.
    pub(crate) fn ended<T>(mut self, result: Result<T, McpError>) -> Result<T, McpError> {
        self.armed = false;
        if let Err(e) = &result {
            self.restarts.failed(self.clock.now(), e.to_string());
        }
        result
    }
}

impl Drop for Attempt<'_> {
    fn drop(&mut self) {
        if self.armed {
            let why = "the start was abandoned before the server answered (the call that waited on it ended)";
            self.restarts.failed(self.clock.now(), why.to_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::{Clock, ManualClock};

    #[test]
    fn the_wait_doubles_from_the_second_failure_up_to_its_cap() {
        let waits: Vec<u64> = (0..10).map(|n| backoff(n).as_secs()).collect();
        assert_eq!(waits, [0, 0, 1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn a_failing_server_waits_longer_each_time_until_it_answers() {
        let manual = ManualClock::new();
        let clock = Clock::from(manual.clone());
        let restarts = Restarts::default();
        assert!(restarts.admit("fake", clock.now()).is_ok());
        restarts.failed(clock.now(), "the process exited".into());
        assert!(restarts.admit("fake", clock.now()).is_ok(), "once at once");
        restarts.failed(clock.now(), "the process exited again".into());
        let refused = restarts.admit("fake", clock.now()).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "[mcp.restart-backoff] server `fake` failed 2 times in a row, so it is not started again for 1 s; the last failure: the process exited again"
        );
        manual.advance(Duration::from_secs(1));
        assert!(restarts.admit("fake", clock.now()).is_ok());
        assert_eq!(restarts.starts(), 3);
        restarts.answered();
        restarts.failed(clock.now(), "the process exited".into());
        assert!(
            restarts.admit("fake", clock.now()).is_ok(),
            "a new run of failures"
        );
    }

    #[test]
    fn a_start_dropped_before_it_ends_is_a_failure() {
        let clock = Clock::from(ManualClock::new());
        let restarts = Restarts::default();
        drop(restarts.attempt("fake", &clock));
        let ok: Result<(), McpError> = Ok(());
        assert!(
            restarts
                .attempt("fake", &clock)
                .unwrap_or_else(|e| panic!("{e}"))
                .ended(ok)
                .is_ok()
        );
        drop(restarts.attempt("fake", &clock));
        let Err(refused) = restarts.attempt("fake", &clock) else {
            panic!("two failures in a row: a backoff");
        };
        let text = refused.to_string();
        assert!(text.contains("failed 2 times in a row"), "{text}");
        assert!(text.ends_with("the start was abandoned before the server answered (the call that waited on it ended)"), "{text}");
        assert_eq!(restarts.starts(), 3);
    }
}
