//! The tool step: every pending call of the model's answer as its own task, concurrently.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::task::JoinSet;
use tracing::Instrument;

use super::agent_loop::AgentLoop;
use super::approve::Gate;
use super::{RunError, ToolEnd};
use crate::context::Step;
use crate::journal::{LoopEvent, LoopState, Spent};
use crate::tool::{CallFrame, CallOutcome, Issues, ToolFailure, bound_text};

/// What one finished call journals: the call (its position in `state.pending`) and what the
/// model reads.
pub(super) struct Finished {
    pub(super) index: usize,
    content: String,
    is_error: bool,
    truncated: bool,
}

impl Finished {
    /// A result that is no error, for the call at `index`.
    pub(super) fn ok(index: usize, content: String) -> Finished {
        Finished {
            index,
            content,
            is_error: false,
            truncated: false,
        }
    }

    /// The call's position in the model's answer.
    pub(super) fn index(&self) -> usize {
        self.index
    }
}

impl AgentLoop<'_> {
    /// Runs every pending call that has no result, each in its own task with its own signal
    /// (the contract's: the execution's cancellation with the tool's timeout). Calls whose
    /// tool waits for a role are gated first (see `approve.rs`): run, refused, or left
    /// waiting. Each call that does not wait gets exactly one result: an unknown tool,
    /// malformed arguments, a refusal, a panic or a crashed task is a tool error the model
    /// reads. Results are journaled as they come and fed back in the model's order.
    pub(super) async fn run_tools(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        let node: Arc<str> = Arc::from(self.agent.name());
        // Costs calls (and their channels) record land after this mark; finishing a call
        // reads only those.
        let spend_mark = self.execution.spend().len();
        let mut gates = self.gate_calls(state).await?;
        let mut tasks: JoinSet<Finished> = JoinSet::new();
        let mut running: HashMap<tokio::task::Id, usize> = HashMap::new();
        let mut immediate = Vec::new();
        for (index, pending) in state.pending.iter().enumerate() {
            if pending.result.is_some() {
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
            let tool = tool.tool().clone();
            let frame = CallFrame::new(
                self.execution.clone(),
                Step::new(node.clone(), state.visit, pending.call_id.as_str()),
            );
            let span = tracing::info_span!(
                "agboss.tool_call",
                tool = %call.name,
                source = tool.descriptor().source(),
                call_id = %pending.call_id,
                outcome = tracing::field::Empty,
                is_result_truncated = tracing::field::Empty,
            );
            // Recorded on the handle, not on `Span::current()`, which only subscribers that
            // track a current span answer.
            let task_span = span.clone();
            let handle = tasks.spawn(
                async move {
                    let outcome: CallOutcome = tool.invoke(&arguments, &frame).await;
                    task_span.record("outcome", if outcome.is_ok() { "ok" } else { "error" });
                    task_span.record("is_result_truncated", outcome.is_result_truncated);
                    Finished {
                        index,
                        is_error: !outcome.is_ok(),
                        truncated: outcome.is_result_truncated,
                        content: outcome.content,
                    }
                }
                .instrument(span),
            );
            running.insert(handle.id(), index);
        }
        for finished in immediate {
            self.finish(state, finished, spend_mark).await?;
        }
        while let Some(joined) = tasks.join_next_with_id().await {
            let finished = match joined {
                Ok((_, finished)) => finished,
                // `invoke` catches panics in `run`, but a task can still die (a panic while
                // dropping the tool); its call must still get its one result.
                Err(error) => Finished {
                    index: running[&error.id()],
                    content: format!("Tool error: the call's task failed: {error}"),
                    is_error: true,
                    truncated: false,
                },
            };
            self.finish(state, finished, spend_mark).await?;
        }
        Ok(())
    }

    pub(super) async fn finish(
        &self,
        state: &mut LoopState,
        finished: Finished,
        spend_mark: usize,
    ) -> Result<(), RunError> {
        let pending = &state.pending[finished.index];
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
        let spend = self
            .execution
            .spend()
            .of_call_since(spend_mark, &pending.call_id)
            .into_iter()
            .map(|entry| Spent {
                service: entry.service,
                cost: entry.cost,
            })
            .collect();
        let event = LoopEvent::ToolFinished {
            call_id: pending.call_id.clone(),
            content: finished.content,
            is_error: finished.is_error,
            truncated: finished.truncated,
            spend,
        };
        self.record(state, event).await
    }

    fn unknown_tool(&self, index: usize, name: &str) -> Finished {
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

    /// An answer the model sent that its schema refuses (`issues`), said as a tool's invalid
    /// input is.
    pub(super) fn refused_answer(&self, index: usize, issues: Issues) -> Finished {
        let failure = ToolFailure::InvalidInput(issues);
        self.bounded(index, format!("Tool error: {failure}"))
    }

    pub(super) fn bounded(&self, index: usize, text: String) -> Finished {
        let bounded = bound_text(text, self.agent.max_result_size().value);
        Finished {
            index,
            content: bounded.text,
            is_error: true,
            truncated: bounded.truncated,
        }
    }
}
