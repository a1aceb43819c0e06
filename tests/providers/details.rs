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
    sent(spec, &requests)
        .await
        .into_iter()
        .map(|r| r.body)
        .collect()
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
        let server = WireServer::start([
            OPENAI
                .canned(429, "error_429")
                .header("retry-after", "Thu, 01 Jan 2026 00:00:20 GMT"),
            OPENAI.canned(200, "text"),
        ])
        .await;
        let call = spawn_chat(
            OPENAI.connect(&server, &manual),
            OPENAI.question(),
            Signal::new(),
        );
        expect_wait(&manual, Duration::from_secs(20), OPENAI).await;
        assert!(call.await.unwrap().is_ok());
        assert_eq!(server.requests().len(), 2);
    });
}

#[test]
fn retry_after_is_capped_at_the_longest_wait() {
    run(async {
        let manual = ManualClock::new();
        let server = WireServer::start([
            ANTHROPIC
                .canned(429, "error_429")
                .header("retry-after", "3600"),
            ANTHROPIC.canned(200, "text"),
        ])
        .await;
        let call = spawn_chat(
            ANTHROPIC.connect(&server, &manual),
            ANTHROPIC.question(),
            Signal::new(),
        );
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
            }
        );
        assert_eq!(server.requests().len(), 1);
    });
}

#[test]
fn an_echoed_key_is_redacted_from_the_providers_message() {
    run(async {
        let body = json!({"error": {"message": format!("the key {KEY} may not use this model")}});
        let (result, _) = ask(OPENAI, vec![Canned::json(404, body.to_string())]).await;
        let error = result.unwrap_err();
        assert_eq!(
            error,
            ModelError::BadRequest {
                provider: "openai".into(),
                status: 404,
                message: "the key [redacted] may not use this model".into(),
            }
        );
        assert!(!format!("{error} {error:?}").contains(KEY));
    });
}

#[test]
fn gemini_reports_a_key_it_does_not_know_as_unauthorized() {
    run(async {
        let (result, _) = ask(GEMINI, vec![GEMINI.canned(400, "error_400_key")]).await;
        assert_eq!(
            result.unwrap_err(),
            ModelError::Unauthorized {
                provider: "google".into(),
                status: 400,
                key_env: "GEMINI_API_KEY".into(),
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
        let model = connect(
            settings,
            &Env::from_pairs::<&str, &str>([]),
            Clock::from(ManualClock::new()),
        );
        model
            .chat(&OPENAI.question(), &Signal::new())
            .await
            .unwrap();
        assert_eq!(server.requests()[0].header("authorization"), None);
    });
}
