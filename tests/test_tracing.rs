//! Spans for the execution, each model call and each tool call, with their fields.
//!
//! Alone in its test binary: tracing caches each call site's interest process-wide, and a
//! scoped subscriber in one test races with other tests reaching the same call sites first.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use agboss::model::{ScriptedModel, Turn};
use agboss::policy::MaskingPolicy;
use agboss::prelude::*;
use agboss::telemetry::field;
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
    {
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
        assert_eq!(execution[0][field::EXECUTION_ID], "e-1");
        assert_eq!(execution[0][field::AGENT_NAME], "speaker");
        assert_eq!(execution[0][field::OPERATION], "invoke_agent");
        assert_eq!(execution[0][field::OTEL_NAME], "invoke_agent speaker");
        assert_eq!(execution[0][field::WORKFLOW], "desk");
        let model_calls = named("agboss.model_call");
        assert_eq!(model_calls.len(), 2);
        let chat = &model_calls[1];
        assert_eq!(chat[field::TURN], "2");
        assert_eq!(chat[field::OPERATION], "chat");
        assert_eq!(chat[field::OTEL_NAME], "chat openai/gpt-5-mini");
        assert_eq!(chat[field::OTEL_KIND], "client");
        assert_eq!(chat[field::REQUEST_MODEL], "openai/gpt-5-mini");
        assert_eq!(chat[field::PROVIDER], "openai");
        assert_eq!(chat[field::INPUT_TOKENS], "0");
        assert_eq!(chat[field::COST_USD], "0.0");
        let tool_calls = named("agboss.tool_call");
        assert_eq!(tool_calls.len(), 1);
        let call = &tool_calls[0];
        assert_eq!(
            (
                &call[field::TOOL_NAME][..],
                &call[field::TOOL_SOURCE][..],
                &call[field::TOOL_CALL_ID][..],
                &call[field::TOOL_OUTCOME][..],
                &call[field::RESULT_TRUNCATED][..],
                &call[field::OTEL_NAME][..],
            ),
            (
                "shout-tool",
                "local",
                "call_0",
                "ok",
                "false",
                "execute_tool shout-tool"
            )
        );
        assert!(call[field::IDEMPOTENCY_KEY].starts_with("e-1:"), "{call:?}");
        // No text of the conversation unless the application asks for it.
        for fields in spans.iter().map(|(_, f)| f) {
            for text in [
                field::INPUT_MESSAGES,
                field::OUTPUT_MESSAGES,
                field::TOOL_ARGUMENTS,
                field::TOOL_RESULT,
            ] {
                assert!(!fields.contains_key(text), "{fields:?}");
            }
        }
    }

    // Asked for, the texts are recorded, masked by the agent's policy.
    capture.spans.lock().unwrap().clear();
    let model = ScriptedModel::new([
        Turn::call("shout-tool", json!({"text": "mail ada@example.com"})),
        Turn::text("done"),
    ]);
    let app = Application::builder("observed")
        .workflow(Workflow::new("desk").agent::<Speaker>())
        .masking(MaskingPolicy::standard())
        .trace_content(true)
        .chat_model(Arc::new(model))
        .build()
        .unwrap();
    app.run("desk", "write to ada@example.com")
        .execution_id("e-2")
        .await
        .unwrap();
    let spans = capture.spans.lock().unwrap();
    let call = spans
        .iter()
        .find(|(n, _)| *n == "agboss.tool_call")
        .map(|(_, f)| f)
        .unwrap();
    assert!(
        !call[field::TOOL_ARGUMENTS].contains("ada@example.com"),
        "{call:?}"
    );
    assert!(call[field::TOOL_ARGUMENTS].contains("mail "), "{call:?}");
    assert!(call[field::TOOL_RESULT].contains("MAIL "), "{call:?}");
    assert!(
        !call[field::TOOL_RESULT].contains("ADA@EXAMPLE.COM"),
        "{call:?}"
    );
    let chats: Vec<_> = spans
        .iter()
        .filter(|(n, _)| *n == "agboss.model_call")
        .map(|(_, f)| f)
        .collect();
    assert!(
        chats[0][field::INPUT_MESSAGES].contains("write to"),
        "{:?}",
        chats[0]
    );
    assert!(
        chats[0][field::OUTPUT_MESSAGES].contains("shout-tool"),
        "{:?}",
        chats[0]
    );
    assert!(
        chats[1][field::OUTPUT_MESSAGES].contains("done"),
        "{:?}",
        chats[1]
    );
}
