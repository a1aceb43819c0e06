//! A tool's own model calls are charged to the tool, and count in the execution's budget.

use std::sync::Arc;

use agboss::model::{
    ChatRequest, ModelClient, ModelRouter, Prices, ScriptedModel, ToolChoice, Turn,
};
use agboss::prelude::*;
use agboss::spend::Budgets;
use agboss::units::usd;
use agboss::{Application, Workflow};
use fixtures::run::completed;
use serde_json::json;

#[dto]
pub struct Text {
    /// The text.
    pub text: String,
}

/// Summarizes with a model of its own: its spend is the tool's.
#[tool(
    name = "summarize-tool",
    description = "Summarizes a text with a small model"
)]
pub struct Summarize {
    models: ModelClient,
}

impl ToolHandler for Summarize {
    type Input = Text;
    type Output = Text;

    async fn run(&self, input: Text) -> Result<Text, ToolError> {
        let request = ChatRequest {
            model: String::new(),
            system: "Summarize.".into(),
            messages: vec![agboss::model::Message::user(input.text)],
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            thinking: Default::default(),
            max_output_tokens: Some(100),
        };
        let answer = self.models.chat("openai/gpt-5-nano", request).await?;
        Ok(Text {
            text: answer.text.unwrap_or_default(),
        })
    }
}

#[agent(
    name = "speaker",
    description = "Speaks",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Summarize],
)]
pub struct Speaker;

fn app(model: ScriptedModel) -> Application {
    let router = ModelRouter::new()
        .route("*", "scripted", Arc::new(model), false)
        .price(
            "openai/gpt-5-mini",
            Prices {
                input_per_million: usd("1"),
                output_per_million: usd("1"),
            },
        )
        .price(
            "openai/gpt-5-nano",
            Prices {
                input_per_million: usd("100"),
                output_per_million: usd("100"),
            },
        );
    Application::builder("observed")
        .workflow(Workflow::new("desk").agent::<Speaker>())
        .router(router)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tools_model_calls_are_the_tools_spend_and_count_in_the_budget() {
    // In the order the model is asked: the agent's first turn, the tool's own call, the agent's
    // answer.
    let model = ScriptedModel::new([
        Turn::call("summarize-tool", json!({"text": "a long text"})).usage(1_000, 10),
        Turn::text("Short.").usage(2_000, 1_000),
        Turn::text("A summary.").usage(10, 0),
    ]);
    let outcome = completed(
        app(model)
            .run("desk", "summarize")
            .budgets(Budgets::none().usd(usd("1"))),
    )
    .await;
    // 1,020 agent tokens at $1 per million, 3,000 tool tokens at $100 per million.
    assert_eq!(outcome.spend, usd("0.00102") + usd("0.3"));
    let tool_entry = outcome
        .spent
        .iter()
        .find(|e| e.service == "openai/gpt-5-nano")
        .expect("the tool's model call is in the ledger");
    assert_eq!(tool_entry.tool, Some("summarize-tool"));
    assert_eq!(tool_entry.cost, usd("0.3"));

    // The same spend stops a run whose budget it exhausts before the next model call.
    let model = ScriptedModel::new([
        Turn::call("summarize-tool", json!({"text": "a long text"})),
        Turn::text("Short.").usage(2_000, 1_000),
        Turn::text("never asked"),
    ]);
    let error = app(model)
        .run("desk", "summarize")
        .budgets(Budgets::none().usd(usd("0.25")))
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "BudgetExceededError: budget `usd` is spent: $0.30 of $0.25"
    );
}
