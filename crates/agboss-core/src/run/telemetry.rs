//! The spans of a run's model and tool calls (their names and fields are in
//! [`base::telemetry`](crate::base::telemetry)): made here, with what each records when its
//! call ends. The texts themselves (messages, arguments, results) are recorded only when the
//! application asks for them, and masked by the agent's policy first.

use tracing::Span;
use tracing::field::Empty;

use super::cx::Cx;
use crate::base::telemetry::{field, operation, span};
use crate::model::spans;
use crate::model::{ChatResponse, Message, ModelError};
use crate::tool::CallOutcome;
use crate::units::Usd;

impl Cx<'_> {
    /// The span of model call `turn` (the request's messages recorded when content is).
    pub(super) fn model_call_span(&self, model_id: &str, turn: u32, messages: &[Message]) -> Span {
        let span = spans::chat_span(model_id, Some(self.agent.name()), Some(turn));
        if self.env.trace_content && !span.is_disabled() {
            let text = serde_json::to_string(messages).unwrap_or_default();
            span.record(field::INPUT_MESSAGES, self.masked_text(&text));
        }
        span
    }

    /// Records on `span` how model call `answered` ended: its usage and cost, or its error
    /// (and what it said, when content is recorded).
    pub(super) fn record_answer(
        &self,
        span: &Span,
        model_id: &str,
        answered: &Result<ChatResponse, ModelError>,
    ) {
        if span.is_disabled() {
            return;
        }
        let cost = answered.as_ref().map_or(Usd::ZERO, |response| {
            self.env.router.cost(model_id, response.usage)
        });
        spans::record_chat(span, answered, cost);
        if let (true, Ok(response)) = (self.env.trace_content, answered) {
            let said = serde_json::json!({
                "text": response.text,
                "tool_calls": response.tool_calls,
            });
            span.record(field::OUTPUT_MESSAGES, self.masked_text(&said.to_string()));
        }
    }

    /// The span of a tool call (its arguments recorded when content is), and the policy its
    /// result is masked with when content is recorded (`None` when it is not).
    pub(super) fn tool_call_span(&self, call: ToolCallSpan<'_>) -> (Span, Option<ContentMask>) {
        let span = tracing::info_span!(
            span::TOOL_CALL,
            { field::OTEL_NAME } = %format_args!("{} {}", operation::EXECUTE_TOOL, call.tool),
            { field::OPERATION } = operation::EXECUTE_TOOL,
            { field::AGENT_NAME } = self.agent.name(),
            { field::TOOL_NAME } = call.tool,
            { field::TOOL_CALL_ID } = call.call_id,
            { field::TOOL_TYPE } = "function",
            { field::TOOL_SOURCE } = call.source,
            { field::TOOL_ATTEMPT } = call.attempt,
            { field::IDEMPOTENCY_KEY } = %call.idempotency_key(),
            { field::TOOL_OUTCOME } = Empty,
            { field::RESULT_TRUNCATED } = Empty,
            { field::ERROR_TYPE } = Empty,
            { field::TOOL_ARGUMENTS } = Empty,
            { field::TOOL_RESULT } = Empty,
        );
        if !self.env.trace_content || span.is_disabled() {
            return (span, None);
        }
        span.record(field::TOOL_ARGUMENTS, self.masked_text(call.arguments));
        (span, Some(ContentMask))
    }

    /// `text` masked by the agent's policy, when it has one.
    fn masked_text(&self, text: &str) -> String {
        match self.agent.masking() {
            Some(masking) => masking.value.mask(text).into_owned(),
            None => text.to_owned(),
        }
    }
}

/// What a tool call's span is made of.
pub(super) struct ToolCallSpan<'a> {
    pub(super) tool: &'a str,
    pub(super) call_id: &'a str,
    pub(super) source: &'static str,
    pub(super) attempt: u32,
    pub(super) arguments: &'a str,
    pub(super) step: &'a crate::context::Step,
    pub(super) execution_id: &'a str,
}

impl ToolCallSpan<'_> {
    fn idempotency_key(&self) -> String {
        self.step.idempotency_key(self.execution_id)
    }
}

/// That a tool call's result is recorded on its span (as the model reads it: masked already by
/// the call's pipeline when the agent masks).
#[derive(Clone, Copy)]
pub(super) struct ContentMask;

/// Records on `span` how its tool call ended (and its result, when `content` is given).
pub(super) fn record_tool_end(span: &Span, outcome: &CallOutcome, content: Option<&ContentMask>) {
    if span.is_disabled() {
        return;
    }
    let ok = outcome.is_ok();
    span.record(field::TOOL_OUTCOME, if ok { "ok" } else { "error" });
    span.record(field::RESULT_TRUNCATED, outcome.is_result_truncated);
    if !ok {
        span.record(field::ERROR_TYPE, "tool_error");
    }
    if content.is_some() {
        span.record(field::TOOL_RESULT, outcome.content.as_str());
    }
}
