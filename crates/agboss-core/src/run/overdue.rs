//! Calls judged from outside their task: a call whose task has not returned by its timeout plus
//! [`TIMEOUT_GRACE`](crate::tool::TIMEOUT_GRACE) gets its timeout recorded by the tool step, and what it returns later is
//! dropped.
//!
//! A call's own race (`tool::race`) times it out when its `run` waits; a `run` that never
//! waits (a busy loop, a blocking call on the runtime's thread) holds its task and its race
//! with it, so the step, on another task, keeps a deadline per call on the application's clock.
//! The grace leaves a call that is timing out on its own the time to say so.

use std::pin::Pin;

use tokio::task::AbortHandle;

use super::cx::Cx;
use crate::time::{Clock, ClockTime, Sleep};
use crate::tool::{TIMEOUT_GRACE, ToolFailure};
use crate::units::TimeSpan;

/// The deadlines of one tool step's calls.
pub(super) struct Deadlines {
    clock: Clock,
    calls: Vec<Deadline>,
    /// The timer of the earliest open deadline (by the call's index), made when first needed.
    timer: Option<(usize, Pin<Box<Sleep>>)>,
}

struct Deadline {
    index: usize,
    at: ClockTime,
    timeout: TimeSpan,
    abort: AbortHandle,
    /// Joined, or judged timed out.
    settled: bool,
}

impl Deadlines {
    pub(super) fn new(clock: Clock) -> Deadlines {
        Deadlines {
            clock,
            calls: Vec::new(),
            timer: None,
        }
    }

    /// The call at `index`, started at `started` with `timeout`, running as the task `abort`
    /// stops.
    pub(super) fn start(
        &mut self,
        index: usize,
        started: ClockTime,
        timeout: TimeSpan,
        abort: AbortHandle,
    ) {
        // A call started again (after a transient error) has one deadline: its new one.
        self.calls.retain(|c| c.index != index);
        if matches!(&self.timer, Some((timing, _)) if *timing == index) {
            self.timer = None;
        }
        self.calls.push(Deadline {
            index,
            at: started
                .saturating_add(timeout.as_duration())
                .saturating_add(TIMEOUT_GRACE),
            timeout,
            abort,
            settled: false,
        });
    }

    /// Whether every call is settled (joined, or judged timed out).
    pub(super) fn all_settled(&self) -> bool {
        self.calls.iter().all(|c| c.settled)
    }

    /// Settles the call at `index` as it returns: `Ok` when it is its result, its timeout
    /// when it returned after its deadline (the step had not judged it yet), or `None` when it
    /// was judged already (a late result, to drop).
    pub(super) fn settle(&mut self, index: usize) -> Option<Result<(), TimeSpan>> {
        let now = self.clock.now();
        let call = self.calls.iter_mut().find(|c| c.index == index)?;
        if call.settled {
            return None;
        }
        call.settled = true;
        Some(if now >= call.at {
            Err(call.timeout)
        } else {
            Ok(())
        })
    }

    /// Waits for the earliest deadline of a call not settled; that call's task is aborted
    /// (it stops when it next waits) and it is settled. Returns its index and timeout.
    pub(super) async fn next_overdue(&mut self) -> (usize, TimeSpan) {
        loop {
            let Some(next) = self
                .calls
                .iter()
                .filter(|c| !c.settled)
                .min_by_key(|c| c.at)
            else {
                return std::future::pending().await;
            };
            let (index, at) = (next.index, next.at);
            let reuse = matches!(&self.timer, Some((timing, _)) if *timing == index);
            if !reuse {
                let left = at.saturating_since(self.clock.now());
                self.timer = Some((index, Box::pin(self.clock.sleep(left))));
            }
            if let Some((_, timer)) = self.timer.as_mut() {
                timer.as_mut().await;
            }
            self.timer = None;
            let Some(call) = self.calls.iter_mut().find(|c| c.index == index) else {
                continue;
            };
            if call.settled {
                continue;
            }
            call.settled = true;
            call.abort.abort();
            return (index, call.timeout);
        }
    }
}

impl Cx<'_> {
    /// The result of call `index`, judged timed out by the step after `timeout` and the grace:
    /// the text the call's own race gives.
    pub(super) fn overdue(&self, index: usize, timeout: TimeSpan) -> crate::tool::ToolOutput {
        tracing::warn!(
            execution_id = %self.execution.execution_id(),
            index,
            %timeout,
            "a call that did not return by its timeout and the grace is judged timed out by the step"
        );
        crate::tool::ToolOutput::from(ToolFailure::TimedOut(timeout))
    }

    /// A call judged timed out returned after all: nothing of it is journaled.
    pub(super) fn late_result(&self, call_id: &str) {
        tracing::warn!(
            execution_id = %self.execution.execution_id(),
            call_id,
            "a late result of a call judged timed out is dropped"
        );
    }
}
