//! One execution by its id: [`Application::resume_execution`] goes on with it from its
//! journal, [`Application::cancel`] stops it.

use agboss_rules::codes;

use super::Application;
use crate::context::{AbortReason, Signal};
use crate::journal::{Lease, LoopEvent, PauseResolution};
use crate::run::{RunError, RunOptions, RunOutcome};

impl Application {
    /// Goes on with execution `execution_id` from its journal in the store: what it already
    /// did (model answers, finished calls, answered pauses) is not done again, calls that were
    /// pending run now (a call a crash interrupted as its tool's `on_crash` says), and it keeps
    /// the thread, owner, tenant and budgets it started with. An execution that ended, or that
    /// waits for answers, is returned as it is; one that another instance drives is
    /// [`RunOutcome::Elsewhere`](crate::run::RunOutcome::Elsewhere).
    pub async fn resume_execution(
        &self,
        execution_id: &str,
        signal: Option<Signal>,
    ) -> Result<RunOutcome, RunError> {
        self.drive_journal(execution_id, signal, RunOptions::default())
            .await
    }

    /// Cancels execution `execution_id`: a run of it under way in this process stops (its
    /// signal fires), and an execution that waits for answers has its pauses closed and ends
    /// `cancelled`; a late answer is told so (`pause.execution-cancelled`). An execution that
    /// ended stays as it ended. One that another instance drives is not cancelled from here
    /// (`lease.held`: cancel it in that instance).
    pub async fn cancel(&self, execution_id: &str, reason: &str) -> Result<(), RunError> {
        if let Some(signal) = self.running.signal(execution_id) {
            signal.cancel(AbortReason::cancelled(reason));
        }
        let _driver = self.locks.lock(execution_id).await;
        let Some(lease) = self.claim(execution_id).await? else {
            let holder = match self.elsewhere(execution_id).await? {
                RunOutcome::Elsewhere(elsewhere) => elsewhere.holder,
                _ => None,
            };
            return Err(RunError::HeldElsewhere {
                execution_id: execution_id.to_owned(),
                holder: holder.unwrap_or_else(|| "another instance".to_owned()),
            });
        };
        let cancelled = self.cancel_claimed(execution_id, reason, &lease).await;
        if let Err(error) = self.store.release(&lease).await {
            tracing::warn!(execution_id, %error, "the lease could not be released");
        }
        cancelled
    }

    async fn cancel_claimed(
        &self,
        execution_id: &str,
        reason: &str,
        lease: &Lease,
    ) -> Result<(), RunError> {
        let (_, mut state) = self.journal_of(execution_id).await?;
        // One event at a time, each decided from the journal as it is: an answer appended
        // meanwhile closes its pause itself.
        while !state.is_over() {
            let open = state
                .all_pauses()
                .find(|p| p.resolution.is_none())
                .map(|p| p.opened.pause_id.clone());
            let event = match open {
                Some(pause_id) => LoopEvent::PauseResolved {
                    pause_id,
                    resolution: PauseResolution::Cancelled {
                        reason: format!("cancelled: {reason}"),
                    },
                },
                None => LoopEvent::Failed {
                    code: codes::CANCELLED.id().into(),
                    message: format!("cancelled: {reason}"),
                },
            };
            let appended = self
                .store
                .append_as(execution_id, state.events, &event, lease.fence())
                .await;
            match appended {
                Ok(()) => state.apply(event),
                Err(error) if error.is_conflict() => {
                    let events = self
                        .store
                        .events(execution_id)
                        .await
                        .map_err(RunError::Store)?;
                    for newer in events.get(state.events as usize..).unwrap_or_default() {
                        state.apply(newer.clone());
                    }
                }
                Err(error) => return Err(RunError::Store(error)),
            }
        }
        let agent = self
            .workflow(&state.workflow)
            .and_then(|w| w.agent(&state.agent));
        let retention = self.artifact_retention;
        crate::run::run_ended(&*self.store, agent, execution_id, retention).await;
        Ok(())
    }
}
