//! The call contract's unit tests (`invoke.rs`): what a call does with its arguments, its
//! gates and its result.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;
use crate::component::{DependencyError, SourceLocation};
use crate::context::{AbortReason, Execution, Signal, Step};
use crate::tool::{Scope, ToolError, ToolHandler, tool_input_schema, tool_output_schema};
use crate::units::kilobytes;

#[derive(Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Query {
    query: String,
    #[schemars(range(max = 1.1))]
    #[serde(default)]
    weight: f32,
}

#[derive(Serialize, JsonSchema)]
struct Answer {
    echo: String,
    /// Serialized by a function that fails for `"unwritable"`.
    #[serde(serialize_with = "refuse_unwritable")]
    #[schemars(with = "String")]
    text: String,
}

/// Refuses `"unwritable"`, and panics on `"explosive"` (a hand-written `Serialize` with a bug).
fn refuse_unwritable<S: serde::Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    if text == "explosive" {
        panic!("the writer blew up");
    }
    if text == "unwritable" {
        Err(serde::ser::Error::custom("has no JSON form"))
    } else {
        s.serialize_str(text)
    }
}

/// Echoes its query; `"give up"` cancels the execution and then fails.
struct Echo {
    execution: Signal,
}

impl ToolHandler for Echo {
    type Input = Query;
    type Output = Answer;

    async fn run(&self, Query { query, .. }: Query) -> Result<Answer, ToolError> {
        if query == "give up" {
            self.execution
                .cancel(AbortReason::cancelled("the user left"));
            return Err(ToolError::new("stopped"));
        }
        Ok(Answer {
            echo: query.clone(),
            text: query,
        })
    }
}

static ECHO: ToolDescriptor = ToolDescriptor::new(
    "echo-tool",
    "Echoes its query",
    "Echo",
    SourceLocation {
        module_path: module_path!(),
        file: file!(),
        line: line!(),
    },
    tool_input_schema::<Echo>,
    tool_output_schema::<Echo>,
);

impl Tool for Echo {
    const DESCRIPTOR: &'static ToolDescriptor = &ECHO;

    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError> {
        Ok(Echo {
            execution: scope.execution().signal().clone(),
        })
    }
}

fn frame() -> CallFrame {
    CallFrame::new(
        Execution::builder("test").build(),
        Step::new("node", 1, "c1"),
    )
}

async fn invoke(arguments: &str) -> String {
    Invoker::<Echo>::new(ToolEnv::default())
        .invoke(arguments, &frame())
        .await
        .content
}

#[tokio::test]
async fn blank_arguments_are_an_empty_object() {
    assert_eq!(
        invoke(" \n\t").await,
        "Tool error: invalid input: query: is required"
    );
}

#[tokio::test]
async fn parse_errors_count_in_the_text_as_sent() {
    assert_eq!(
        invoke("  {").await,
        "Tool error: invalid input: malformed JSON: EOF while parsing an object at line 1 column 3"
    );
}

#[tokio::test]
async fn what_the_schema_accepts_and_serde_refuses_is_invalid_input() {
    // Each member matches the schema; serde refuses the second `query`.
    assert_eq!(
        invoke(r#"{"query": "a", "query": "b"}"#).await,
        "Tool error: invalid input: duplicate field `query` at line 1 column 22"
    );
}

#[tokio::test]
async fn an_output_without_a_json_form_is_invalid_output_with_its_path() {
    let outcome = Invoker::<Echo>::new(ToolEnv::default())
        .invoke(r#"{"query": "unwritable"}"#, &frame())
        .await;
    assert_eq!(
        outcome.content,
        "Tool error: invalid output: text: has no JSON form"
    );
    assert!(matches!(
        outcome.failure,
        Some(ToolFailure::InvalidOutput(_))
    ));
}

#[tokio::test]
async fn a_panic_while_the_output_is_written_is_the_tool_s_panic() {
    // The output is written as the run returns it, inside the same guard as `run`.
    let outcome = Invoker::<Echo>::new(ToolEnv::default())
        .invoke(r#"{"query": "explosive"}"#, &frame())
        .await;
    assert_eq!(
        outcome.content,
        "Tool error: the tool panicked: the writer blew up"
    );
    assert!(matches!(outcome.failure, Some(ToolFailure::Panicked(_))));
}

#[tokio::test]
async fn a_tool_that_gives_up_on_a_cancelled_execution_reports_the_cancellation() {
    let outcome = Invoker::<Echo>::new(ToolEnv::default())
        .invoke(r#"{"query": "give up"}"#, &frame())
        .await;
    assert_eq!(outcome.content, "Tool error: the user left");
    assert!(matches!(outcome.failure, Some(ToolFailure::Aborted(_))));
}

#[tokio::test]
async fn a_typed_f32_is_checked_as_the_number_the_model_reads() {
    // 1.1f32 is 1.100000023841858 as an f64, over the maximum; its JSON text is 1.1.
    let invoker = Invoker::<Echo>::new(ToolEnv::default());
    assert_eq!(
        invoke(r#"{"query": "a", "weight": 1.1}"#).await,
        r#"{"echo":"a","text":"a"}"#
    );
    let input = Query {
        query: "a".into(),
        weight: 1.1,
    };
    let output = invoker.call(input, &frame()).await.unwrap();
    assert_eq!(output.echo, "a");
}

#[tokio::test]
async fn invoke_value_is_the_output_as_a_value() {
    let value = Invoker::<Echo>::new(ToolEnv::default())
        .invoke_value(r#"{"query": "a"}"#, &frame())
        .await
        .unwrap();
    assert_eq!(value, serde_json::json!({"echo": "a", "text": "a"}));
}

#[test]
fn a_tool_without_its_own_bound_is_bounded_to_128_kb() {
    let invoker = Invoker::<Echo>::new(ToolEnv::default());
    assert_eq!(invoker.bound(), kilobytes(128));
    assert_eq!(invoker.core.timeout, ToolDescriptor::DEFAULT_TIMEOUT);
    assert_eq!(invoker.core.timeout.to_string(), "30 s");
}
