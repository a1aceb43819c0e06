//! A request that forces a tool choice and gets a 500: tried once more (not as often as the
//! policy allows), then an error that names the setting to change and what works instead
//! (docs/decisions/0008). Against the replay server playing llama-cpp-python 0.3.36 serving
//! Gemma 3 270M, which fails every `tool_choice: "required"` with an empty message and takes a
//! named tool.

use super::*;
use agboss::config::Config;
use agboss::model::ToolChoiceFailure;
use agboss::prelude::*;
use agboss::{Application, Workflow};
use wire_server::{Flavour, Quirk};

/// The tool every request here offers.
fn lookup_tool() -> ToolDefinition {
    ToolDefinition {
        name: "lookup-customer-tool".into(),
        description: "Looks a customer up".into(),
        input_schema: json!({"type": "object", "properties": {}}),
    }
}

/// `spec`'s question, with the lookup tool and `choice`.
fn forcing(spec: Spec, choice: ToolChoice) -> ChatRequest {
    ChatRequest {
        tools: vec![lookup_tool()],
        tool_choice: choice,
        ..spec.question()
    }
}

/// The replay server playing llama-cpp-python 0.3.36 serving Gemma 3 270M.
async fn gemma_on_llama_cpp_python(responses: Vec<Canned>) -> WireServer {
    WireServer::start_with(
        Flavour::LlamaCppPython,
        &[Quirk::FailsRequiredToolChoice],
        responses,
    )
    .await
}

#[test]
fn required_that_the_server_fails_is_tried_twice_then_names_the_setting() {
    run(async {
        let manual = ManualClock::new();
        let server = gemma_on_llama_cpp_python(vec![OPENAI.canned(200, "text")]).await;
        let model = OPENAI.connect(&server, &manual);
        let call = spawn_chat(model, forcing(OPENAI, ToolChoice::Required), Signal::new());
        // One wait (the policy's first, 1 s), where the policy would allow two more.
        expect_wait(&manual, Duration::from_secs(1), OPENAI).await;
        let error = call.await.unwrap().unwrap_err();
        let url = server.requests()[0].url.clone();
        assert_eq!(
            error,
            ModelError::ToolChoiceFailed(Box::new(ToolChoiceFailure {
                provider: "openai".into(),
                status: 500,
                attempts: 2,
                choice: ToolChoice::Required,
                message: String::new(),
                tool: Some("lookup-customer-tool".into()),
                url: url.clone(),
            }))
        );
        assert_eq!(
            error.to_string(),
            format!(
                "openai failed (500) after 2 attempts on a request that forced the tool choice \"required\", with an empty message: this server may not take a forced choice in that form. Set the agent's first_turn_tool_choice (or tool_choice, whichever forced it) to one of its tools' names, such as \"lookup-customer-tool\", or to \"auto\" (POST {url})"
            )
        );
        assert_eq!(error.code(), "model.tool-choice");
        assert_eq!(server.requests().len(), 2);
        assert_eq!(server.responses_left(), 1, "no attempt got an answer");
    });
}

#[test]
fn the_same_server_takes_a_named_tool() {
    run(async {
        let server = gemma_on_llama_cpp_python(vec![OPENAI.canned(200, "text")]).await;
        let model = OPENAI.connect(&server, &ManualClock::new());
        let named = forcing(OPENAI, ToolChoice::Tool("lookup-customer-tool".into()));
        assert!(model.chat(&named, &Signal::new()).await.is_ok());
        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(
            requests[0].body["tool_choice"],
            json!({"type": "function", "function": {"name": "lookup-customer-tool"}})
        );
    });
}

/// Every provider: a 500 to a forced choice is tried twice, whatever the policy allows, and the
/// error quotes the provider's message; a named tool's error proposes `required` or `auto`.
#[test]
fn every_provider_tries_a_forced_choice_that_fails_twice() {
    run(async {
        for spec in [OPENAI, ANTHROPIC, GEMINI] {
            let manual = ManualClock::new();
            let server = WireServer::start(vec![spec.canned(500, "error_500"); 3]).await;
            let model = spec.connect(&server, &manual);
            let named = ToolChoice::Tool("lookup-customer-tool".into());
            let call = spawn_chat(model, forcing(spec, named.clone()), Signal::new());
            expect_wait(&manual, Duration::from_secs(1), spec).await;
            let error = call.await.unwrap().unwrap_err();
            let ModelError::ToolChoiceFailed(failure) = &error else {
                panic!("{}: {error:?}", spec.name);
            };
            assert_eq!(
                (failure.attempts, &failure.choice, failure.message.as_str()),
                (2, &named, spec.server_error),
                "{}",
                spec.name
            );
            let text = error.to_string();
            assert!(
                text.contains(&format!(
                    "the tool choice \"lookup-customer-tool\", saying {:?}",
                    spec.server_error
                )) && text.contains("whichever forced it) to \"required\" or \"auto\" (POST"),
                "{text}"
            );
            assert_eq!(server.requests().len(), 2, "{}", spec.name);
        }
    });
}

#[test]
fn a_forced_choice_that_fails_once_passes_on_its_retry() {
    run(async {
        let manual = ManualClock::new();
        let server =
            WireServer::start([OPENAI.canned(500, "error_500"), OPENAI.canned(200, "text")]).await;
        let model = OPENAI.connect(&server, &manual);
        let call = spawn_chat(model, forcing(OPENAI, ToolChoice::Required), Signal::new());
        expect_wait(&manual, Duration::from_secs(1), OPENAI).await;
        assert!(call.await.unwrap().is_ok());
        assert_eq!(server.requests().len(), 2);
    });
}

/// A gateway's 503 is not the server failing the choice: retried as the policy says.
#[test]
fn other_server_errors_to_a_forced_choice_keep_the_policys_retries() {
    run(async {
        let manual = ManualClock::new();
        let unavailable = Canned::json(503, r#"{"error": {"message": "loading model"}}"#);
        let server = WireServer::start(vec![unavailable; 3]).await;
        let model = OPENAI.connect(&server, &manual);
        let call = spawn_chat(model, forcing(OPENAI, ToolChoice::Required), Signal::new());
        for wait in [1, 2] {
            expect_wait(&manual, Duration::from_secs(wait), OPENAI).await;
        }
        let error = call.await.unwrap().unwrap_err();
        assert!(
            matches!(
                error,
                ModelError::Server {
                    status: 503,
                    attempts: 3,
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(error.code(), "model");
    });
}

/// Whom to find.
#[dto]
pub struct Whom {
    /// The customer's id.
    pub id: String,
}

/// Looks customers up.
#[tool(name = "find-customer-tool", read_only = true)]
pub struct FindCustomer;

impl ToolHandler for FindCustomer {
    type Input = Whom;
    type Output = PlainText;

    async fn run(&self, input: Whom) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("Ada ({})", input.id)))
    }
}

/// Finds customers.
#[agent(
    name = "finder",
    prompt = "../prompts/lookup.prompt.md",
    model = "local/gemma-3-270m",
    tools = [FindCustomer],
)]
pub struct Finder;

/// The whole path: the agent's first turn forced with `required`, the server failing it; the
/// run fails with `model.tool-choice`, which its journal keeps.
#[test]
fn a_run_whose_forced_first_turn_the_server_fails_ends_with_its_own_code() {
    run(async {
        let server = gemma_on_llama_cpp_python(Vec::new()).await;
        let config = Config::from_toml(
            "gemma.toml",
            &format!(
                "[models.local]\nkind = \"openai\"\nbase_url = \"{}/v1\"\nvendors = [\"local\"]\n\n[agents.finder]\nfirst_turn_tool_choice = \"required\"\n",
                server.base_url()
            ),
        );
        let app = Application::builder("gemma")
            .workflow(Workflow::new("desk").agent::<Finder>())
            .config(config)
            .build()
            .unwrap();
        let error = app.run("desk", "Who is C-17?").await.unwrap_err();
        assert_eq!(error.code(), "model.tool-choice");
        let text = error.to_string();
        assert!(
            text.contains("first_turn_tool_choice (or tool_choice, whichever forced it) to one of its tools' names, such as \"find-customer-tool\", or to \"auto\""),
            "{text}"
        );
        assert_eq!(server.requests().len(), 2);
    });
}
