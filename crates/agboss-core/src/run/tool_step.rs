//! The tool step: every pending call of the model's answer that has no result, each as its own
//! task, concurrently. Calls of tools with gates are gated first (`gatekeeper.rs`): run,
//! refused, or left waiting. Each call that does not wait gets exactly one result: an unknown
//! tool, malformed arguments, a refusal, a panic or a crashed task is a tool error the model
//! reads. Results are journaled as they come and fed back in the model's order.
//!
//! Before any call starts, their intent is journaled (`ToolsStarted`); what they spend is
//! journaled as they record it (`ToolSpent`). A call that started before and has no result was
//! interrupted (its process stopped): it runs again with the same id and key, unless its tool
//! says `on_crash = report` (the model reads that its outcome is unknown) or `ask` (its role was
//! asked first).

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinError;

use super::RunError;
use super::approve::Gate;
use super::asks::{AskRequest, ask_channel};
use super::calls::{Calls, Returned, asks_questions};
use super::cx::Cx;
use super::results::Settled;
use crate::journal::{CallPermission, LoopEvent, LoopState, Spent};
use crate::tool::{OnCrash, ToolFailure, ToolOutput};
use crate::units::TimeSpan;

/// What woke the tool step.
enum Woke {
    Joined(Option<Result<Returned, (usize, JoinError)>>),
    Asked(AskRequest),
    Spent,
    Overdue(usize, TimeSpan),
    RetryDue(usize, String),
    OutOfTime(Box<RunError>),
}

impl Cx<'_> {
    /// Runs every pending call that has no result (see the module's documentation).
    pub(super) async fn run_tools(&self, state: &mut LoopState) -> Result<(), RunError> {
        // Costs calls (and their channels) record land after this mark.
        let mut journaled = self.execution.spend().len();
        // A call whose sealed arguments are gone gets its refusal before any gate reads it.
        if !state.sealed.is_empty() {
            for (index, refused) in self.unseal(state).await? {
                self.finish(state, index, refused, None).await?;
            }
        }
        let mut allowed = Vec::new();
        let mut gates = self.gate_calls(state, &mut allowed).await?;
        let mut immediate = Vec::new();
        let mut to_run: Vec<(usize, String)> = Vec::new();
        for (index, pending) in state.pending.iter().enumerate() {
            // A call that waits for the answer to a question it asked runs again once answered.
            if pending.result.is_some() || state.waits_for_question(pending) {
                continue;
            }
            let call = &pending.call;
            let arguments = match gates.remove(&index) {
                Some(Gate::Wait) => continue,
                Some(Gate::Refused(output)) => {
                    immediate.push((index, output));
                    continue;
                }
                Some(Gate::Run(arguments)) => arguments,
                None => self.arguments_of(pending),
            };
            if self.is_answer(&call.name) {
                immediate.push((index, self.pending_answer(state, index)));
                continue;
            }
            let Some(tool) = self.agent.tool(&call.name) else {
                immediate.push((index, self.unknown_tool(&call.name)));
                continue;
            };
            if state.interrupted(pending) && tool.descriptor().on_crash() == OnCrash::Report {
                immediate.push((
                    index,
                    self.outcome_unknown(pending, tool.descriptor().name()),
                ));
                continue;
            }
            to_run.push((index, arguments));
        }
        for (index, output) in immediate {
            self.finish(state, index, output, None).await?;
        }
        if !to_run.is_empty() {
            self.start_calls(state, to_run, allowed, &mut journaled)
                .await?;
        }
        self.journal_spend(state, &mut journaled).await
    }

    /// Journals the intent of the calls `to_run` (with the checker's decisions that let them
    /// run), starts them, and journals each result as it comes, and what they spend as they
    /// spend it. A call whose task has not returned by its timeout plus the grace gets its
    /// timeout journaled here, and what it returns later is dropped (see `overdue.rs`).
    async fn start_calls(
        &self,
        state: &mut LoopState,
        to_run: Vec<(usize, String)>,
        mut allowed: Vec<CallPermission>,
        journaled: &mut usize,
    ) -> Result<(), RunError> {
        self.may_start().await?;
        // A model call that used up the time budget starts no call.
        if let Some(late) = self.out_of_time("before its tools ran".into()) {
            return Err(self.fail(state, late).await);
        }
        let call_ids = to_run
            .iter()
            .map(|(index, _)| state.pending[*index].call_id.clone())
            .collect();
        allowed.retain(|d| to_run.iter().any(|(index, _)| *index == d.call));
        let intent = LoopEvent::ToolsStarted {
            call_ids,
            permissions: allowed,
        };
        self.record(state, intent).await?;
        crate::base::failpoint("tool-intent");
        // Only a step with a tool that asks questions has a channel for them.
        let (requests, mut questions) = match asks_questions(self, state, &to_run) {
            true => {
                let (requests, questions) = ask_channel();
                (Some(requests), Some(questions))
            }
            false => (None, None),
        };
        let mut calls = Calls::new(self, requests);
        for (index, arguments) in to_run {
            calls.start(self, state, index, arguments);
        }
        self.drive_calls(state, &mut calls, &mut questions, journaled)
            .await
    }

    /// Waits for what the running `calls` do, and journals it, until every one has its result
    /// (or waits for an answer to a question it asked).
    async fn drive_calls(
        &self,
        state: &mut LoopState,
        calls: &mut Calls,
        questions: &mut Option<UnboundedReceiver<AskRequest>>,
        journaled: &mut usize,
    ) -> Result<(), RunError> {
        let ledger = self.execution.spend().clone();
        // The agent's time budget bounds the step: calls still running when it is spent stop.
        let spent = self.budget_spent("while its tools ran");
        tokio::pin!(spent);
        loop {
            let recorded = ledger.recorded();
            tokio::pin!(recorded);
            recorded.as_mut().enable();
            self.journal_spend(state, journaled).await?;
            // Calls judged timed out may still hold their tasks: the step ends without them.
            if calls.all_done() {
                return Ok(());
            }
            let woke = tokio::select! {
                biased;
                // With no task left but a retry due, the step waits for the retry: it is the
                // same call, not one the gatekeeper judges again.
                joined = calls.tasks.joined(), if calls.tasks.running() || !calls.retries.waiting() => {
                    Woke::Joined(joined)
                }
                Some(request) = next_ask(questions) => Woke::Asked(request),
                () = &mut recorded => Woke::Spent,
                (index, timeout) = calls.deadlines.next_overdue() => Woke::Overdue(index, timeout),
                (index, arguments) = calls.retries.next() => Woke::RetryDue(index, arguments),
                late = &mut spent => Woke::OutOfTime(Box::new(late)),
            };
            match woke {
                Woke::Joined(None) => return Ok(()),
                Woke::Joined(Some(joined)) => {
                    self.returned(state, calls, joined, journaled).await?
                }
                Woke::Asked(request) => self.take_ask(state, request, &mut calls.stopped).await?,
                Woke::Spent => {}
                Woke::Overdue(index, timeout) => {
                    if !calls.stopped.contains(&index) {
                        self.journal_spend(state, journaled).await?;
                        self.settle(state, calls, index, self.overdue(index, timeout))
                            .await?;
                    }
                }
                Woke::RetryDue(index, arguments) => calls.start(self, state, index, arguments),
                Woke::OutOfTime(late) => return Err(self.fail(state, *late).await),
            }
        }
    }

    /// Journals what a call's task returned (`joined`): its result, unless the step judged it
    /// timed out already (then it is dropped) or it stopped at a question.
    async fn returned(
        &self,
        state: &mut LoopState,
        calls: &mut Calls,
        joined: Result<Returned, (usize, JoinError)>,
        journaled: &mut usize,
    ) -> Result<(), RunError> {
        crate::base::failpoint("tool-returned");
        let (index, mut output, returned) = match joined {
            Ok((index, output)) => (index, output, true),
            // `run_call` catches panics in `run`, but a task can still die (a panic while
            // dropping the tool); its call must still get its one result. An aborted task (its
            // call judged timed out) has no result to drop.
            Err((index, error)) => {
                let failure = ToolFailure::Raised(crate::tool::ToolError::new(format!(
                    "the call's task failed: {error}"
                )));
                (index, ToolOutput::failed(failure), false)
            }
        };
        match calls.deadlines.settle(index) {
            Some(Ok(())) => {}
            // Returned past its deadline before the step judged it: its timeout stands.
            Some(Err(timeout)) => output = self.overdue(index, timeout),
            // Judged timed out already: what it returned now is dropped.
            None => {
                if returned {
                    self.late_result(&state.pending[index].call_id);
                }
                return Ok(());
            }
        }
        // What the call spent up to its end is journaled before its result.
        self.journal_spend(state, journaled).await?;
        if calls.stopped.contains(&index) {
            return Ok(());
        }
        self.settle(state, calls, index, output).await?;
        crate::base::failpoint("result-committed");
        Ok(())
    }

    /// Journals `output` as call `index`'s result, or schedules its next try.
    async fn settle(
        &self,
        state: &mut LoopState,
        calls: &mut Calls,
        index: usize,
        output: ToolOutput,
    ) -> Result<(), RunError> {
        let span = calls.span(index).cloned();
        match self.finish(state, index, output, span.as_ref()).await? {
            Settled::Journaled => {}
            Settled::Retry(after) => calls.retries.after(index, after),
        }
        Ok(())
    }

    /// Journals the costs calls recorded since position `journaled` of the ledger, one
    /// `ToolSpent` per call, and moves the mark past them.
    async fn journal_spend(
        &self,
        state: &mut LoopState,
        journaled: &mut usize,
    ) -> Result<(), RunError> {
        let (entries, end) = self.execution.spend().since(*journaled);
        if entries.is_empty() {
            return Ok(());
        }
        let mut by_call: Vec<(String, Vec<Spent>)> = Vec::new();
        for entry in entries {
            let Some(call_id) = entry.call_id else {
                continue;
            };
            let spent = Spent {
                service: entry.service,
                cost: entry.cost,
            };
            match by_call.iter_mut().find(|(id, _)| *id == call_id) {
                Some((_, spend)) => spend.push(spent),
                None => by_call.push((call_id, vec![spent])),
            }
        }
        for (call_id, spend) in by_call {
            self.record(state, LoopEvent::ToolSpent { call_id, spend })
                .await?;
        }
        *journaled = end;
        Ok(())
    }
}

/// The next question a call asks, if the step has a channel for them.
async fn next_ask(questions: &mut Option<UnboundedReceiver<AskRequest>>) -> Option<AskRequest> {
    match questions {
        Some(questions) => questions.recv().await,
        None => std::future::pending().await,
    }
}
