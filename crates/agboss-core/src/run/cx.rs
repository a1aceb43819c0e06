//! [`Cx`]: what the model turn, the gatekeeper and the tool step of one run share: the agent,
//! the execution, the application as the run sees it, the lease, and the journal they all
//! append to through [`Cx::record`].

use std::sync::Mutex;

use super::history::Seen;
use super::{LeaseKeeper, RunEnv, RunError, RunOptions};
use crate::agent::AppAgent;
use crate::context::{AbortReason, Execution};
use crate::journal::{LoopEvent, LoopState};
use crate::store::StoreErrorKind;
use crate::tool::ToolOutput;

/// The agent's answer tool `answer-<dto>` and the check of its arguments.
pub(super) struct AnswerTool {
    pub(super) name: &'static str,
    pub(super) check: crate::tool::SchemaCheck,
}

/// One run's shared context.
pub(crate) struct Cx<'a> {
    pub(super) agent: &'a AppAgent,
    pub(super) execution: Execution,
    pub(super) env: RunEnv,
    pub(super) options: &'a RunOptions,
    /// The execution's lease: its fence goes with every append, and no call starts without it.
    pub(super) lease: &'a LeaseKeeper,
    /// What the permission checker is told of the run so far.
    pub(super) seen: Mutex<Seen>,
    /// When this drive of the run began, which its time budget counts from.
    pub(super) started: crate::time::ClockTime,
    /// The agent's answer tool, if it gives a structured answer.
    pub(super) answer: Option<AnswerTool>,
    /// The arguments, as the model sent them, of the calls whose arguments the journal keeps
    /// masked, by call id (`sealing.rs`).
    pub(super) raw: Mutex<std::collections::HashMap<String, String>>,
}

impl<'a> Cx<'a> {
    pub(super) fn new(
        env: &RunEnv,
        agent: &'a AppAgent,
        execution: Execution,
        options: &'a RunOptions,
        lease: &'a LeaseKeeper,
    ) -> Cx<'a> {
        Cx {
            agent,
            execution,
            env: env.clone(),
            options,
            lease,
            seen: Mutex::default(),
            started: env.clock.now(),
            answer: None,
            raw: Mutex::default(),
        }
    }

    /// Whether `name` is the agent's answer tool.
    pub(super) fn is_answer(&self, name: &str) -> bool {
        self.answer
            .as_ref()
            .is_some_and(|answer| answer.name == name)
    }

    /// Journals `event` and folds it into `state`, as the holder of the execution's lease.
    ///
    /// While a run is under way, others may append to its journal only the answers to its
    /// pauses (`Application::resume` records them at once). When such an event came first,
    /// it is folded in and the append retried after it; anything else means another writer
    /// runs this execution, and the run stops. A store out of reach is waited for (the append
    /// tried again) as long as the lease lasts; a refusal of the lease's fence, or the lease
    /// running out, stops the run without writing anything more.
    pub(super) async fn record(
        &self,
        state: &mut LoopState,
        event: LoopEvent,
    ) -> Result<(), RunError> {
        let id = self.execution.execution_id();
        let lease = self.lease.lease();
        // The run's last event releases the lease with it (one commit where the store can).
        let ends = event.ends_run();
        let mut backoff = std::time::Duration::from_millis(20);
        loop {
            if let Some(lost) = self.lease.lost() {
                return Err(RunError::LeaseLost(lost));
            }
            let store = &self.env.store;
            let appended = match ends {
                true => store.append_releasing(lease, state.events, &event).await,
                false => {
                    store
                        .append_as(id, state.events, &event, lease.fence())
                        .await
                }
            };
            let error = match appended {
                Ok(()) => {
                    if ends {
                        self.lease.released_with_last_append();
                    }
                    state.apply(event);
                    return Ok(());
                }
                Err(error) if error.is_fenced() => {
                    return Err(RunError::LeaseLost(self.lease.refused(&error)));
                }
                Err(error) if error.kind == StoreErrorKind::Unavailable => {
                    tracing::warn!(execution_id = %id, %error, "the store is out of reach; the append waits");
                    self.lease.wait_to_retry(backoff).await;
                    backoff = (backoff * 2).min(std::time::Duration::from_secs(1));
                    continue;
                }
                Err(error) if error.is_conflict() => error,
                Err(error) => return Err(RunError::from_store(error)),
            };
            self.catch_up(state, error).await?;
        }
    }

    /// After a conflict: folds in what others appended since `state` (answers to its pauses
    /// only), so the append can be tried again after them; else the store's `error`.
    async fn catch_up(
        &self,
        state: &mut LoopState,
        error: crate::store::StoreError,
    ) -> Result<(), RunError> {
        let id = self.execution.execution_id();
        let events = self.env.store.events(id).await.map_err(RunError::Store)?;
        let newer = events.get(state.events as usize..).unwrap_or_default();
        let foreign = |e: &LoopEvent| {
            !matches!(
                e,
                LoopEvent::PauseResolved { .. } | LoopEvent::PauseAnswerRejected { .. }
            )
        };
        if newer.is_empty() || newer.iter().any(foreign) {
            return Err(RunError::Store(error));
        }
        for event in newer {
            // An answer another process took: what its reading cost joins this run's
            // ledger, as the fold counts its tokens.
            if let Some(entry) = super::spent::reading_spend(event) {
                self.execution.spend().push(entry);
            }
            state.apply(event.clone());
        }
        Ok(())
    }

    /// Waits until a call may start under the lease (see [`LeaseKeeper::may_start`]).
    pub(super) async fn may_start(&self) -> Result<(), RunError> {
        self.lease.may_start().await.map_err(RunError::LeaseLost)
    }

    /// Journals the run's end with `error`, and returns it. A cancelled run closes its open
    /// pauses first, so a late answer is told the execution was cancelled.
    pub(super) async fn fail(&self, state: &mut LoopState, error: RunError) -> RunError {
        // A lost lease is not this instance's to journal: the new holder goes on.
        if let Some(lost) = self.lease.lost() {
            return RunError::LeaseLost(lost);
        }
        if let RunError::Aborted(reason) = &error {
            let open: Vec<String> = state
                .all_pauses()
                .filter(|p| p.resolution.is_none())
                .map(|p| p.opened.pause_id.clone())
                .collect();
            for pause_id in open {
                let resolution = crate::journal::PauseResolution::Cancelled {
                    reason: format!("cancelled: {reason}"),
                };
                let closed = LoopEvent::PauseResolved {
                    pause_id,
                    resolution,
                };
                if let Err(store) = self.record(state, closed).await {
                    return store;
                }
            }
        }
        let event = LoopEvent::Failed {
            code: error.code(),
            message: error.to_string(),
        };
        match self.record(state, event).await {
            Ok(()) => error,
            Err(store) => store,
        }
    }

    /// Why the execution was cancelled, if it was.
    pub(super) fn aborted(&self) -> Option<AbortReason> {
        self.execution.signal().reason()
    }

    /// A result the framework gives a call itself (a refusal, an unknown tool, an invalid
    /// answer), made as the agent's rules make any: held to the agent's bound, then masked.
    pub(super) fn framework_result(&self, mut output: ToolOutput) -> ToolOutput {
        let bound = self.agent.max_result_size().value;
        output.bound = Some(bound);
        output.cut_to(bound.as_usize());
        if let Some(masking) = self.agent.masking() {
            crate::tool::rules::MaskRule::apply(&masking.value, &mut output);
        }
        output
    }
}
