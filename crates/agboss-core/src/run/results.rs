//! What becomes of one call's result: shaped by its tool's rules (the ceiling, the artifact,
//! the bound, the mask, the application's middleware, retries, a fatal error, the notes), then
//! journaled, handed to the `on_tool_end` hook and told to whoever watches, in that order. The
//! results the framework gives itself (an unknown tool, the answer tool's acknowledgement, an
//! interrupted call that may not run twice) are held to the agent's bound and masked.

use tracing::Span;

use agboss_rules::codes;

use super::cx::Cx;
use super::telemetry::{ContentMask, record_tool_end};
use super::{RunError, ToolEnd};
use crate::journal::{LoopEvent, LoopState, PendingCall};
use crate::tool::pipeline::Finish;
use crate::tool::{CallEnd, ToolFailure, ToolOutput};
use crate::units::TimeSpan;

/// What became of a result.
pub(super) enum Settled {
    /// It is the call's result, journaled.
    Journaled,
    /// It was a try: the call runs again after this long.
    Retry(TimeSpan),
}

impl Cx<'_> {
    /// Shapes `output`, what call `index` gave, by its tool's rules and journals it as the call's
    /// result (masked, so neither the journal nor the model nor the hook reads what the policy
    /// masks), recording its end on `span`; or journals it as a try when the call runs again.
    /// A fatal error ends the run once its result is journaled.
    pub(super) async fn finish(
        &self,
        state: &mut LoopState,
        index: usize,
        output: ToolOutput,
        span: Option<&(Span, Option<ContentMask>)>,
    ) -> Result<Settled, RunError> {
        let (output, ends) = match self.rules_of(state, index, output).await {
            Finish::Done { output, ends } => (output, ends),
            Finish::Retry(output, after) => {
                self.retried(state, index, output, after).await?;
                return Ok(Settled::Retry(after));
            }
        };
        let digest = output.digest;
        let outcome = output.render();
        if let Some((span, content)) = span {
            record_tool_end(span, &outcome, content.as_ref());
        }
        let pending = &state.pending[index];
        self.hook(pending, &outcome);
        let ended = self.ended_event(pending, &outcome);
        let event = LoopEvent::ToolFinished {
            call_id: pending.call_id.clone(),
            is_error: !outcome.is_ok(),
            truncated: outcome.is_result_truncated,
            content: outcome.content,
            spend: Vec::new(),
            digest,
        };
        let call_id = pending.call_id.clone();
        // The tool's name only for the error of a run its call ends.
        let tool = ends.as_ref().map(|_| pending.call.name.clone());
        self.record(state, event).await?;
        self.forget_sealed(state, &call_id).await;
        self.tell(ended);
        match ends {
            None => Ok(Settled::Journaled),
            Some((code, message)) => {
                let error = RunError::ToolFailed {
                    tool: tool.unwrap_or_default(),
                    call_id,
                    code,
                    message,
                };
                Err(self.fail(state, error).await)
            }
        }
    }

    /// `output` through the rules of call `index`'s tool (its pipeline's); a result the
    /// framework gives itself, or one of a tool the agent does not have, through the agent's
    /// bound and mask.
    async fn rules_of(&self, state: &LoopState, index: usize, output: ToolOutput) -> Finish {
        let pending = &state.pending[index];
        let name = pending.call.name.as_str();
        let tool = match self.is_answer(name) {
            true => None,
            false => self.agent.tool(name),
        };
        let Some(tool) = tool else {
            let output = self.framework_result(output);
            return Finish::Done { output, ends: None };
        };
        let history = self.history(state, index);
        let tries = state.retried.get(&pending.call_id).copied().unwrap_or(0) + 1;
        let end = CallEnd::new(
            tool.descriptor(),
            &pending.call_id,
            &pending.call.arguments,
            &self.execution,
        )
        .in_run(&history, tries);
        let shelf = self.shelf_for(tool.descriptor());
        tool.pipeline().finish(&end, output, shelf.as_deref()).await
    }

    /// Journals a try of call `index` that gave `output` and runs again after `after`.
    async fn retried(
        &self,
        state: &mut LoopState,
        index: usize,
        output: ToolOutput,
        after: TimeSpan,
    ) -> Result<(), RunError> {
        let pending = &state.pending[index];
        let tries = state.retried.get(&pending.call_id).copied().unwrap_or(0) + 1;
        tracing::info!(
            execution_id = %self.execution.execution_id(),
            call_id = %pending.call_id,
            tool = %pending.call.name,
            tries,
            %after,
            "a call failed for a moment and runs again"
        );
        let event = LoopEvent::ToolRetried {
            call_id: pending.call_id.clone(),
            tries,
            content: output.render().content,
            after_ms: u64::try_from(after.as_duration().as_millis()).unwrap_or(u64::MAX),
        };
        self.record(state, event).await
    }

    /// Tells the `on_tool_end` hook, if the run has one, how `pending` ended.
    fn hook(&self, pending: &PendingCall, outcome: &crate::tool::CallOutcome) {
        let Some(hook) = &self.options.on_tool_end else {
            return;
        };
        let tool = pending.call.name.as_str();
        hook(&ToolEnd {
            agent: self.agent.name(),
            tool,
            source: self
                .agent
                .tool(tool)
                .map_or("local", |t| t.descriptor().source()),
            call_id: &pending.call_id,
            is_error: !outcome.is_ok(),
            is_result_truncated: outcome.is_result_truncated,
            content: &outcome.content,
        });
    }

    /// The result of a call a crash interrupted whose tool may not run twice: the model reads
    /// that its outcome is unknown.
    pub(super) fn outcome_unknown(&self, pending: &PendingCall, tool: &str) -> ToolOutput {
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
        ToolOutput::failed(ToolFailure::Refused(message))
    }

    /// The refusal of a call of tool `name`, which the agent does not have.
    pub(super) fn unknown_tool(&self, name: &str) -> ToolOutput {
        let known: Vec<&str> = self
            .agent
            .tools()
            .iter()
            .map(|t| t.descriptor().name())
            .collect();
        let known = match known.is_empty() {
            true => "none".to_owned(),
            false => known.join(", "),
        };
        ToolOutput::failed(ToolFailure::Refused(format!(
            "there is no tool named `{name}`; the tools are {known}"
        )))
    }
}
