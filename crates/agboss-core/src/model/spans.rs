//! The span of one model call (its name and fields are in
//! [`base::telemetry`](crate::base::telemetry)), whoever makes it: the agent loop for its turns,
//! [`ModelClient`](super::ModelClient) for a tool's own calls (a child of the tool call's span).

use tracing::Span;
use tracing::field::Empty;

use super::{ChatResponse, ModelError};
use crate::base::telemetry::{field, operation, span};
use crate::units::Usd;

/// The span of a call of `model_id` (`agent`'s turn `turn`, when the loop makes it).
pub(crate) fn chat_span(model_id: &str, agent: Option<&str>, turn: Option<u32>) -> Span {
    let provider = model_id.split_once('/').map(|(provider, _)| provider);
    tracing::info_span!(
        span::MODEL_CALL,
        { field::OTEL_NAME } = %format_args!("{} {model_id}", operation::CHAT),
        { field::OTEL_KIND } = "client",
        { field::OPERATION } = operation::CHAT,
        { field::AGENT_NAME } = agent,
        { field::REQUEST_MODEL } = model_id,
        { field::PROVIDER } = provider,
        { field::TURN } = turn,
        { field::INPUT_TOKENS } = Empty,
        { field::OUTPUT_TOKENS } = Empty,
        { field::COST_USD } = Empty,
        { field::ERROR_TYPE } = Empty,
        { field::INPUT_MESSAGES } = Empty,
        { field::OUTPUT_MESSAGES } = Empty,
    )
}

/// Records on `span` how the call ended: its usage and `cost`, or its error's kind.
pub(crate) fn record_chat(span: &Span, answered: &Result<ChatResponse, ModelError>, cost: Usd) {
    if span.is_disabled() {
        return;
    }
    match answered {
        Ok(response) => {
            span.record(field::INPUT_TOKENS, response.usage.input_tokens);
            span.record(field::OUTPUT_TOKENS, response.usage.output_tokens);
            span.record(field::COST_USD, cost.nanos() as f64 / 1e9);
        }
        Err(e) => {
            span.record(field::ERROR_TYPE, error_type(e));
        }
    }
}

/// A model error's kind, as `error.type` says it.
fn error_type(e: &ModelError) -> &'static str {
    match e {
        ModelError::RateLimited { .. } => "rate_limited",
        ModelError::Server { .. } => "server_error",
        ModelError::Timeout { .. } => "timeout",
        ModelError::Unauthorized { .. } => "unauthorized",
        ModelError::BadRequest { .. } => "bad_request",
        ModelError::MalformedResponse { .. } => "malformed_response",
        ModelError::Aborted(_) => "cancelled",
        _ => "model_error",
    }
}
