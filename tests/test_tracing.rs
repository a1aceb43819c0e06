//! Spans for the execution, each model call and each tool call, with their fields.
//!
//! Alone in its test binary: tracing caches each call site's interest process-wide, and a
//! scoped subscriber in one test races with other tests reaching the same call sites first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::{Application, Workflow};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

/// Records every span's name and fields.
#[derive(Default)]
struct Capture {
    next: AtomicU64,
    spans: Mutex<Vec<(&'static str, HashMap<String, String>)>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(
            field.name().to_owned(),
            format!("{value:?}").trim_matches('"').to_owned(),
        );
    }
}

impl Subscriber for Capture {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, attributes: &Attributes<'_>) -> Id {
        let mut fields = HashMap::new();
        attributes.record(&mut Fields(&mut fields));
        let mut spans = self.spans.lock().unwrap();
        spans.push((attributes.metadata().name(), fields));
        let _ = self.next.fetch_add(1, Ordering::SeqCst);
        Id::from_u64(spans.len() as u64)
    }
    fn record(&self, span: &Id, values: &Record<'_>) {
        let mut spans = self.spans.lock().unwrap();
        if let Some((_, fields)) = spans.get_mut(span.into_u64() as usize - 1) {
            values.record(&mut Fields(fields));
        }
    }
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

#[dto]
pub struct Text {
    /// The text.
    pub text: String,
}

#[tool(name = "shout-tool", description = "Shouts", read_only = true)]
pub struct Shout;

impl ToolHandler for Shout {
    type Input = Text;
    type Output = Text;

    async fn run(&self, input: Text) -> Result<Text, ToolError> {
        Ok(Text {
            text: input.text.to_uppercase(),
        })
    }
}

#[agent(
    name = "speaker",
    description = "Speaks",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Shout],
)]
pub struct Speaker;

fn app(model: ScriptedModel) -> Application {
    Application::builder("observed")
        .workflow(Workflow::new("desk").agent::<Speaker>())
        .chat_model(Arc::new(model))
        .build()
        .unwrap()
}

#[tokio::test]
async fn spans_name_the_execution_each_model_call_and_each_tool_call() {
    let capture = Arc::new(Capture::default());
    let _guard = tracing::subscriber::set_default(capture.clone());
    let model = ScriptedModel::new([
        Turn::call("shout-tool", json!({"text": "hi"})),
        Turn::text("HI"),
    ]);
    let outcome = app(model)
        .run("desk", "shout")
        .execution_id("e-1")
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("HI"));
    let spans = capture.spans.lock().unwrap();
    let named = |name: &str| {
        spans
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, f)| f.clone())
            .collect::<Vec<_>>()
    };
    let execution = named("agboss.execution");
    assert_eq!(execution.len(), 1);
    assert_eq!(execution[0]["execution_id"], "e-1");
    assert_eq!(execution[0]["agent"], "speaker");
    let model_calls = named("agboss.model_call");
    assert_eq!(model_calls.len(), 2);
    assert_eq!(model_calls[1]["turn"], "2");
    let tool_calls = named("agboss.tool_call");
    assert_eq!(tool_calls.len(), 1);
    let call = &tool_calls[0];
    assert_eq!(
        (
            &call["tool"][..],
            &call["source"][..],
            &call["call_id"][..],
            &call["outcome"][..],
            &call["is_result_truncated"][..]
        ),
        ("shout-tool", "local", "call_0", "ok", "false")
    );
}
