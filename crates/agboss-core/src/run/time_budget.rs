//! An agent's time budget (`max_duration`): how long a run may take on the application's clock.
//!
//! The budget counts from when this drive of the run began: its start, or its resume (after a
//! pause, a restart or a recovery, each resume has the whole budget again, so the time a run
//! waits for a person never counts). It is checked before each model call, and it bounds the
//! tool step: calls still running when it runs out are stopped (their tasks dropped). Either
//! way the run fails with `agents.<name>.limits.duration`.

use super::cx::Cx;
use super::{DurationLimitError, RunError};
use crate::base::Setting;
use crate::units::TimeSpan;

impl Cx<'_> {
    /// The run's error when its time budget is spent, said as stopped `when`.
    pub(super) fn out_of_time(&self, when: String) -> Option<RunError> {
        let budget = self.agent.max_duration()?;
        let elapsed = self.env.clock.now().saturating_since(self.started);
        (elapsed >= budget.value.as_duration()).then(|| self.duration_error(budget, when))
    }

    fn duration_error(&self, budget: &Setting<TimeSpan>, when: String) -> RunError {
        RunError::DurationLimit(DurationLimitError {
            agent: self.agent.name().into(),
            limit: budget.value,
            set_by: budget.source.to_string(),
            elapsed: self.env.clock.now().saturating_since(self.started),
            when,
        })
    }

    /// Waits until the time budget is spent, and returns the run's error, said as stopped
    /// `when`; never returns without a budget.
    pub(super) async fn budget_spent(&self, when: &str) -> RunError {
        let Some(budget) = self.agent.max_duration() else {
            return std::future::pending().await;
        };
        let elapsed = self.env.clock.now().saturating_since(self.started);
        let left = budget.value.as_duration().saturating_sub(elapsed);
        self.env.clock.sleep(left).await;
        self.duration_error(budget, when.to_owned())
    }
}
