//! The whole path, for each wire format: configuration routes the agent's model to a provider,
//! the provider talks HTTP to a local server replaying the API, the loop runs the tool the
//! model asked for and sends its result back in the API's form.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agboss::app::Env;
use agboss::config::Config;
use agboss::prelude::*;
use agboss::units::usd;
use agboss::{Application, Workflow};
use fixtures::run::completed;
use serde_json::Value;
use wire_server::{Canned, Flavour, WireServer, fixture};

#[dto]
pub struct CustomerId {
    /// The customer's id.
    pub id: String,
}

#[dto]
pub struct Customer {
    /// The customer's name.
    pub name: String,
}

#[tool(
    name = "lookup-customer-tool",
    description = "Looks a customer up",
    read_only = true
)]
pub struct LookupCustomer {
    calls: Arc<AtomicUsize>,
}

impl ToolHandler for LookupCustomer {
    type Input = CustomerId;
    type Output = Customer;

    async fn run(&self, input: CustomerId) -> Result<Customer, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(Customer {
            name: format!("Ada ({})", input.id),
        })
    }
}

#[agent(
    name = "lookup",
    description = "Looks customers up",
    prompt = "prompts/lookup.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [LookupCustomer],
)]
pub struct Lookup;

/// Runs the lookup agent against a server replaying `provider`'s tool call, then its text.
async fn run_against(
    provider: &str,
    kind: &str,
) -> (agboss::run::Completed, Vec<wire_server::Recorded>, usize) {
    let server = WireServer::start([
        Canned::json(200, fixture(provider, "tool_call")),
        Canned::json(200, fixture(provider, "text")),
    ])
    .await;
    let config = Config::from_toml(
        "wire.toml",
        &format!(
            r#"
            [agents.lookup]
            model = "wire/test-model"

            [models.wire]
            kind = "{kind}"
            base_url = "{}"
            api_key_env = "WIRE_KEY"

            [models.wire.prices."test-model"]
            input = "1.00"
            output = "10.00"
            "#,
            server.base_url()
        ),
    );
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Application::builder("wire")
        .workflow(Workflow::new("desk").agent::<Lookup>())
        .provide(calls.clone())
        .config(config)
        .env(Env::from_pairs([("WIRE_KEY", "test-key")]))
        .build()
        .unwrap();
    let outcome = completed(app.run("desk", "Who is C-17?")).await;
    (outcome, server.requests(), calls.load(Ordering::SeqCst))
}

fn assert_priced(outcome: &agboss::run::Completed) {
    // $1 per million input tokens, $10 per million output tokens.
    let u = outcome.usage;
    let expected = usd("0.000001").saturating_mul(u.input_tokens)
        + usd("0.00001").saturating_mul(u.output_tokens);
    assert!(u.input_tokens >= 80, "{u:?}");
    assert_eq!(outcome.spend, expected);
}

#[tokio::test]
async fn openai_compatible() {
    let (outcome, requests, calls) = run_against("openai", "openai").await;
    assert_eq!(calls, 1);
    assert_eq!(requests.len(), 2);
    assert!(outcome.text().is_some_and(|t| !t.is_empty()));
    assert_priced(&outcome);
    let second = &requests[1].body;
    assert_eq!(second["model"], "test-model");
    let messages = second["messages"].as_array().unwrap();
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(result["tool_call_id"], "call_Xk3fA1pQ");
    assert_eq!(result["content"], r#"{"name":"Ada (C-17)"}"#);
    assert_eq!(requests[0].header("authorization"), Some("Bearer test-key"));
}

#[tokio::test]
async fn anthropic() {
    let (outcome, requests, calls) = run_against("anthropic", "anthropic").await;
    assert_eq!(calls, 1);
    assert!(outcome.text().is_some_and(|t| !t.is_empty()));
    assert_priced(&outcome);
    let second = &requests[1].body;
    let last = second["messages"].as_array().unwrap().last().unwrap();
    assert_eq!(last["role"], "user");
    let block = &last["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_01A09q90qw90lq917835lq9");
    assert_eq!(second["system"], "You look customers up.");
}

#[tokio::test]
async fn gemini() {
    let (outcome, requests, calls) = run_against("gemini", "gemini").await;
    assert_eq!(calls, 1);
    assert!(outcome.text().is_some_and(|t| !t.is_empty()));
    assert_priced(&outcome);
    assert!(
        requests[1]
            .path
            .ends_with("/models/test-model:generateContent"),
        "{}",
        requests[1].path
    );
    let second = &requests[1].body;
    let last = second["contents"].as_array().unwrap().last().unwrap();
    let response = &last["parts"][0]["functionResponse"];
    assert_eq!(response["name"], "lookup-customer-tool");
    assert_eq!(
        response["response"]["name"],
        Value::String("Ada (C-17)".into())
    );
}

/// With no more configuration than each API's address (here a local server), a model id goes
/// by its vendor: `openai/`, `anthropic/` and `google/` to their own APIs without the vendor,
/// any other vendor to OpenRouter with the id whole, each with its own key variable.
#[tokio::test]
async fn model_ids_route_by_vendor() {
    // The id, the `[models.*]` section moved to the local server, the key's variable, the
    // wire format, and the model name and key header that server must get.
    let routes = [
        (
            "openai/gpt-5-mini",
            "openai",
            "OPENAI_API_KEY",
            "openai",
            "gpt-5-mini",
            ("authorization", "Bearer the-key"),
        ),
        (
            "anthropic/claude-sonnet-4-5",
            "anthropic",
            "ANTHROPIC_API_KEY",
            "anthropic",
            "claude-sonnet-4-5",
            ("x-api-key", "the-key"),
        ),
        (
            "google/gemini-2.5-flash",
            "google",
            "GEMINI_API_KEY",
            "gemini",
            "gemini-2.5-flash",
            ("x-goog-api-key", "the-key"),
        ),
        (
            "moonshotai/kimi-k2.6",
            "openrouter",
            "OPENROUTER_API_KEY",
            "openai",
            "moonshotai/kimi-k2.6",
            ("authorization", "Bearer the-key"),
        ),
    ];
    for (model, section, key_env, wire, sent, (header, key)) in routes {
        let server = WireServer::start([Canned::json(200, fixture(wire, "text"))]).await;
        let config = Config::from_toml(
            "routes.toml",
            &format!(
                "[agents.lookup]\nmodel = {model:?}\n[models.{section}]\nbase_url = {:?}\n",
                server.base_url()
            ),
        );
        let app = Application::builder("routes")
            .workflow(Workflow::new("desk").agent::<Lookup>())
            .provide(Arc::new(AtomicUsize::new(0)))
            .config(config)
            .env(Env::from_pairs([(key_env, "the-key")]))
            .build()
            .unwrap();
        app.run("desk", "Who is C-17?").await.unwrap();
        let request = &server.requests()[0];
        let name = match wire {
            "gemini" => request
                .path
                .strip_prefix("/models/")
                .and_then(|p| p.strip_suffix(":generateContent"))
                .map(str::to_owned),
            _ => request.body["model"].as_str().map(str::to_owned),
        };
        assert_eq!(name.as_deref(), Some(sent), "{model}");
        assert_eq!(request.header(header), Some(key), "{model}");
    }
}

/// llama-cpp-python's server (0.3.x) types an assistant message's `content` as a string and
/// answers `null` with a 500. A model that calls a tool without writing text must still get its
/// result back and answer.
#[tokio::test]
async fn a_tool_loop_finishes_against_a_server_that_refuses_null_content() {
    let server = WireServer::start_as(
        Flavour::LlamaCppPython,
        [
            Canned::json(200, fixture("openai", "tool_call_without_text")),
            Canned::json(200, fixture("openai", "text")),
        ],
    )
    .await;
    let config = Config::from_toml(
        "local.toml",
        &format!(
            "[agents.lookup]\nmodel = \"local/qwen2.5\"\n[models.local]\nkind = \"openai\"\nbase_url = {:?}\nvendors = [\"local\"]\n",
            server.base_url()
        ),
    );
    let calls = Arc::new(AtomicUsize::new(0));
    let app = Application::builder("local")
        .workflow(Workflow::new("desk").agent::<Lookup>())
        .provide(calls.clone())
        .config(config)
        .build()
        .unwrap();
    let outcome = app.run("desk", "Who is C-17?").await.unwrap();
    assert_eq!(outcome.text(), Some("The order C-17 shipped on Monday."));
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(request.problems, Vec::<String>::new());
    }
    let assistant = &requests[1].body["messages"][2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(assistant["content"], "", "a string, never null");
    assert_eq!(
        assistant["tool_calls"][0]["id"],
        "call__0_lookup-customer-tool_cmpl-5d2a6c1e"
    );
}
