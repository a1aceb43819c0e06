//! The HTTP model providers (OpenAI Chat Completions, Anthropic Messages, Gemini
//! `generateContent`) against a local server on 127.0.0.1 that answers with each API's
//! documented wire format (`tests/fixtures/<provider>/`) and records what it was sent.
//!
//! The behaviours every provider shares run once per provider (`providers/each_provider.rs`,
//! whose macro makes an `openai`, an `anthropic` and a `gemini` module of them); what each one
//! sends is checked body by body in `providers/wire_format.rs`; thinking, the forms of
//! `Retry-After` and the rest in `providers/details.rs`; streamed answers (`chat_streaming`,
//! the `stream_*.sse` fixtures) in `providers/streaming.rs`. Time runs on a `ManualClock`: a
//! provider's call holds one timer for its timeout from its start, and one more while it waits
//! before a retry, so `wait_for_timers(2)` means "it is waiting to retry", and
//! `pending_timers()` right after an `advance` says whether that wait ended.
//!
//! Real requests can be forbidden process-wide (`forbid_real_requests`), and a test of that
//! switch would fail every other provider test running at the same time. So every test holds
//! a read lock on `SWITCH` while it runs, and the one test of the switch holds the write lock,
//! turning the switch on and back off (on drop, even if it fails) while no other test runs.
//! The variable `AGBOSS_FORBID_REAL_MODELS` must not be set for this binary.

use std::future::Future;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use agboss::app::Env;
use agboss::context::Signal;
use agboss::model::Thinking;
use agboss::model::forbid_real_requests;
use agboss::model::providers::{ProviderSettings, RetryPolicy, connect};
use agboss::model::{
    ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, ToolCall, ToolChoice,
    Usage,
};
use agboss::time::{Clock, ManualClock};
use agboss::tool::ToolDefinition;
use agboss::tool::WireFormat;
use agboss::units::seconds;
use serde_json::{Value, json};
use wire_server::{Canned, Recorded, WireServer};

/// The key every provider gets; no error may show it.
const KEY: &str = "sk-test-0123456789-secret";

/// Shared by every test, exclusive for the test of the forbidden switch.
static SWITCH: RwLock<()> = RwLock::new(());

/// What differs between the providers in the shared tests.
#[derive(Clone, Copy, Debug)]
struct Spec {
    name: &'static str,
    kind: WireFormat,
    key_env: &'static str,
    fixtures: &'static str,
    model: &'static str,
    path: &'static str,
    /// The ids the parallel-calls fixture gives its two calls.
    ids: [Option<&'static str>; 2],
    /// The message of the 400 fixture, as the error should carry it.
    bad_request: &'static str,
    /// The message of the 500 fixture.
    server_error: &'static str,
}

const OPENAI: Spec = Spec {
    name: "openai",
    kind: WireFormat::OpenAi,
    key_env: "OPENAI_API_KEY",
    fixtures: "openai",
    model: "gpt-5-mini",
    path: "/chat/completions",
    ids: [Some("call_Xk3fA1pQ"), Some("call_Yz8bQ2rS")],
    bad_request: "Invalid value: 'tool_choice'. Supported values are: 'none', 'auto' and 'required'.",
    server_error: "The server had an error while processing your request. Sorry about that!",
};

const ANTHROPIC: Spec = Spec {
    name: "anthropic",
    kind: WireFormat::Anthropic,
    key_env: "ANTHROPIC_API_KEY",
    fixtures: "anthropic",
    model: "claude-sonnet-4-5",
    path: "/v1/messages",
    ids: [
        Some("toolu_01A09q90qw90lq917835lq9"),
        Some("toolu_01B7xYz3Lm4Np5Qr6St8Uv9W"),
    ],
    bad_request: "messages.1.content.0.tool_use.input: Input should be a valid dictionary",
    server_error: "Internal server error",
};

const GEMINI: Spec = Spec {
    name: "google",
    kind: WireFormat::Gemini,
    key_env: "GEMINI_API_KEY",
    fixtures: "gemini",
    model: "gemini-2.5-flash",
    path: "/models/gemini-2.5-flash:generateContent",
    ids: [None, None],
    bad_request: "* GenerateContentRequest.contents[1].parts[0].function_call.name: Name cannot be empty.",
    server_error: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
};

impl Spec {
    /// The fixture `tests/fixtures/<provider>/<name>.json`.
    fn fixture(&self, name: &str) -> String {
        wire_server::fixture(self.fixtures, name)
    }

    fn canned(&self, status: u16, fixture: &str) -> Canned {
        Canned::json(status, self.fixture(fixture))
    }

    /// Settings for `base_url`: a long timeout, three attempts, waits from 1 s to 60 s.
    fn settings(&self, base_url: &str) -> ProviderSettings {
        let mut settings =
            ProviderSettings::new(self.name, self.kind, base_url, Some(self.key_env));
        settings.request_timeout = seconds(3600);
        settings.retry = RetryPolicy {
            max_attempts: 3,
            first_backoff: seconds(1),
            max_backoff: seconds(60),
        };
        settings
    }

    fn env(&self) -> Env {
        Env::from_pairs([(self.key_env, KEY)])
    }

    fn connect(&self, server: &WireServer, manual: &ManualClock) -> Arc<dyn ChatModel> {
        connect(
            self.settings(&server.base_url()),
            &self.env(),
            Clock::from(manual),
        )
    }

    /// The model at `server`, on a clock nobody moves, given the variables `env` (not the key).
    fn connect_in(&self, server: &WireServer, env: &Env) -> Arc<dyn ChatModel> {
        model_of(self.settings(&server.base_url()), env)
    }

    /// A 429 asking to wait `retry_after`, then the text fixture.
    fn rate_limited(&self, retry_after: &str) -> [Canned; 2] {
        [
            self.canned(429, "error_429")
                .header("retry-after", retry_after),
            self.canned(200, "text"),
        ]
    }

    /// The key as `request` carried it, in this API's header.
    fn key_sent<'r>(&self, request: &'r Recorded) -> Option<&'r str> {
        match self.kind {
            WireFormat::OpenAi => request
                .header("authorization")
                .and_then(|v| v.strip_prefix("Bearer ")),
            WireFormat::Anthropic => request.header("x-api-key"),
            WireFormat::Gemini => request.header("x-goog-api-key"),
        }
    }

    /// A one-question request without tools.
    fn question(&self) -> ChatRequest {
        ChatRequest {
            model: self.model.into(),
            system: "You answer questions about orders.".into(),
            messages: vec![Message::user("When did order C-17 ship?")],
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            thinking: Thinking::Default,
            max_output_tokens: None,
        }
    }
}

/// The model `settings` describe, given the variables `env`, on a clock nobody moves.
fn model_of(settings: ProviderSettings, env: &Env) -> Arc<dyn ChatModel> {
    connect(settings, env, Clock::from(ManualClock::new()))
}

/// What `model` answers the question of `spec`, asked once.
async fn asked(spec: Spec, model: &dyn ChatModel) -> Result<ChatResponse, ModelError> {
    model.chat(&spec.question(), &Signal::new()).await
}

/// Runs `test` on a runtime of its own, sharing the forbidden switch with the other tests.
fn run<F: Future>(test: F) -> F::Output {
    let _shared = SWITCH.read().unwrap_or_else(PoisonError::into_inner);
    runtime().block_on(test)
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// One question to a server giving `responses`; the answer and what the server got. The call
/// may not wait before a retry: nothing advances its clock.
async fn ask(
    spec: Spec,
    responses: Vec<Canned>,
) -> (Result<ChatResponse, ModelError>, Vec<Recorded>) {
    let server = WireServer::start(responses).await;
    let manual = ManualClock::new();
    let model = spec.connect(&server, &manual);
    let result = without_waiting(&manual, model.chat(&spec.question(), &Signal::new())).await;
    (result, server.requests())
}

/// Runs `call` to its end, failing (instead of hanging) if it starts waiting before a retry:
/// a second timer on the clock besides the call's timeout.
async fn without_waiting<T>(manual: &ManualClock, call: impl Future<Output = T>) -> T {
    tokio::select! {
        biased;
        result = call => result,
        () = manual.wait_for_timers(2) => panic!("the call waits before a retry, on a clock nobody advances"),
    }
}

/// Sends `request` in the background, to be driven by the test's clock.
fn spawn_chat(
    model: Arc<dyn ChatModel>,
    request: ChatRequest,
    signal: Signal,
) -> tokio::task::JoinHandle<Result<ChatResponse, ModelError>> {
    tokio::spawn(async move { model.chat(&request, &signal).await })
}

/// Asks the question in the background of a server giving `answers`, on `manual`.
async fn chatting(
    spec: Spec,
    answers: impl IntoIterator<Item = Canned>,
    manual: &ManualClock,
) -> (
    WireServer,
    tokio::task::JoinHandle<Result<ChatResponse, ModelError>>,
) {
    let server = WireServer::start(answers).await;
    let call = spawn_chat(
        spec.connect(&server, manual),
        spec.question(),
        Signal::new(),
    );
    (server, call)
}

/// Checks that the call waits exactly `wait` before its next attempt.
async fn expect_wait(manual: &ManualClock, wait: Duration, spec: Spec) {
    let tick = Duration::from_millis(1);
    manual.wait_for_timers(2).await;
    manual.advance(wait - tick);
    assert_eq!(
        manual.pending_timers(),
        2,
        "{}: still waiting just before {wait:?}",
        spec.name
    );
    manual.advance(tick);
    assert_eq!(
        manual.pending_timers(),
        1,
        "{}: done waiting at {wait:?}",
        spec.name
    );
}

fn call(id: Option<&str>, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        provider_id: id.map(Into::into),
        name: name.into(),
        arguments: arguments.into(),
    }
}

/// The bodies of `requests`, as a server answering with the text fixture got them.
async fn bodies(spec: Spec, requests: &[ChatRequest]) -> Vec<Value> {
    sent(spec, requests)
        .await
        .into_iter()
        .map(|r| r.body)
        .collect()
}

/// Sends each of `requests` to a server answering with the text fixture; what it got.
async fn sent(spec: Spec, requests: &[ChatRequest]) -> Vec<Recorded> {
    let server = WireServer::start(vec![spec.canned(200, "text"); requests.len()]).await;
    let model = spec.connect(&server, &ManualClock::new());
    for request in requests {
        model.chat(request, &Signal::new()).await.unwrap();
    }
    server.requests()
}

#[test]
fn the_forbidden_switch_stops_every_provider_before_the_network() {
    /// Allows real requests again when the test ends, passed or failed.
    struct Allow;
    impl Drop for Allow {
        fn drop(&mut self) {
            forbid_real_requests(false);
        }
    }

    let _exclusive = SWITCH.write().unwrap_or_else(PoisonError::into_inner);
    forbid_real_requests(true);
    let _allow = Allow;
    runtime().block_on(async {
        for spec in [OPENAI, ANTHROPIC, GEMINI] {
            let server = WireServer::start([spec.canned(200, "text")]).await;
            // No key either: the switch is checked first.
            let model = spec.connect_in(&server, &Env::from_pairs::<&str, &str>([]));
            let error = asked(spec, &*model).await.unwrap_err();
            assert_eq!(
                error,
                ModelError::Forbidden {
                    model: spec.model.into()
                }
            );
            assert!(server.requests().is_empty());
        }
    });
}

#[test]
fn a_forbidden_key_names_the_variable_too() {
    run(async {
        for spec in [OPENAI, ANTHROPIC, GEMINI] {
            let forbidden = Canned::json(403, r#"{"error": {"message": "not allowed"}}"#);
            let (result, requests) = ask(spec, vec![forbidden]).await;
            let error = result.unwrap_err();
            assert_eq!(
                error,
                ModelError::Unauthorized {
                    provider: spec.name.into(),
                    status: 403,
                    key_env: spec.key_env.into(),
                    url: requests[0].url.clone(),
                }
            );
            assert!(error.to_string().contains(spec.key_env), "{error}");
            assert_eq!(
                requests.len(),
                1,
                "{}: a refused key is not retried",
                spec.name
            );
        }
    });
}

/// Makes of each of the functions `$test(spec)` a test per provider, in the modules `openai`,
/// `anthropic` and `gemini`.
macro_rules! each_provider {
    ($($test:ident),* $(,)?) => {
        mod openai {
            $(#[test] fn $test() { super::$test(super::OPENAI) })*
        }
        mod anthropic {
            $(#[test] fn $test() { super::$test(super::ANTHROPIC) })*
        }
        mod gemini {
            $(#[test] fn $test() { super::$test(super::GEMINI) })*
        }
    };
}

#[path = "providers/details.rs"]
mod details;
#[path = "providers/each_provider.rs"]
mod each_provider;
#[path = "providers/reasoning.rs"]
mod reasoning;
#[path = "providers/streaming.rs"]
mod streaming;
#[path = "providers/strict_tools.rs"]
mod strict_tools;
#[path = "providers/tool_choice.rs"]
mod tool_choice;
#[path = "providers/wire_format.rs"]
mod wire_format;
