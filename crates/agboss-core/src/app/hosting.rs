//! How this application drives executions: one driver at a time per execution (in this
//! process), under its lease, always from a fresh fold of its journal, so two resumes never run
//! a call twice; a resume under another configuration of its workflow is judged first
//! (`config_change.rs`).

use super::Application;
use crate::agent::AppAgent;
use crate::context::{Execution, Signal, Tenant};
use crate::journal::{Lease, LoopEvent, LoopState, Next};
use crate::run::{Elsewhere, LeaseKeeper, RunEnv, RunError, RunOptions, RunOutcome};
use crate::time::ClockTime;

/// Where a driver begins: a new run's first event, or the execution's journal.
pub(crate) enum Begin<'a> {
    /// A new run of `agent` in `execution`, which `start` opens.
    New {
        agent: &'a AppAgent,
        execution: Execution,
        start: Box<LoopEvent>,
        options: RunOptions,
    },
    /// Where the journal left it.
    Journal(RunOptions),
}

impl Application {
    /// Claims `execution_id` and drives it from a fresh fold of its journal.
    pub(crate) async fn drive_journal(
        &self,
        execution_id: &str,
        signal: Option<Signal>,
        options: RunOptions,
    ) -> Result<RunOutcome, RunError> {
        let _driver = self.locks.lock(execution_id).await;
        let claimed_at = self.clock().now();
        let Some(lease) = self.claim(execution_id).await? else {
            return self.elsewhere(execution_id).await;
        };
        let signal = signal.unwrap_or_default();
        self.drive_claimed(lease, claimed_at, signal, Begin::Journal(options))
            .await
    }

    /// Claims `execution_id` for this instance, unless another holds it.
    pub(crate) async fn claim(&self, execution_id: &str) -> Result<Option<Lease>, RunError> {
        self.store
            .acquire(execution_id, &self.instance, self.lease_ttl())
            .await
            .map_err(RunError::Store)
    }

    /// How an execution another instance holds stands.
    pub(crate) async fn elsewhere(&self, execution_id: &str) -> Result<RunOutcome, RunError> {
        let holder = self
            .store
            .lease(execution_id)
            .await
            .map_err(RunError::Store)?
            .and_then(|state| state.holder);
        Ok(RunOutcome::Elsewhere(Elsewhere {
            execution_id: execution_id.to_owned(),
            holder,
        }))
    }

    /// Drives the execution `lease` claims (at `claimed_at`) until it ends, waits, or the lease
    /// is lost; then gives the lease up. An answer may have come in while it drove: when the
    /// execution can go on after the release, it is claimed again and driven on.
    pub(crate) async fn drive_claimed(
        &self,
        mut lease: Lease,
        mut claimed_at: ClockTime,
        signal: Signal,
        begin: Begin<'_>,
    ) -> Result<RunOutcome, RunError> {
        let execution_id = lease.execution_id.clone();
        let (mut begin, options) = match begin {
            Begin::Journal(options) => (None, options),
            Begin::New {
                agent,
                execution,
                start,
                options,
            } => (Some((agent, execution, start)), options),
        };
        loop {
            let keeper = LeaseKeeper::start(
                lease.clone(),
                claimed_at,
                self.store.clone(),
                self.clock().clone(),
                signal.clone(),
            );
            let outcome = match begin.take() {
                Some((agent, execution, start)) => {
                    let env = self.run_env()?;
                    let _running = self.running.enter(&execution_id, execution.signal());
                    crate::run::drive(
                        &env,
                        agent,
                        execution,
                        &options,
                        &keeper,
                        LoopState::default(),
                        Some(*start),
                    )
                    .await
                }
                None => self.drive_from_journal(&keeper, &signal, &options).await,
            };
            let released = keeper.is_released();
            drop(keeper);
            // Released even when lost: a claim another instance took is not released by it
            // (the epoch differs), and one that ran out while the store was silent would
            // otherwise hold the execution until it runs out again by the store's clock (a
            // renewal queued before the silence may still have extended it). A run that ended
            // released it with its last append.
            if !released && let Err(error) = self.store.release(&lease).await {
                // It runs out by itself; another instance waits a ttl longer to take it over.
                tracing::warn!(execution_id = %execution_id, %error, "the lease could not be released");
            }
            if matches!(outcome, Err(RunError::LeaseLost(_))) {
                return outcome;
            }
            let paused = matches!(outcome, Ok(RunOutcome::Paused(_)));
            if paused && self.can_go_on(&execution_id).await {
                claimed_at = self.clock().now();
                match self.claim(&execution_id).await? {
                    Some(again) => {
                        lease = again;
                        continue;
                    }
                    None => return self.elsewhere(&execution_id).await,
                }
            }
            return outcome;
        }
    }

    async fn can_go_on(&self, execution_id: &str) -> bool {
        self.store
            .execution(execution_id)
            .await
            .ok()
            .flatten()
            .is_some_and(|record| record.is_runnable())
    }

    /// The journal of execution `execution_id` and its fold; `not-found` for an execution the
    /// store has no event of.
    pub(crate) async fn journal_of(
        &self,
        execution_id: &str,
    ) -> Result<(Vec<LoopEvent>, LoopState), RunError> {
        let events = self
            .store
            .events(execution_id)
            .await
            .map_err(RunError::Store)?;
        if events.is_empty() {
            return Err(RunError::NotFound(format!(
                "the store has no execution `{execution_id}`"
            )));
        }
        let state = LoopState::from_events(&events).map_err(RunError::Journal)?;
        Ok((events, state))
    }

    /// Drives the execution `keeper` holds from a fresh fold of its journal.
    async fn drive_from_journal(
        &self,
        keeper: &LeaseKeeper,
        signal: &Signal,
        options: &RunOptions,
    ) -> Result<RunOutcome, RunError> {
        let execution_id = keeper.lease().execution_id.as_str();
        let (events, state) = self.journal_of(execution_id).await?;
        let (workflow, agent) = self
            .workflow(&state.workflow)
            .and_then(|w| Some((w, w.agent(&state.agent)?)))
            .ok_or_else(|| {
                RunError::NotFound(format!(
                    "execution `{execution_id}` ran agent `{}` of workflow `{}`, which this application does not have",
                    state.agent, state.workflow
                ))
            })?;
        let execution = execution_of(execution_id, &state, signal.clone());
        crate::run::restore_spend(&execution, &events, agent);
        let waiting_only = state.next == Next::RunTools
            && state.pending.iter().filter(|c| c.result.is_none()).count()
                == state.awaiting().count();
        if state.is_over() || waiting_only {
            return crate::run::outcome(state, &execution);
        }
        let changed = super::config_change::judge(workflow, &state)?;
        let env = self.run_env()?;
        let _running = self.running.enter(execution_id, execution.signal());
        crate::run::drive(&env, agent, execution, options, keeper, state, changed).await
    }

    /// What the loop needs of the application.
    pub(crate) fn run_env(&self) -> Result<RunEnv, RunError> {
        Ok(RunEnv {
            store: self.store.clone(),
            router: self.router().map_err(RunError::Model)?,
            budgets: self.budgets,
            approvals: self.assembly.approvals().clone(),
            clock: self.clock().clone(),
            artifact_retention: self.artifact_retention,
            trace_content: self.trace_content,
        })
    }
}

/// The execution `state` describes, as it started: its thread, owner and tenant.
fn execution_of(execution_id: &str, state: &LoopState, signal: Signal) -> Execution {
    let mut builder = Execution::builder(execution_id).workflow(&state.workflow);
    if let Some(thread) = &state.thread {
        builder = builder.thread(thread);
    }
    if let Some(owner) = &state.owner {
        builder = builder.owner(owner);
    }
    if let Some(tenant) = &state.tenant {
        builder = builder.tenant(Tenant::new(tenant));
    }
    builder.signal(signal).build()
}
