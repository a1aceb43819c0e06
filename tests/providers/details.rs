//! The thinking levels each provider maps, the forms of `Retry-After`, a retry the timeout
//! leaves no time for, a key echoed back, Gemini's own refusals, and servers without keys.

use super::*;

/// The body of each request sent with thinking default, off, low, medium and high.
async fn bodies_per_thinking(spec: Spec) -> Vec<Value> {
    let levels = [
        Thinking::Default,
        Thinking::Off,
        Thinking::Low,
        Thinking::Medium,
        Thinking::High,
    ];
    let requests: Vec<ChatRequest> = levels
        .into_iter()
        .map(|thinking| ChatRequest {
            thinking,
            ..spec.question()
        })
        .collect();
    bodies(spec, &requests).await
}

#[test]
fn openai_maps_thinking_to_reasoning_effort() {
    run(async {
        let bodies = bodies_per_thinking(OPENAI).await;
        let efforts: Vec<Option<&Value>> =
            bodies.iter().map(|b| b.get("reasoning_effort")).collect();
        assert_eq!(
            efforts,
            [
                None,
                None,
                Some(&json!("low")),
                Some(&json!("medium")),
                Some(&json!("high"))
            ]
        );
        assert_eq!(bodies[0].get("max_completion_tokens"), None);
    });
}

#[test]
fn anthropic_maps_thinking_to_a_budget_within_max_tokens() {
    run(async {
        let bodies = bodies_per_thinking(ANTHROPIC).await;
        let thinking: Vec<Option<&Value>> = bodies.iter().map(|b| b.get("thinking")).collect();
        assert_eq!(
            thinking,
            [
                None,
                None,
                Some(&json!({"type": "enabled", "budget_tokens": 1024})),
                Some(&json!({"type": "enabled", "budget_tokens": 4096})),
                Some(&json!({"type": "enabled", "budget_tokens": 16000})),
            ]
        );
        // The answer keeps its default 4,096 tokens on top of the budget.
        let max_tokens: Vec<&Value> = bodies.iter().map(|b| &b["max_tokens"]).collect();
        assert_eq!(
            max_tokens,
            [
                &json!(4096),
                &json!(4096),
                &json!(5120),
                &json!(8192),
                &json!(20096)
            ]
        );
    });
}

#[test]
fn gemini_maps_thinking_to_a_budget() {
    run(async {
        let bodies = bodies_per_thinking(GEMINI).await;
        let budgets: Vec<Option<&Value>> = bodies
            .iter()
            .map(|b| b.pointer("/generationConfig/thinkingConfig/thinkingBudget"))
            .collect();
        assert_eq!(
            budgets,
            [
                None,
                Some(&json!(0)),
                Some(&json!(1024)),
                Some(&json!(4096)),
                Some(&json!(16000))
            ]
        );
        assert_eq!(bodies[0].get("generationConfig"), None);
    });
}

#[test]
fn a_date_in_retry_after_is_a_time_on_the_clock() {
    run(async {
        // The manual clock's wall time starts at 2026-01-01T00:00:00Z.
        let manual = ManualClock::new();
        let date = "Thu, 01 Jan 2026 00:00:20 GMT";
        let (server, call) = chatting(OPENAI, OPENAI.rate_limited(date), &manual).await;
        expect_wait(&manual, Duration::from_secs(20), OPENAI).await;
        assert!(call.await.unwrap().is_ok());
        assert_eq!(server.requests().len(), 2);
    });
}

#[test]
fn retry_after_is_capped_at_the_longest_wait() {
    run(async {
        let manual = ManualClock::new();
        let (_server, call) = chatting(ANTHROPIC, ANTHROPIC.rate_limited("3600"), &manual).await;
        expect_wait(&manual, Duration::from_secs(60), ANTHROPIC).await;
        assert!(call.await.unwrap().is_ok());
    });
}

#[test]
fn a_retry_that_would_outlast_the_timeout_is_not_waited_for() {
    run(async {
        let manual = ManualClock::new();
        let server = WireServer::start([
            OPENAI.canned(503, "error_500").header("retry-after", "45"),
            OPENAI.canned(200, "text"),
        ])
        .await;
        let mut settings = OPENAI.settings(&server.base_url());
        settings.request_timeout = seconds(30);
        let model = connect(settings, &OPENAI.env(), Clock::from(&manual));
        let error = without_waiting(&manual, model.chat(&OPENAI.question(), &Signal::new()))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            ModelError::Server {
                provider: "openai".into(),
                status: 503,
                attempts: 1,
                message: OPENAI.server_error.into(),
                url: server.requests()[0].url.clone(),
            }
        );
        assert_eq!(server.requests().len(), 1);
    });
}

#[test]
fn an_echoed_key_is_redacted_from_the_providers_message() {
    run(async {
        let body = json!({"error": {"message": format!("the key {KEY} may not use this model")}});
        let (result, requests) = ask(OPENAI, vec![Canned::json(404, body.to_string())]).await;
        let error = result.unwrap_err();
        assert_eq!(
            error,
            ModelError::BadRequest {
                provider: "openai".into(),
                status: 404,
                message: "the key [redacted] may not use this model".into(),
                url: requests[0].url.clone(),
            }
        );
        assert!(!format!("{error} {error:?}").contains(KEY));
    });
}

#[test]
fn gemini_reports_a_key_it_does_not_know_as_unauthorized() {
    run(async {
        let (result, requests) = ask(GEMINI, vec![GEMINI.canned(400, "error_400_key")]).await;
        assert_eq!(
            result.unwrap_err(),
            ModelError::Unauthorized {
                provider: "google".into(),
                status: 400,
                key_env: "GEMINI_API_KEY".into(),
                url: requests[0].url.clone(),
            }
        );
    });
}

#[test]
fn gemini_reports_a_blocked_prompt_with_its_reason() {
    run(async {
        let (result, _) = ask(GEMINI, vec![GEMINI.canned(200, "blocked")]).await;
        match result.unwrap_err() {
            ModelError::BadRequest { message, .. } => {
                assert!(
                    message.contains("the prompt was blocked (SAFETY)"),
                    "{message}"
                );
            }
            other => panic!("expected BadRequest, got {other:?}"),
        }
    });
}

#[test]
fn a_server_without_a_key_gets_no_auth_header() {
    run(async {
        let server = WireServer::start([OPENAI.canned(200, "text")]).await;
        let settings = ProviderSettings::new("local", WireFormat::OpenAi, &server.base_url(), None);
        let model = model_of(settings, &Env::from_pairs::<&str, &str>([]));
        asked(OPENAI, &*model).await.unwrap();
        assert_eq!(server.requests()[0].header("authorization"), None);
    });
}

/// Anthropic's base URL works with or without its `/v1` (and a trailing `/`): the request goes
/// to `<root>/v1/messages` each time.
#[test]
fn anthropic_takes_its_base_url_with_or_without_v1() {
    run(async {
        let server = WireServer::start(vec![ANTHROPIC.canned(200, "text"); 3]).await;
        let root = server.base_url();
        for base_url in [root.clone(), format!("{root}/v1"), format!("{root}/v1/")] {
            let model = model_of(ANTHROPIC.settings(&base_url), &ANTHROPIC.env());
            asked(ANTHROPIC, &*model)
                .await
                .unwrap_or_else(|e| panic!("{base_url}: {e}"));
        }
        let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
        assert_eq!(paths, ["/v1/messages"; 3]);
    });
}

/// A 404 says where the request went, so a wrong base URL shows in the error itself.
#[test]
fn a_not_found_names_the_url_it_tried() {
    run(async {
        let not_found = Canned::bytes(404, "Not Found").header("content-type", "text/plain");
        let (result, requests) = ask(ANTHROPIC, vec![not_found]).await;
        let error = result.unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "anthropic refused the request (404): Not Found: check base_url and the model's name (POST {})",
                requests[0].url
            )
        );
        assert!(requests[0].url.ends_with("/v1/messages"));
    });
}

/// llama-cpp-python answers a request its validation refuses with a 500 listing every problem:
/// the error says the first, on one line, and the request is not retried, since it would fail
/// the same way every time.
#[test]
fn a_server_error_that_says_the_request_is_invalid_is_not_retried() {
    run(async {
        let invalid = OPENAI.canned(500, "error_500_validation");
        let (result, requests) = ask(OPENAI, vec![invalid, OPENAI.canned(200, "text")]).await;
        let error = result.unwrap_err();
        let url = requests[0].url.clone();
        assert_eq!(
            error,
            ModelError::BadRequest {
                provider: "openai".into(),
                status: 500,
                message: "messages.2.content: Input should be a valid string, and 1 more problem"
                    .into(),
                url: url.clone(),
            }
        );
        assert_eq!(
            error.to_string(),
            format!(
                "openai refused the request (500): messages.2.content: Input should be a valid string, and 1 more problem (POST {url})"
            )
        );
        assert_eq!(requests.len(), 1, "not retried");
    });
}

/// The same, from the strict replay server playing llama-cpp-python: a request it refuses (here
/// a forced tool that is not among the tools) fails at once with its first problem.
#[test]
fn a_request_llama_cpp_python_refuses_fails_at_once_with_its_first_problem() {
    run(async {
        let server = wire_server::WireServer::start_as(
            wire_server::Flavour::LlamaCppPython,
            [OPENAI.canned(200, "text")],
        )
        .await;
        let model = OPENAI.connect(&server, &ManualClock::new());
        let request = ChatRequest {
            tool_choice: ToolChoice::Tool("no-such-tool".into()),
            tools: vec![ToolDefinition {
                name: "lookup-customer-tool".into(),
                description: "Looks a customer up".into(),
                input_schema: json!({"type": "object"}),
            }],
            ..OPENAI.question()
        };
        let error = model.chat(&request, &Signal::new()).await.unwrap_err();
        let requests = server.requests();
        assert_eq!(
            error.to_string(),
            format!(
                "openai refused the request (500): tool_choice: the function `no-such-tool` is not one of the tools (POST {})",
                requests[0].url
            )
        );
        assert_eq!(requests.len(), 1);
        assert_eq!(
            server.responses_left(),
            1,
            "a refused request takes no canned answer"
        );
    });
}
