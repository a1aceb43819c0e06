//! The tool step: every pending call of the model's answer as its own task, concurrently.

use std::collections::HashMap;
use std::sync::Arc;

use tokio::task::JoinSet;
use tracing::Instrument;

use super::agent_loop::AgentLoop;
use super::state::{LoopEvent, LoopState, Spent};
use super::{RunError, ToolEnd};
use crate::context::Step;
use crate::tool::{CallFrame, CallOutcome, bound_text};

/// What one finished call journals.
struct Finished {
    call_id: String,
    tool: String,
    source: &'static str,
    content: String,
    is_error: bool,
    truncated: bool,
}

impl AgentLoop<'_> {
    /// Runs every pending call that has no result, each in its own task with its own signal
    /// (the contract's: the execution's cancellation with the tool's timeout). Each call gets
    /// exactly one result: an unknown tool, malformed arguments, a panic or a crashed task is
    /// a tool error the model reads. Results are journaled as they come and fed back in the
    /// model's order.
    pub(super) async fn run_tools(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        let node: Arc<str> = Arc::from(self.agent.name());
        // Costs calls record land after this mark; finishing a call reads only those.
        let spend_mark = self.execution.spend().len();
        let mut tasks: JoinSet<Finished> = JoinSet::new();
        let mut running: HashMap<tokio::task::Id, (String, String)> = HashMap::new();
        let mut immediate = Vec::new();
        for pending in state.pending.iter().filter(|c| c.result.is_none()) {
            let name = pending.call.name.clone();
            let call_id = pending.call_id.clone();
            if self.is_answer(&name) {
                immediate.push(self.invalid_answer(call_id, name, &pending.call.arguments));
                continue;
            }
            let Some(tool) = self.agent.tool(&name) else {
                immediate.push(self.unknown_tool(call_id, name));
                continue;
            };
            let tool = tool.tool().clone();
            let frame = CallFrame::new(
                self.execution.clone(),
                Step::new(node.clone(), state.visit, call_id.as_str()),
            );
            let arguments = pending.call.arguments.clone();
            let source = tool.descriptor().source();
            let span = tracing::info_span!(
                "agboss.tool_call",
                tool = %name,
                source = source,
                call_id = %call_id,
                outcome = tracing::field::Empty,
                is_result_truncated = tracing::field::Empty,
            );
            let task_call = (call_id.clone(), name.clone());
            // Recorded on the handle, not on `Span::current()`, which only subscribers that
            // track a current span answer.
            let task_span = span.clone();
            let handle = tasks.spawn(
                async move {
                    let outcome: CallOutcome = tool.invoke(&arguments, &frame).await;
                    task_span.record("outcome", if outcome.is_ok() { "ok" } else { "error" });
                    task_span.record("is_result_truncated", outcome.is_result_truncated);
                    Finished {
                        call_id,
                        tool: name,
                        source,
                        is_error: !outcome.is_ok(),
                        truncated: outcome.is_result_truncated,
                        content: outcome.content,
                    }
                }
                .instrument(span),
            );
            running.insert(handle.id(), task_call);
        }
        for finished in immediate {
            self.finish(state, finished, spend_mark).await?;
        }
        while let Some(joined) = tasks.join_next_with_id().await {
            let finished = match joined {
                Ok((_, finished)) => finished,
                // `invoke` catches panics in `run`, but a task can still die (a panic while
                // dropping the tool); its call must still get its one result.
                Err(error) => {
                    let (call_id, tool) = running.remove(&error.id()).unwrap_or_default();
                    let source = self
                        .agent
                        .tool(&tool)
                        .map_or("local", |t| t.descriptor().source());
                    Finished {
                        call_id,
                        tool,
                        source,
                        content: format!("Tool error: the call's task failed: {error}"),
                        is_error: true,
                        truncated: false,
                    }
                }
            };
            self.finish(state, finished, spend_mark).await?;
        }
        Ok(())
    }

    async fn finish(
        &self,
        state: &mut LoopState,
        finished: Finished,
        spend_mark: usize,
    ) -> Result<(), RunError> {
        if let Some(hook) = &self.options.on_tool_end {
            hook(&ToolEnd {
                agent: self.agent.name(),
                tool: &finished.tool,
                source: finished.source,
                call_id: &finished.call_id,
                is_error: finished.is_error,
                is_result_truncated: finished.truncated,
                content: &finished.content,
            });
        }
        let spend = self
            .execution
            .spend()
            .of_call_since(spend_mark, &finished.call_id)
            .into_iter()
            .map(|entry| Spent {
                service: entry.service,
                cost: entry.cost,
            })
            .collect();
        let event = LoopEvent::ToolFinished {
            call_id: finished.call_id,
            content: finished.content,
            is_error: finished.is_error,
            truncated: finished.truncated,
            spend,
        };
        self.record(state, event).await
    }

    fn unknown_tool(&self, call_id: String, name: String) -> Finished {
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
        self.bounded(call_id, name, text)
    }

    fn invalid_answer(&self, call_id: String, name: String, arguments: &str) -> Finished {
        let problem = match serde_json::from_str::<serde_json::Value>(arguments) {
            Err(e) => format!("malformed JSON: {e}"),
            Ok(value) => self
                .answer
                .as_ref()
                .map(|(_, validator, _)| {
                    validator
                        .iter_errors(&value)
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join("; ")
                })
                .unwrap_or_default(),
        };
        self.bounded(
            call_id,
            name,
            format!("Tool error: invalid input: {problem}"),
        )
    }

    fn bounded(&self, call_id: String, tool: String, text: String) -> Finished {
        let bounded = bound_text(text, self.agent.max_result_size().value);
        Finished {
            call_id,
            tool,
            source: "local",
            content: bounded.text,
            is_error: true,
            truncated: bounded.truncated,
        }
    }
}
