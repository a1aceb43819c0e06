//! Assembly's codes and defaults that the scenario tests do not reach: agents and tools built
//! by hand, as the macros would build them.

use std::sync::Arc;

use super::*;
use crate::agent::{AgentDescriptor, AnswerSpec};
use crate::assembly::{ToolDefaults, Workflow};
use crate::base::AssemblyError;
use crate::component::{DependencyError, SourceLocation};
use crate::config::Config;
use crate::dto::PlainText;
use crate::journal::LoopEvent;
use crate::mcp::{McpServerDescriptor, McpTransport, remote_tool};
use crate::model::{ScriptedModel, ToolChoice, Turn};
use crate::run::RunError;
use crate::store::{Journal, MemoryStore};
use crate::tool::{Scope, Tool, ToolDescriptor, ToolError, ToolHandler, ToolRegistration};
use crate::tool::{tool_input_schema, tool_output_schema};
use crate::units::ByteSize;

const HERE: SourceLocation = SourceLocation {
    module_path: module_path!(),
    file: file!(),
    line: line!(),
};

static SCOUT: AgentDescriptor = AgentDescriptor::new(
    "scout",
    "Finds jobs",
    "Scout",
    HERE,
    "moonshotai/kimi-k2.6",
    &[],
    &[],
);

static PICKY: AgentDescriptor = AgentDescriptor::new(
    "picky",
    "Always calls one tool",
    "Picky",
    HERE,
    "moonshotai/kimi-k2.6",
    &[],
    &[],
)
.with_tool_choice("nope-tool");

/// An answer whose schema has a pattern no regex engine reads.
struct Broken;

impl schemars::JsonSchema for Broken {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Broken".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "properties": { "id": { "type": "string", "pattern": "(unclosed" } }
        })
    }
}

static BROKEN_ANSWER: AgentDescriptor = AgentDescriptor::new(
    "reporter",
    "Answers with a report",
    "Reporter",
    HERE,
    "moonshotai/kimi-k2.6",
    &[],
    &[],
)
.with_answer(AnswerSpec::of::<Broken>("answer-broken"));

/// A tool that echoes its text.
struct Echo;

impl ToolHandler for Echo {
    type Input = PlainText;
    type Output = PlainText;

    async fn run(&self, input: PlainText) -> Result<PlainText, ToolError> {
        Ok(input)
    }
}

static ECHO: ToolDescriptor = ToolDescriptor::new(
    "echo-tool",
    "Echoes its text",
    "Echo",
    HERE,
    tool_input_schema::<Echo>,
    tool_output_schema::<Echo>,
);

impl Tool for Echo {
    const DESCRIPTOR: &'static ToolDescriptor = &ECHO;

    fn build(_: &Scope<'_>) -> Result<Self, DependencyError> {
        Ok(Echo)
    }
}

fn build(builder: ApplicationBuilder) -> AssemblyError {
    match builder.build() {
        Ok(_) => panic!("assembly should fail"),
        Err(error) => error,
    }
}

#[test]
fn nothing_set_means_the_built_in_limits() {
    let app = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent_descriptor(&SCOUT))
        .build()
        .unwrap();
    let built_in = |value: &str| format!("{value} (built-in)");
    assert_eq!(app.max_result_size().to_string(), built_in("128 KB"));
    assert_eq!(app.max_result_size().value, ByteSize::DEFAULT_RESULT_BOUND);
    let desk = &app.workflows()[0];
    assert_eq!(desk.max_result_size().to_string(), built_in("128 KB"));
    assert_eq!(desk.max_tool_calls().to_string(), built_in("20"));
    let scout = &desk.agents()[0];
    assert_eq!(scout.max_tool_calls().to_string(), built_in("20"));
    assert_eq!(scout.max_result_size().to_string(), built_in("128 KB"));
    assert_eq!(
        scout.descriptor().history().to_string(),
        "5 turns + 10 summaries"
    );
    assert_eq!(scout.descriptor().thinking().to_string(), "default");
}

#[test]
fn max_tool_calls_come_from_the_nearest_level() {
    let app = |config: &str| {
        Application::builder("desk-application")
            .workflow(
                Workflow::new("desk")
                    .agent_descriptor(&SCOUT)
                    .defaults(ToolDefaults::new().max_tool_calls(6)),
            )
            .defaults(ToolDefaults::new().max_tool_calls(8))
            .config(Config::from_toml("desk.toml", config))
            .build()
            .unwrap()
    };
    let calls = |app: &Application| app.workflows()[0].agents()[0].max_tool_calls().to_string();
    assert_eq!(calls(&app("")), "6 (desk)");
    assert_eq!(
        calls(&app("[agents.scout]\nmax_tool_calls = 3\n")),
        "3 (own)"
    );
    let without_workflow_default = Application::builder("desk-application")
        .workflow(Workflow::new("desk").agent_descriptor(&SCOUT))
        .defaults(ToolDefaults::new().max_tool_calls(8))
        .build()
        .unwrap();
    assert_eq!(calls(&without_workflow_default), "8 (desk-application)");
}

#[test]
fn zero_tool_calls_are_refused_wherever_they_come_from() {
    let error = build(
        Application::builder("desk-application")
            .workflow(
                Workflow::new("desk")
                    .agent_descriptor(&SCOUT)
                    .defaults(ToolDefaults::new().max_tool_calls(0)),
            )
            .config(Config::from_toml(
                "desk.toml",
                "[workflows.desk.defaults.tools]\nmax_tool_calls = 0\n",
            )),
    );
    assert_eq!(error.codes(), ["agent.max-tool-calls-invalid"]);
    assert_eq!(
        error.problems()[0].message(),
        "agent `scout` (workflow `desk`): max tool calls of 0 (desk) would stop it before its first call: give at least 1"
    );
    let error = build(
        Application::builder("desk-application")
            .workflow(Workflow::new("desk").agent_descriptor(&SCOUT))
            .config(Config::from_toml(
                "desk.toml",
                "[agents.scout]\nmax_tool_calls = 0\n",
            )),
    );
    assert_eq!(error.codes(), ["agent.max-tool-calls-invalid"]);
    assert!(
        error.problems()[0]
            .message()
            .contains("max tool calls of 0 (own)"),
        "{error}"
    );
}

#[test]
fn a_tool_choice_must_name_one_of_the_agents_tools() {
    let error = build(
        Application::builder("desk-application")
            .workflow(Workflow::new("desk").agent_descriptor(&PICKY)),
    );
    assert_eq!(error.codes(), ["agent.tool-choice-unknown"]);
    assert_eq!(
        error.problems()[0].message(),
        "agent `picky`: tool_choice names `nope-tool`, which is not one of its tools: use \"auto\", \"required\", \"none\" or one of its tools (it has none)"
    );
}

#[test]
fn an_answer_schema_that_does_not_compile_is_refused_at_assembly() {
    let error = build(
        Application::builder("desk-application")
            .workflow(Workflow::new("desk").agent_descriptor(&BROKEN_ANSWER)),
    );
    assert_eq!(error.codes(), ["agent.answer-schema-invalid"]);
    assert!(
        error.problems()[0].message().starts_with(
            "agent `reporter`: the schema of its answer `answer-broken` does not compile: "
        ),
        "{error}"
    );
}

#[test]
fn configuration_for_a_workflow_that_does_not_exist_is_a_problem() {
    let error = build(
        Application::builder("desk-application")
            .workflow(Workflow::new("desk"))
            .config(Config::from_toml(
                "desk.toml",
                "[workflows.dsek.defaults.tools]\nmax_tool_calls = 3\n",
            )),
    );
    assert_eq!(error.codes(), ["config.unknown-workflow"]);
    assert_eq!(
        error.problems()[0].message(),
        "desk.toml: [workflows.dsek] names no workflow of the application"
    );
}

static NOTES_FS: McpServerDescriptor = McpServerDescriptor::new(
    "notes-fs",
    "NotesFs",
    HERE,
    McpTransport::Stdio {
        command: "node",
        args: &[],
    },
    &["read_text_file"],
);

static WRITE_NOTE: ToolDescriptor = ToolDescriptor::new(
    "write-note-tool",
    "Writes a note",
    "WriteNote",
    HERE,
    tool_input_schema::<Echo>,
    tool_output_schema::<Echo>,
)
.with_remote(remote_tool(&NOTES_FS, "write_file"));

#[test]
fn an_mcp_tool_built_by_hand_must_call_a_declared_tool() {
    let registration = ToolRegistration::of::<Echo>().with_descriptor(&WRITE_NOTE);
    let error = build(
        Application::builder("desk-application")
            .workflow(Workflow::new("desk").tool_registration(registration)),
    );
    assert_eq!(error.codes(), ["mcp.undeclared-tool"]);
    assert_eq!(
        error.problems()[0].message(),
        "tool `write-note-tool` calls `write_file` of server `notes-fs`, which its #[mcp_server] does not declare: add it to `tools = [..]`"
    );
}

// An agent whose answer is a DTO, run by the loop: it must answer through its answer tool.
/// The judge's answer.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
struct Verdict {
    ok: bool,
}

static JUDGE: AgentDescriptor = AgentDescriptor::new(
    "judge",
    "Judges",
    "Judge",
    SourceLocation {
        module_path: module_path!(),
        file: file!(),
        line: line!(),
    },
    "test/model",
    &[],
    &[],
)
.with_answer(AnswerSpec::of::<Verdict>("answer-verdict"));

#[tokio::test]
async fn an_agent_with_an_answer_dto_that_answers_in_text_fails_with_answer_missing() {
    let model =
        ScriptedModel::new([Turn::text("it looks fine").expect_tool_choice(ToolChoice::Required)]);
    let store = Arc::new(MemoryStore::new());
    let app = Application::builder("judging")
        .workflow(Workflow::new("desk").agent_descriptor(&JUDGE))
        .chat_model(Arc::new(model))
        .store(store.clone())
        .build()
        .unwrap();
    let error = app
        .run("desk", "judge it")
        .execution_id("e-1")
        .await
        .unwrap_err();
    assert!(matches!(error, RunError::Contract(_)), "{error:?}");
    assert_eq!(error.code(), "answer.missing");
    assert_eq!(
        error.to_string(),
        "agent `judge` answers through `answer-verdict`, but the model answered in text"
    );
    let journal = store.events("e-1").await.unwrap();
    assert!(
        matches!(journal.last(), Some(LoopEvent::Failed { code, .. }) if code == "answer.missing"),
        "{journal:?}"
    );
}
