//! The names of the spans a run opens and of their fields, in one place: the loop writes them,
//! the OpenTelemetry export (feature `otel`) reads them to make its metrics, and a subscriber of
//! one's own can match on them.
//!
//! Fields follow OpenTelemetry's semantic conventions for generative AI (`gen_ai.*`) where
//! those name the thing; the framework's own are under `agboss.*`. Every span also carries
//! `otel.name` (the name an OpenTelemetry back-end shows: `invoke_agent desk`, `chat
//! openai/gpt-5-mini`, `execute_tool refund-tool`) and, for model calls, `otel.kind = client`.
//!
//! ```
//! use agboss_core::base::telemetry::{field, span};
//!
//! assert_eq!(span::TOOL_CALL, "agboss.tool_call");
//! assert_eq!(field::TOOL_NAME, "gen_ai.tool.name");
//! ```

/// The names of the spans (as `tracing` knows them).
pub mod span {
    /// One execution of an agent: the root of a run's spans.
    pub const EXECUTION: &str = "agboss.execution";
    /// One call of a chat model, a child of its execution's span.
    pub const MODEL_CALL: &str = "agboss.model_call";
    /// One tool call, a child of its execution's span (calls of one turn run side by side).
    pub const TOOL_CALL: &str = "agboss.tool_call";
}

/// The values of [`field::OPERATION`].
pub mod operation {
    /// An execution's span.
    pub const INVOKE_AGENT: &str = "invoke_agent";
    /// A model call's span.
    pub const CHAT: &str = "chat";
    /// A tool call's span.
    pub const EXECUTE_TOOL: &str = "execute_tool";
}

/// The names of the spans' fields.
pub mod field {
    /// What the span does: one of [`operation`](super::operation)'s values.
    pub const OPERATION: &str = "gen_ai.operation.name";
    /// The span's name in OpenTelemetry (`tracing-opentelemetry` reads it).
    pub const OTEL_NAME: &str = "otel.name";
    /// The span's kind in OpenTelemetry (`client` for a model call).
    pub const OTEL_KIND: &str = "otel.kind";
    /// The agent (every span).
    pub const AGENT_NAME: &str = "gen_ai.agent.name";
    /// The execution's id (an execution's span).
    pub const EXECUTION_ID: &str = "agboss.execution.id";
    /// The workflow the execution runs in (an execution's span).
    pub const WORKFLOW: &str = "agboss.workflow";
    /// The model id asked, as the application names it (`openai/gpt-5-mini`).
    pub const REQUEST_MODEL: &str = "gen_ai.request.model";
    /// The provider part of the model id (`openai`), when it has one.
    pub const PROVIDER: &str = "gen_ai.provider.name";
    /// The model turn within the execution, from 1.
    pub const TURN: &str = "agboss.turn";
    /// Tokens the model read (recorded when it answered).
    pub const INPUT_TOKENS: &str = "gen_ai.usage.input_tokens";
    /// Tokens the model wrote (recorded when it answered).
    pub const OUTPUT_TOKENS: &str = "gen_ai.usage.output_tokens";
    /// What the call cost, in US dollars, as the application's prices say (model calls).
    pub const COST_USD: &str = "agboss.cost.usd";
    /// The tool's name, as the model calls it.
    pub const TOOL_NAME: &str = "gen_ai.tool.name";
    /// The call's id, as the model gave it (or the loop made it).
    pub const TOOL_CALL_ID: &str = "gen_ai.tool.call.id";
    /// Always `function`: agboss's tools are called with JSON arguments.
    pub const TOOL_TYPE: &str = "gen_ai.tool.type";
    /// Where the tool comes from: `local`, `mcp:<server>`, `knowledge`, ...
    pub const TOOL_SOURCE: &str = "agboss.tool.source";
    /// The call's attempt (from 0; a call run again after a crash counts up).
    pub const TOOL_ATTEMPT: &str = "agboss.tool.attempt";
    /// The key a tool with side effects passes to the service it changes.
    pub const IDEMPOTENCY_KEY: &str = "agboss.idempotency_key";
    /// How the call ended: `ok` or `error` (recorded when it ended).
    pub const TOOL_OUTCOME: &str = "agboss.tool.outcome";
    /// Whether the result was cut to its bound (recorded when the call ended).
    pub const RESULT_TRUNCATED: &str = "agboss.result.truncated";
    /// Set when the span's operation failed: `tool_error`, or the model error's kind.
    pub const ERROR_TYPE: &str = "error.type";
    /// The messages the model read, as JSON, masked; only when content is recorded.
    pub const INPUT_MESSAGES: &str = "gen_ai.input.messages";
    /// What the model answered, as JSON, masked; only when content is recorded.
    pub const OUTPUT_MESSAGES: &str = "gen_ai.output.messages";
    /// The call's arguments, as JSON, masked; only when content is recorded.
    pub const TOOL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
    /// The result the model reads, bounded and masked; only when content is recorded.
    pub const TOOL_RESULT: &str = "gen_ai.tool.call.result";
}
