//! Metrics made from the spans of runs, as each closes: a `tracing` layer that reads the fields
//! the loop records ([`telemetry`](crate::base::telemetry)) and adds them to OpenTelemetry
//! instruments. The loop knows nothing of metrics, and nothing is counted twice.
//!
//! | instrument | kind, unit | attributes |
//! |---|---|---|
//! | `gen_ai.client.operation.duration` | histogram, s | `gen_ai.operation.name` (`chat`), `gen_ai.request.model`, `gen_ai.provider.name`, `gen_ai.agent.name`, `error.type` when it failed |
//! | `gen_ai.client.token.usage` | histogram, `{token}` | `gen_ai.token.type` (`input`, `output`), `gen_ai.operation.name`, `gen_ai.request.model`, `gen_ai.provider.name`, `gen_ai.agent.name`, `gen_ai.tool.name` when a tool made the call |
//! | `agboss.tokens` | counter, `{token}` | as `gen_ai.client.token.usage` |
//! | `agboss.cost` | counter, USD | `gen_ai.request.model`, `gen_ai.agent.name`, `gen_ai.tool.name` when a tool made the call |
//! | `agboss.tool.calls` | counter, `{call}` | `gen_ai.tool.name`, `gen_ai.agent.name`, `agboss.tool.source`, `agboss.tool.outcome` |
//! | `agboss.tool.errors` | counter, `{call}` | `gen_ai.tool.name`, `gen_ai.agent.name`, `agboss.tool.source` |
//! | `agboss.tool.truncations` | counter, `{call}` | `gen_ai.tool.name`, `gen_ai.agent.name`, `agboss.tool.source` |
//! | `agboss.tool.duration` | histogram, s | `gen_ai.tool.name`, `gen_ai.agent.name`, `agboss.tool.source`, `agboss.tool.outcome` |

use std::collections::HashMap;
use std::time::Instant;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram, MeterProvider};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::Layer;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use crate::base::telemetry::{field, operation, span};

/// The layer: add it beside `tracing-opentelemetry`'s ([`Otel::layer`](super::Otel::layer)
/// does).
pub struct RunMetrics {
    operation_duration: Histogram<f64>,
    token_usage: Histogram<u64>,
    tokens: Counter<u64>,
    cost: Counter<f64>,
    tool_calls: Counter<u64>,
    tool_errors: Counter<u64>,
    truncations: Counter<u64>,
    tool_duration: Histogram<f64>,
}

impl RunMetrics {
    /// The instruments, made on `provider`'s meter `agboss`.
    pub fn new(provider: &impl MeterProvider) -> RunMetrics {
        let meter = provider.meter("agboss");
        RunMetrics {
            operation_duration: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("How long model calls took")
                .build(),
            token_usage: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens read and written per model call")
                .build(),
            tokens: meter
                .u64_counter("agboss.tokens")
                .with_unit("{token}")
                .with_description("Tokens read and written, in all")
                .build(),
            cost: meter
                .f64_counter("agboss.cost")
                .with_unit("USD")
                .with_description("What model calls cost, as the application's prices say")
                .build(),
            tool_calls: meter
                .u64_counter("agboss.tool.calls")
                .with_unit("{call}")
                .with_description("Tool calls that ended")
                .build(),
            tool_errors: meter
                .u64_counter("agboss.tool.errors")
                .with_unit("{call}")
                .with_description("Tool calls that ended in a tool error")
                .build(),
            truncations: meter
                .u64_counter("agboss.tool.truncations")
                .with_unit("{call}")
                .with_description("Tool calls whose result was cut to its bound")
                .build(),
            tool_duration: meter
                .f64_histogram("agboss.tool.duration")
                .with_unit("s")
                .with_description("How long tool calls took")
                .build(),
        }
    }

    /// A model call ended; `made_by` names the tool (and its agent) when a tool made it.
    fn chat_ended(&self, fields: &Fields, made_by: Vec<KeyValue>, seconds: f64) {
        let mut common = fields.attributes(&[
            field::OPERATION,
            field::REQUEST_MODEL,
            field::PROVIDER,
            field::AGENT_NAME,
        ]);
        for inherited in made_by {
            if !common.iter().any(|kv| kv.key == inherited.key) {
                common.push(inherited);
            }
        }
        let mut timed = common.clone();
        timed.extend(fields.attributes(&[field::ERROR_TYPE]));
        self.operation_duration.record(seconds, &timed);
        for (key, kind) in [
            (field::INPUT_TOKENS, "input"),
            (field::OUTPUT_TOKENS, "output"),
        ] {
            if let Some(count) = fields.number(key) {
                let mut attributes = common.clone();
                attributes.push(KeyValue::new("gen_ai.token.type", kind));
                self.token_usage.record(count, &attributes);
                self.tokens.add(count, &attributes);
            }
        }
        if let Some(Value::Float(usd)) = fields.0.get(field::COST_USD) {
            common.retain(|kv| kv.key.as_str() != field::OPERATION);
            common.retain(|kv| kv.key.as_str() != field::PROVIDER);
            self.cost.add(*usd, &common);
        }
    }

    fn tool_ended(&self, fields: &Fields, seconds: f64) {
        let attributes =
            fields.attributes(&[field::TOOL_NAME, field::AGENT_NAME, field::TOOL_SOURCE]);
        let mut with_outcome = attributes.clone();
        with_outcome.extend(fields.attributes(&[field::TOOL_OUTCOME]));
        self.tool_calls.add(1, &with_outcome);
        self.tool_duration.record(seconds, &with_outcome);
        if fields.text(field::TOOL_OUTCOME) == Some("error") {
            self.tool_errors.add(1, &attributes);
        }
        if matches!(
            fields.0.get(field::RESULT_TRUNCATED),
            Some(Value::Bool(true))
        ) {
            self.truncations.add(1, &attributes);
        }
    }
}

/// What a span of interest recorded, and when it opened (metrics measure wall time, as the
/// exported spans do; the run's own clock decides nothing here).
struct Open {
    fields: Fields,
    opened: Instant,
}

/// A span's fields by name.
#[derive(Default)]
struct Fields(HashMap<&'static str, Value>);

enum Value {
    Text(String),
    Number(u64),
    Float(f64),
    Bool(bool),
}

impl Fields {
    fn text(&self, key: &str) -> Option<&str> {
        match self.0.get(key) {
            Some(Value::Text(text)) => Some(text),
            _ => None,
        }
    }

    fn number(&self, key: &str) -> Option<u64> {
        match self.0.get(key) {
            Some(Value::Number(n)) => Some(*n),
            _ => None,
        }
    }

    /// The text fields among `keys` that were recorded, as attributes.
    fn attributes(&self, keys: &[&'static str]) -> Vec<KeyValue> {
        keys.iter()
            .filter_map(|key| self.text(key).map(|v| KeyValue::new(*key, v.to_owned())))
            .collect()
    }
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), Value::Text(value.to_owned()));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), Value::Number(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(
            field.name(),
            Value::Number(u64::try_from(value).unwrap_or(0)),
        );
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name(), Value::Float(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), Value::Bool(value));
    }
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        // `%value` fields (the model id, names) come as `Display` through here.
        self.0
            .insert(field.name(), Value::Text(format!("{value:?}")));
    }
}

/// Whether spans named `name` are counted.
fn counted(name: &str) -> bool {
    name == span::MODEL_CALL || name == span::TOOL_CALL
}

impl<S> Layer<S> for RunMetrics
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if !counted(attributes.metadata().name()) {
            return;
        }
        let Some(span) = ctx.span(id) else {
            return;
        };
        let mut fields = Fields::default();
        attributes.record(&mut fields);
        span.extensions_mut().insert(Open {
            fields,
            opened: Instant::now(),
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(id) else {
            return;
        };
        if let Some(open) = span.extensions_mut().get_mut::<Open>() {
            values.record(&mut open.fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let Some(open) = span.extensions_mut().remove::<Open>() else {
            return;
        };
        let seconds = open.opened.elapsed().as_secs_f64();
        match open.fields.text(field::OPERATION) {
            Some(operation::CHAT) => {
                // A model call a tool made is charged to the tool (and its agent).
                let made_by = span
                    .scope()
                    .skip(1)
                    .find_map(|parent| {
                        let extensions = parent.extensions();
                        let open = extensions.get::<Open>()?;
                        open.fields.text(field::TOOL_NAME)?;
                        Some(
                            open.fields
                                .attributes(&[field::TOOL_NAME, field::AGENT_NAME]),
                        )
                    })
                    .unwrap_or_default();
                self.chat_ended(&open.fields, made_by, seconds);
            }
            Some(operation::EXECUTE_TOOL) => self.tool_ended(&open.fields, seconds),
            _ => {}
        }
    }
}
