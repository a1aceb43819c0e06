//! What every provider does the same way, run once per provider: answers (text, one tool call,
//! parallel calls, usage), retries and their waits, each failure's error, the timeout on the
//! clock, cancellation and a refused connection.

use super::*;

each_provider!(
    answers_text_with_its_usage,
    answers_one_tool_call,
    keeps_parallel_tool_calls_in_order_with_their_ids,
    honours_retry_after_then_succeeds,
    reports_rate_limiting_after_every_attempt,
    backs_off_exponentially_on_server_errors_then_reports_them,
    names_the_variable_when_the_key_is_refused,
    quotes_the_providers_message_on_a_bad_request,
    reports_a_cut_off_body_as_malformed,
    reports_a_missing_key_before_any_request,
    times_out_on_the_clock,
    stops_when_the_signal_fires,
    reports_a_refused_connection_as_transport,
);

fn answers_text_with_its_usage(spec: Spec) {
    run(async {
        let (result, requests) = ask(spec, vec![spec.canned(200, "text")]).await;
        let response = result.unwrap();
        assert_eq!(
            response.text.as_deref(),
            Some("The order C-17 shipped on Monday.")
        );
        assert!(response.tool_calls.is_empty());
        assert_eq!(response.finish, FinishReason::Stop);
        // Gemini's thinking tokens (3 of the 9) count as output.
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 42,
                output_tokens: 9
            }
        );
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].method, "POST");
        assert_eq!(requests[0].path, spec.path);
        assert_eq!(spec.key_sent(&requests[0]), Some(KEY));
        assert_eq!(requests[0].header("content-type"), Some("application/json"));
    });
}

fn answers_one_tool_call(spec: Spec) {
    run(async {
        let (result, _) = ask(spec, vec![spec.canned(200, "tool_call")]).await;
        let response = result.unwrap();
        assert_eq!(response.text.as_deref(), Some("Let me look that up."));
        assert_eq!(
            response.tool_calls,
            [call(
                spec.ids[0],
                "lookup-customer-tool",
                r#"{"id":"C-17"}"#
            )]
        );
        assert_eq!(response.finish, FinishReason::ToolCalls);
    });
}

fn keeps_parallel_tool_calls_in_order_with_their_ids(spec: Spec) {
    run(async {
        let (result, _) = ask(spec, vec![spec.canned(200, "parallel_tool_calls")]).await;
        let response = result.unwrap();
        assert_eq!(response.text, None);
        assert_eq!(
            response.tool_calls,
            [
                call(spec.ids[0], "lookup-customer-tool", r#"{"id":"C-17"}"#),
                call(
                    spec.ids[1],
                    "list-orders-tool",
                    r#"{"customer":"C-17","limit":5}"#
                ),
            ]
        );
        assert_eq!(response.finish, FinishReason::ToolCalls);
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 120,
                output_tokens: 48
            }
        );
    });
}

fn honours_retry_after_then_succeeds(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let (server, call) = chatting(spec, spec.rate_limited("7"), &manual).await;
        // The call's timeout and the wait before its retry.
        manual.wait_for_timers(2).await;
        assert_eq!(server.requests().len(), 1);
        // The first backoff (1 s) is long over; the API asked for 7 s.
        manual.advance(Duration::from_secs(6));
        assert_eq!(
            manual.pending_timers(),
            2,
            "{}: retried too early",
            spec.name
        );
        assert_eq!(server.requests().len(), 1);
        manual.advance(Duration::from_secs(1));
        assert_eq!(manual.pending_timers(), 1);
        let response = call.await.unwrap().unwrap();
        assert_eq!(
            response.text.as_deref(),
            Some("The order C-17 shipped on Monday.")
        );
        let requests = server.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(
            requests[0].body, requests[1].body,
            "the retry sends the same request"
        );
        assert_eq!(spec.key_sent(&requests[1]), Some(KEY));
    });
}

fn reports_rate_limiting_after_every_attempt(spec: Spec) {
    run(async {
        let limited = || spec.canned(429, "error_429").header("retry-after", "0");
        let (result, requests) = ask(spec, vec![limited(), limited(), limited()]).await;
        assert_eq!(
            result.unwrap_err(),
            ModelError::RateLimited {
                provider: spec.name.into(),
                attempts: 3,
                url: requests[0].url.clone(),
            }
        );
        assert_eq!(requests.len(), 3);
    });
}

fn backs_off_exponentially_on_server_errors_then_reports_them(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let server = WireServer::start(vec![spec.canned(500, "error_500"); 4]).await;
        let mut settings = spec.settings(&server.base_url());
        settings.retry = RetryPolicy {
            max_attempts: 4,
            first_backoff: seconds(1),
            max_backoff: agboss::units::millis(1500),
        };
        let model = connect(settings, &spec.env(), Clock::from(&manual));
        let call = spawn_chat(model, spec.question(), Signal::new());
        // 1 s, then 2 s capped at 1.5 s, then 1.5 s.
        for wait in [1000, 1500, 1500] {
            expect_wait(&manual, Duration::from_millis(wait), spec).await;
        }
        assert_eq!(
            call.await.unwrap().unwrap_err(),
            ModelError::Server {
                provider: spec.name.into(),
                status: 500,
                attempts: 4,
                message: spec.server_error.into(),
                url: server.requests()[0].url.clone(),
            }
        );
        assert_eq!(server.requests().len(), 4);
    });
}

fn names_the_variable_when_the_key_is_refused(spec: Spec) {
    run(async {
        let (result, requests) = ask(spec, vec![spec.canned(401, "error_401")]).await;
        let error = result.unwrap_err();
        assert_eq!(
            error,
            ModelError::Unauthorized {
                provider: spec.name.into(),
                status: 401,
                key_env: spec.key_env.into(),
                url: requests[0].url.clone(),
            }
        );
        assert!(error.to_string().contains(spec.key_env));
        assert!(!format!("{error} {error:?}").contains(KEY));
        assert_eq!(requests.len(), 1, "a refused key is not retried");
    });
}

fn quotes_the_providers_message_on_a_bad_request(spec: Spec) {
    run(async {
        let (result, requests) = ask(spec, vec![spec.canned(400, "error_400")]).await;
        assert_eq!(
            result.unwrap_err(),
            ModelError::BadRequest {
                provider: spec.name.into(),
                status: 400,
                message: spec.bad_request.into(),
                url: requests[0].url.clone(),
            }
        );
        assert_eq!(requests.len(), 1, "a bad request is not retried");
    });
}

fn reports_a_cut_off_body_as_malformed(spec: Spec) {
    run(async {
        let body = spec.fixture("text");
        let (result, requests) =
            ask(spec, vec![Canned::truncated(200, &body, body.len() / 2)]).await;
        match result.unwrap_err() {
            ModelError::MalformedResponse {
                provider,
                detail,
                url,
            } => {
                assert_eq!(provider, spec.name);
                assert_eq!(url, requests[0].url);
                assert!(detail.contains("EOF while parsing"), "{detail}");
            }
            other => panic!("{}: expected MalformedResponse, got {other:?}", spec.name),
        }
    });
}

fn reports_a_missing_key_before_any_request(spec: Spec) {
    run(async {
        let server = WireServer::start([spec.canned(200, "text")]).await;
        let model = spec.connect_in(&server, &Env::from_pairs([("SOME_OTHER_KEY", KEY)]));
        let error = asked(spec, &*model).await.unwrap_err();
        assert_eq!(
            error,
            ModelError::MissingKey {
                provider: spec.name.into(),
                key_env: spec.key_env.into(),
            }
        );
        assert!(server.requests().is_empty());
    });
}

fn times_out_on_the_clock(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let server = WireServer::start([Canned::hang()]).await;
        let mut settings = spec.settings(&server.base_url());
        settings.request_timeout = seconds(30);
        let model = connect(settings, &spec.env(), Clock::from(&manual));
        let call = spawn_chat(model, spec.question(), Signal::new());
        server.wait_for_requests(1).await;
        manual.wait_for_timers(1).await;
        manual.advance(Duration::from_secs(29));
        assert_eq!(manual.pending_timers(), 1);
        manual.advance(Duration::from_secs(1));
        let error = call.await.unwrap().unwrap_err();
        let url = format!("{}{}", server.base_url(), spec.path);
        assert_eq!(
            error,
            ModelError::Timeout {
                provider: spec.name.into(),
                after: seconds(30),
                url: url.clone(),
            }
        );
        assert_eq!(
            error.to_string(),
            format!("{}: no answer within 30 s (POST {url})", spec.name)
        );
    });
}

fn stops_when_the_signal_fires(spec: Spec) {
    run(async {
        let server = WireServer::start([Canned::hang()]).await;
        let model = spec.connect(&server, &ManualClock::new());
        let signal = Signal::new();
        let call = spawn_chat(model.clone(), spec.question(), signal.clone());
        server.wait_for_requests(1).await;
        signal.cancel("the user left");
        match call.await.unwrap().unwrap_err() {
            ModelError::Aborted(reason) => assert_eq!(reason.message(), "the user left"),
            other => panic!("{}: expected Aborted, got {other:?}", spec.name),
        }
        // A signal that already fired sends nothing.
        let error = model.chat(&spec.question(), &signal).await.unwrap_err();
        assert!(matches!(error, ModelError::Aborted(_)), "{error:?}");
        assert_eq!(server.requests().len(), 1);
    });
}

fn reports_a_refused_connection_as_transport(spec: Spec) {
    run(async {
        // A port that was just free, and is closed again.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        let base_url = format!("http://127.0.0.1:{port}");
        let model = model_of(spec.settings(&base_url), &spec.env());
        match asked(spec, &*model).await.unwrap_err() {
            ModelError::Transport { provider, detail } => {
                assert_eq!(provider, spec.name);
                assert!(detail.contains(&base_url), "{detail}");
                assert!(detail.contains("check base_url"), "{detail}");
            }
            other => panic!("{}: expected Transport, got {other:?}", spec.name),
        }
    });
}
