//! The tool step: every pending call of the model's answer as its own task, concurrently.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use tokio::task::JoinSet;
use tracing::Instrument;

use agboss_rules::codes;

use super::agent_loop::AgentLoop;
use super::approve::Gate;
use super::asks::{AskRequest, ask_channel, asker_for};
use super::finished::Finished;
use super::overdue::Deadlines;
use super::telemetry::{ToolCallSpan, record_tool_end};
use super::{RunError, ToolEnd};
use crate::context::Step;
use crate::journal::{CallPermission, LoopEvent, LoopState, PendingCall, Spent};
use crate::tool::{CallDigest, CallFrame, CallOutcome, OnCrash};

impl AgentLoop<'_> {
    /// Runs every pending call that has no result, each in its own task with its own signal
    /// (the contract's: the execution's cancellation with the tool's timeout). Calls whose
    /// tool waits for a role are gated first (see `approve.rs`): run, refused, or left
    /// waiting. Each call that does not wait gets exactly one result: an unknown tool,
    /// malformed arguments, a refusal, a panic or a crashed task is a tool error the model
    /// reads. Results are journaled as they come and fed back in the model's order.
    ///
    /// Before any call starts, their intent is journaled (`ToolsStarted`); what they spend is
    /// journaled as they record it (`ToolSpent`). A call that started before and has no result
    /// was interrupted (its process stopped): it runs again with the same id and key, unless
    /// its tool says `on_crash = report` (the model reads that its outcome is unknown) or `ask`
    /// (its role was asked first; see `approve.rs`).
    pub(super) async fn run_tools(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        let node: Arc<str> = Arc::from(self.agent.name());
        // Costs calls (and their channels) record land after this mark.
        let mut journaled = self.execution.spend().len();
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
                Some(Gate::Refused(finished)) => {
                    immediate.push(finished);
                    continue;
                }
                Some(Gate::Run(arguments)) => arguments,
                None => call.arguments.clone(),
            };
            if self.is_answer(&call.name) {
                immediate.push(self.pending_answer(state, index));
                continue;
            }
            let Some(tool) = self.agent.tool(&call.name) else {
                immediate.push(self.unknown_tool(index, &call.name));
                continue;
            };
            if state.interrupted(pending) && tool.descriptor().on_crash() == OnCrash::Report {
                immediate.push(self.outcome_unknown(index, pending, tool.descriptor().name()));
                continue;
            }
            to_run.push((index, arguments));
        }
        for finished in immediate {
            self.finish(state, finished).await?;
        }
        if !to_run.is_empty() {
            self.start_calls(state, node, to_run, allowed, &mut journaled)
                .await?;
        }
        self.journal_spend(state, &mut journaled).await
    }

    /// Journals the intent of the calls `to_run` (their positions and argument bytes), starts
    /// them, and journals each result as it comes, and what they spend as they spend it. A
    /// call whose task has not returned by its timeout plus the grace gets its timeout
    /// journaled here, and what it returns later is dropped (see `overdue.rs`).
    async fn start_calls(
        &self,
        state: &mut LoopState,
        node: Arc<str>,
        to_run: Vec<(usize, String)>,
        mut allowed: Vec<CallPermission>,
        journaled: &mut usize,
    ) -> Result<(), RunError> {
        self.may_start().await?;
        // A model call that used up the time budget starts no call.
        if let Some(late) = self.out_of_time("before its tools ran".into()) {
            return Err(self.fail(state, late).await);
        }
        let call_ids: Vec<String> = to_run
            .iter()
            .map(|(index, _)| state.pending[*index].call_id.clone())
            .collect();
        // The checker's decisions that let these calls run go with their intent.
        allowed.retain(|d| to_run.iter().any(|(index, _)| *index == d.call));
        let intent = LoopEvent::ToolsStarted {
            call_ids,
            permissions: allowed,
        };
        self.record(state, intent).await?;
        crate::base::failpoint("tool-intent");
        let mut tasks: JoinSet<Finished> = JoinSet::new();
        let mut running: HashMap<tokio::task::Id, usize> = HashMap::new();
        // Only a step with a tool that asks questions has a channel for them.
        let asking = to_run.iter().any(|(index, _)| {
            self.agent
                .tool(&state.pending[*index].call.name)
                .is_some_and(|t| !t.descriptor().asks().is_empty())
        });
        let (requests, mut questions) = match asking {
            true => {
                let (requests, questions) = ask_channel();
                (Some(requests), Some(questions))
            }
            false => (None, None),
        };
        let mut deadlines = Deadlines::new(self.env.clock.clone());
        let started = self.env.clock.now();
        for (index, arguments) in to_run {
            let pending = &state.pending[index];
            let Some(tool) = self.agent.tool(&pending.call.name) else {
                continue;
            };
            let tool = tool.tool().clone();
            let timeout = tool.timeout();
            let bound = tool.bound();
            let step = Step::new(node.clone(), state.visit, pending.call_id.as_str())
                .with_attempt(pending.attempts);
            let mut frame = CallFrame::new(self.execution.clone(), step);
            let asks = !tool.descriptor().asks().is_empty();
            if let Some(asker) = asker_for(state, index, asks, &requests) {
                frame = frame.with_asker(asker);
            }
            if let Some(shelf) = self.shelf_for(tool.descriptor()) {
                frame = frame.with_artifacts(shelf);
            }
            if let Some(watch) = self.watch_of(pending, &arguments) {
                frame = frame.with_watch(watch);
            }
            let (span, content) = self.tool_call_span(ToolCallSpan {
                tool: &pending.call.name,
                call_id: &pending.call_id,
                source: tool.descriptor().source(),
                attempt: pending.attempts,
                arguments: &arguments,
                step: frame.step(),
                execution_id: self.execution.execution_id(),
            });
            // Recorded on the handle, not on `Span::current()`, which only subscribers that
            // track a current span answer.
            let task_span = span.clone();
            let handle = tasks.spawn(
                async move {
                    let outcome: CallOutcome = tool.invoke(&arguments, &frame).await;
                    record_tool_end(&task_span, &outcome, content.as_ref());
                    Finished {
                        index,
                        is_error: !outcome.is_ok(),
                        truncated: outcome.is_result_truncated,
                        content: outcome.content,
                        bound: Some(bound),
                    }
                }
                .instrument(span),
            );
            running.insert(handle.id(), index);
            deadlines.start(index, started, timeout, handle);
        }
        drop(requests);
        // Calls that stopped at a question: what they return is not their result.
        let mut stopped = HashSet::new();
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
            if deadlines.all_settled() {
                return Ok(());
            }
            let woke = tokio::select! {
                biased;
                joined = tasks.join_next_with_id() => Woke::Joined(joined),
                Some(request) = next_ask(&mut questions) => Woke::Asked(request),
                () = &mut recorded => continue,
                (index, timeout) = deadlines.next_overdue() => Woke::Overdue(index, timeout),
                late = &mut spent => Woke::OutOfTime(Box::new(late)),
            };
            let joined = match woke {
                Woke::Joined(joined) => joined,
                Woke::Asked(request) => {
                    self.take_ask(state, request, &mut stopped).await?;
                    continue;
                }
                Woke::OutOfTime(late) => return Err(self.fail(state, *late).await),
                Woke::Overdue(index, timeout) => {
                    if !stopped.contains(&index) {
                        let overdue = self.overdue(index, timeout);
                        self.journal_spend(state, journaled).await?;
                        self.finish(state, overdue).await?;
                    }
                    continue;
                }
            };
            let Some(joined) = joined else {
                return Ok(());
            };
            crate::base::failpoint("tool-returned");
            // An aborted task (its call judged timed out) has no result to drop.
            let returned = joined.is_ok();
            let mut finished = match joined {
                Ok((_, finished)) => finished,
                // `invoke` catches panics in `run`, but a task can still die (a panic while
                // dropping the tool); its call must still get its one result.
                Err(error) => Finished {
                    index: running[&error.id()],
                    content: format!("Tool error: the call's task failed: {error}"),
                    is_error: true,
                    truncated: false,
                    bound: None,
                },
            };
            match deadlines.settle(finished.index) {
                Some(Ok(())) => {}
                // Returned past its deadline before the step judged it: its timeout stands.
                Some(Err(timeout)) => finished = self.overdue(finished.index, timeout),
                // Judged timed out already: what it returned now is dropped.
                None => {
                    if returned {
                        self.late_result(&state.pending[finished.index].call_id);
                    }
                    continue;
                }
            }
            // What the call spent up to its end is journaled before its result.
            self.journal_spend(state, journaled).await?;
            if stopped.contains(&finished.index) {
                continue;
            }
            self.finish(state, finished).await?;
            crate::base::failpoint("result-committed");
        }
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

    /// Journals the one result of the call at `finished.index`, masked by the agent's policy
    /// (so neither the journal nor the model nor the `on_tool_end` hook reads what it masks),
    /// with its digest; a call that repeats an earlier one of the run (by its tool's
    /// `repeated_when`) gets the note first.
    pub(super) async fn finish(
        &self,
        state: &mut LoopState,
        mut finished: Finished,
    ) -> Result<(), RunError> {
        (finished.content, finished.truncated) =
            self.masked(finished.content, finished.truncated, finished.bound);
        let pending = &state.pending[finished.index];
        let digest = self.digest_of(state, pending, &mut finished.content);
        if let Some(hook) = &self.options.on_tool_end {
            let tool = pending.call.name.as_str();
            hook(&ToolEnd {
                agent: self.agent.name(),
                tool,
                source: self
                    .agent
                    .tool(tool)
                    .map_or("local", |t| t.descriptor().source()),
                call_id: &pending.call_id,
                is_error: finished.is_error,
                is_result_truncated: finished.truncated,
                content: &finished.content,
            });
        }
        let ended = self.ended_event(pending, &finished);
        let event = LoopEvent::ToolFinished {
            call_id: pending.call_id.clone(),
            content: finished.content,
            is_error: finished.is_error,
            truncated: finished.truncated,
            spend: Vec::new(),
            digest,
        };
        self.record(state, event).await?;
        self.tell(ended);
        Ok(())
    }

    /// The digest of `pending`'s result `content` (none for the answer tool, an unknown tool or
    /// `repeated_when = never`); when the run's earlier calls hold it, the note is appended to
    /// `content` (after the digest is taken, so every repetition compares alike).
    fn digest_of(
        &self,
        state: &LoopState,
        pending: &PendingCall,
        content: &mut String,
    ) -> Option<CallDigest> {
        let name = pending.call.name.as_str();
        let when = match self.agent.tool(name) {
            Some(tool) if !self.is_answer(name) => tool.descriptor().repeated_when(),
            _ => return None,
        };
        let digest = when.digest(name, &pending.call.arguments, content)?;
        if state.repeats.repeats(&digest, when) {
            content.push_str("\n\n");
            content.push_str(&when.note(name));
        }
        Some(digest)
    }

    /// The result of a call a crash interrupted whose tool may not run twice: the model reads
    /// that its outcome is unknown.
    fn outcome_unknown(&self, index: usize, pending: &PendingCall, tool: &str) -> Finished {
        let message = codes::TOOL_OUTCOME_UNKNOWN.fill(&[
            ("call_id", &pending.call_id),
            ("tool", &tool),
            ("why", &"its tool says on_crash = report"),
        ]);
        tracing::warn!(
            execution_id = %self.execution.execution_id(),
            call_id = %pending.call_id,
            tool,
            code = codes::TOOL_OUTCOME_UNKNOWN.id(),
            "an interrupted call is not run again"
        );
        self.bounded(index, format!("Tool error: {message}"))
    }

    /// The refusal of call `index`, whose tool `name` the agent does not have.
    pub(super) fn unknown_tool(&self, index: usize, name: &str) -> Finished {
        let known: Vec<&str> = self
            .agent
            .tools()
            .iter()
            .map(|t| t.descriptor().name())
            .collect();
        let text = format!(
            "Tool error: there is no tool named `{name}`; the tools are {}",
            if known.is_empty() {
                "none".into()
            } else {
                known.join(", ")
            }
        );
        self.bounded(index, text)
    }
}

/// What woke the tool step: a call ended, one asked a question, or one is overdue.
enum Woke {
    Joined(Option<Result<(tokio::task::Id, Finished), tokio::task::JoinError>>),
    Asked(AskRequest),
    Overdue(usize, crate::units::TimeSpan),
    OutOfTime(Box<RunError>),
}

/// The next question a call asks, if the step has a channel for them.
async fn next_ask(
    questions: &mut Option<tokio::sync::mpsc::UnboundedReceiver<AskRequest>>,
) -> Option<AskRequest> {
    match questions {
        Some(questions) => questions.recv().await,
        None => std::future::pending().await,
    }
}
