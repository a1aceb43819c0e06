//! Streamed answers (`chat_streaming`, server-sent events), run once per provider against the
//! stream fixtures (`tests/fixtures/<provider>/stream_*.sse`): the deltas in order, the whole
//! answer the same as the non-streamed one, a cut stream retried after a `Restart` and
//! reported with the provider and the URL when every attempt is cut, a 429 before the first
//! byte, the timeout and the signal in the middle of a stream; lines the standard says to ignore,
//! ignored, and a body of another content type refused at once.

use std::sync::Mutex;

use agboss::model::ChatDelta;

use super::*;

each_provider!(
    streams_text_in_order_and_answers_as_chat_does,
    assembles_parallel_tool_calls_from_their_fragments,
    retries_a_cut_stream_after_a_restart,
    reports_a_stream_cut_on_every_attempt_with_the_url,
    retries_a_broken_connection_in_the_middle_of_a_stream,
    honours_retry_after_on_a_429_before_the_first_byte,
    sends_deltas_before_the_stream_ends_and_stops_on_the_signal,
    times_out_in_the_middle_of_a_stream,
    reads_a_whole_json_answer_to_a_streamed_request,
    ignores_the_lines_the_event_stream_standard_ignores,
    reads_an_event_stream_whatever_the_case_of_its_media_type,
    refuses_an_answer_that_is_not_an_event_stream_at_once,
);

/// A delta as the sink got it.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Got {
    Text(String),
    Call(String, String),
    Restart,
}

/// Collects the deltas of one call.
#[derive(Default)]
struct Collected(Mutex<Vec<Got>>);

impl Collected {
    fn sink(&self, delta: ChatDelta<'_>) {
        let got = match delta {
            ChatDelta::Text(text) => Got::Text(text.to_owned()),
            ChatDelta::ToolCall { id, name } => Got::Call(id.to_owned(), name.to_owned()),
            ChatDelta::Restart => Got::Restart,
        };
        self.0.lock().unwrap().push(got);
    }

    fn all(&self) -> Vec<Got> {
        self.0.lock().unwrap().clone()
    }

    /// The deltas with the text pieces joined, each run of them into one.
    fn joined(&self) -> Vec<Got> {
        let mut out: Vec<Got> = Vec::new();
        for got in self.all() {
            match (out.last_mut(), got) {
                (Some(Got::Text(last)), Got::Text(more)) => last.push_str(&more),
                (_, got) => out.push(got),
            }
        }
        out
    }
}

impl Spec {
    /// The stream fixture `tests/fixtures/<provider>/<name>.sse`, as a 200 answer.
    fn events(&self, name: &str) -> Canned {
        Canned::events(200, wire_server::stream_fixture(self.fixtures, name))
    }

    /// Where a streamed request goes.
    fn stream_path(&self) -> String {
        match self.kind {
            WireFormat::Gemini => format!("/models/{}:streamGenerateContent?alt=sse", self.model),
            _ => self.path.to_owned(),
        }
    }

    /// The calls of the parallel-calls fixture, as deltas.
    fn call_deltas(&self) -> [Got; 2] {
        let id = |i: usize| self.ids[i].unwrap_or_default().to_owned();
        [
            Got::Call(id(0), "lookup-customer-tool".into()),
            Got::Call(id(1), "list-orders-tool".into()),
        ]
    }
}

/// What every text fixture answers, as the one text delta it joins into.
fn shipped() -> [Got; 1] {
    [Got::Text("The order C-17 shipped on Monday.".into())]
}

/// The whole events of `stream` that end within its first `max` bytes.
fn whole_events(stream: &str, max: usize) -> &str {
    let head = &stream[..max];
    let end = [("\r\n\r\n", 4), ("\n\n", 2)]
        .iter()
        .find_map(|(gap, len)| head.rfind(gap).map(|at| at + len))
        .expect("an event within the first bytes");
    &stream[..end]
}

/// The text stream's events up to about three quarters of it: a stream that stops midway.
fn three_quarters(spec: Spec) -> String {
    let text = wire_server::stream_fixture(spec.fixtures, "stream_text");
    whole_events(&text, text.len() * 3 / 4).to_owned()
}

/// Streams the question to a server giving `answers`, on a clock nobody moves: the server, the
/// answer and the deltas.
async fn streamed(
    spec: Spec,
    answers: impl IntoIterator<Item = Canned>,
) -> (WireServer, Result<ChatResponse, ModelError>, Collected) {
    let server = WireServer::start(answers).await;
    let model = spec.connect(&server, &ManualClock::new());
    let deltas = Collected::default();
    let response = stream(&*model, &spec.question(), &Signal::new(), &deltas).await;
    (server, response, deltas)
}

/// Streams `request` to `model`, collecting its deltas in `deltas`.
async fn stream(
    model: &dyn ChatModel,
    request: &ChatRequest,
    signal: &Signal,
    deltas: &Collected,
) -> Result<ChatResponse, ModelError> {
    let sink = |delta: ChatDelta<'_>| deltas.sink(delta);
    model.chat_streaming(request, signal, &sink).await
}

/// Streams the question in the background, to be driven by the test's clock; its deltas go to
/// the returned collector.
fn spawn_stream(
    model: Arc<dyn ChatModel>,
    request: ChatRequest,
    signal: Signal,
) -> (
    Arc<Collected>,
    tokio::task::JoinHandle<Result<ChatResponse, ModelError>>,
) {
    let deltas = Arc::new(Collected::default());
    let collector = deltas.clone();
    let call = tokio::spawn(async move { stream(&*model, &request, &signal, &collector).await });
    (deltas, call)
}

/// Streams the question in the background to a server giving `answers`, on `manual`.
async fn streaming(
    spec: Spec,
    answers: impl IntoIterator<Item = Canned>,
    manual: &ManualClock,
) -> (
    WireServer,
    Arc<Collected>,
    tokio::task::JoinHandle<Result<ChatResponse, ModelError>>,
) {
    let server = WireServer::start(answers).await;
    let model = spec.connect(&server, manual);
    let (deltas, call) = spawn_stream(model, spec.question(), Signal::new());
    (server, deltas, call)
}

/// Waits out the retry's `wait` seconds on `manual`; the background `call` then answers as the
/// JSON fixture `name` does.
async fn answers_after(
    manual: &ManualClock,
    wait: u64,
    call: tokio::task::JoinHandle<Result<ChatResponse, ModelError>>,
    spec: Spec,
    name: &str,
) {
    expect_wait(manual, Duration::from_secs(wait), spec).await;
    let response = call.await.unwrap().unwrap();
    assert_eq!(response, whole(spec, name).await);
}

/// The non-streamed answer of the JSON fixture `name`.
async fn whole(spec: Spec, name: &str) -> ChatResponse {
    let (result, _) = ask(spec, vec![spec.canned(200, name)]).await;
    result.unwrap()
}

fn streams_text_in_order_and_answers_as_chat_does(spec: Spec) {
    run(async {
        let (server, response, deltas) = streamed(spec, [spec.events("stream_text")]).await;
        assert_eq!(response.unwrap(), whole(spec, "text").await);
        let pieces = deltas.all();
        assert!(
            pieces.len() >= 3,
            "{}: the text came in pieces: {pieces:?}",
            spec.name
        );
        assert_eq!(deltas.joined(), shipped());
        let requests = server.requests();
        assert_eq!(requests.len(), 1);
        assert_eq!(requests[0].path, spec.stream_path());
        assert!(
            requests[0].problems.is_empty(),
            "{:?}",
            requests[0].problems
        );
        assert_eq!(requests[0].header("accept"), Some("text/event-stream"));
        assert_eq!(spec.key_sent(&requests[0]), Some(KEY));
        match spec.kind {
            WireFormat::OpenAi => {
                assert_eq!(requests[0].body["stream"], json!(true));
                assert_eq!(
                    requests[0].body["stream_options"],
                    json!({"include_usage": true})
                );
            }
            WireFormat::Anthropic => assert_eq!(requests[0].body["stream"], json!(true)),
            WireFormat::Gemini => assert_eq!(requests[0].body.get("stream"), None),
        }
    });
}

fn assembles_parallel_tool_calls_from_their_fragments(spec: Spec) {
    run(async {
        let answers = [spec.events("stream_parallel_tool_calls")];
        let (_, response, deltas) = streamed(spec, answers).await;
        assert_eq!(response.unwrap(), whole(spec, "parallel_tool_calls").await);
        assert_eq!(deltas.all(), spec.call_deltas());
    });
}

fn retries_a_cut_stream_after_a_restart(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let answers = [
            spec.events("stream_cut"),
            spec.events("stream_parallel_tool_calls"),
        ];
        let (server, deltas, call) = streaming(spec, answers, &manual).await;
        // A cut stream waits the first backoff, as a 5xx does.
        answers_after(&manual, 1, call, spec, "parallel_tool_calls").await;
        let got = deltas.all();
        let restart = got.iter().position(|g| *g == Got::Restart).unwrap();
        assert_eq!(
            got[restart + 1..],
            spec.call_deltas(),
            "{}: the second attempt's deltas follow the restart",
            spec.name
        );
        assert!(
            got[..restart].starts_with(&spec.call_deltas()[..1]),
            "{}: the cut attempt began the first call: {got:?}",
            spec.name
        );
        assert_eq!(server.requests().len(), 2);
        assert_eq!(server.requests()[0].body, server.requests()[1].body);
    });
}

fn reports_a_stream_cut_on_every_attempt_with_the_url(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let answers = vec![spec.events("stream_cut"); 3];
        let (server, deltas, call) = streaming(spec, answers, &manual).await;
        for wait in [1, 2] {
            expect_wait(&manual, Duration::from_secs(wait), spec).await;
        }
        let error = call.await.unwrap().unwrap_err();
        let url = format!("{}{}", server.base_url(), spec.stream_path());
        let ModelError::Transport { provider, detail } = &error else {
            panic!("{}: expected Transport, got {error:?}", spec.name);
        };
        assert_eq!(provider, spec.name);
        assert!(
            detail.contains("broke off before its end (attempt 3 of 3)"),
            "{detail}"
        );
        assert!(detail.contains(&format!("(POST {url})")), "{detail}");
        let text = error.to_string();
        assert!(text.starts_with(&format!("{}: ", spec.name)), "{text}");
        let restarts = deltas.all().iter().filter(|g| **g == Got::Restart).count();
        assert_eq!(restarts, 2, "{}: one restart before each retry", spec.name);
        assert_eq!(server.requests().len(), 3);
    });
}

fn retries_a_broken_connection_in_the_middle_of_a_stream(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let answers = [
            Canned::events(200, three_quarters(spec)).then_break(),
            spec.events("stream_text"),
        ];
        let (server, deltas, call) = streaming(spec, answers, &manual).await;
        answers_after(&manual, 1, call, spec, "text").await;
        let got = deltas.joined();
        assert_eq!(got.last(), shipped().first(), "{got:?}");
        assert_eq!(server.requests().len(), 2);
    });
}

fn honours_retry_after_on_a_429_before_the_first_byte(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let answers = [
            spec.canned(429, "error_429").header("retry-after", "7"),
            spec.events("stream_text"),
        ];
        let (server, deltas, call) = streaming(spec, answers, &manual).await;
        answers_after(&manual, 7, call, spec, "text").await;
        assert_eq!(
            deltas.joined(),
            shipped(),
            "no restart: nothing came before the 429"
        );
        assert_eq!(server.requests().len(), 2);
    });
}

fn sends_deltas_before_the_stream_ends_and_stops_on_the_signal(spec: Spec) {
    run(async {
        let stalled = Canned::events(200, three_quarters(spec)).then_stall();
        let server = WireServer::start([stalled]).await;
        let signal = Signal::new();
        let (deltas, call) = spawn_stream(
            spec.connect(&server, &ManualClock::new()),
            spec.question(),
            signal.clone(),
        );
        while !deltas.all().iter().any(|g| matches!(g, Got::Text(_))) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert!(
            !call.is_finished(),
            "{}: the stream is still open",
            spec.name
        );
        signal.cancel("the user left");
        match call.await.unwrap().unwrap_err() {
            ModelError::Aborted(reason) => assert_eq!(reason.message(), "the user left"),
            other => panic!("{}: expected Aborted, got {other:?}", spec.name),
        }
        assert!(!deltas.all().contains(&Got::Restart));
    });
}

fn times_out_in_the_middle_of_a_stream(spec: Spec) {
    run(async {
        let manual = ManualClock::new();
        let stalled = Canned::events(200, three_quarters(spec)).then_stall();
        let server = WireServer::start([stalled]).await;
        let mut settings = spec.settings(&server.base_url());
        settings.request_timeout = seconds(30);
        let model = connect(settings, &spec.env(), Clock::from(&manual));
        let (deltas, call) = spawn_stream(model, spec.question(), Signal::new());
        while deltas.all().is_empty() {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        manual.advance(Duration::from_secs(30));
        let error = call.await.unwrap().unwrap_err();
        assert_eq!(
            error,
            ModelError::Timeout {
                provider: spec.name.into(),
                after: seconds(30),
                url: format!("{}{}", server.base_url(), spec.stream_path()),
            }
        );
    });
}

fn reads_a_whole_json_answer_to_a_streamed_request(spec: Spec) {
    run(async {
        // A compatible server that ignores `"stream": true` and answers whole.
        let answers = [spec.canned(200, "parallel_tool_calls")];
        let (_, response, deltas) = streamed(spec, answers).await;
        assert_eq!(response.unwrap(), whole(spec, "parallel_tool_calls").await);
        assert_eq!(deltas.all(), spec.call_deltas());
    });
}

fn ignores_the_lines_the_event_stream_standard_ignores(spec: Spec) {
    run(async {
        // Comments, a field of a vendor's own, a line without a colon, a `retry` that is no
        // number: before the first event, and inside each one.
        let fixture = wire_server::stream_fixture(spec.fixtures, "stream_text");
        let noisy = format!(
            ": keep-alive\nx-vendor: 1\nnocolon\nretry: soon\n\n{}",
            fixture.replace("data:", "x-trace: 7\n: note\ndata:")
        );
        let (_, response, deltas) = streamed(spec, [Canned::events(200, noisy)]).await;
        assert_eq!(response.unwrap(), whole(spec, "text").await);
        assert_eq!(deltas.joined(), shipped());
    });
}

fn reads_an_event_stream_whatever_the_case_of_its_media_type(spec: Spec) {
    run(async {
        // Media types are case-insensitive (RFC 9110), their parameters too.
        let fixture = wire_server::stream_fixture(spec.fixtures, "stream_text");
        let labelled =
            Canned::bytes(200, fixture).header("content-type", "Text/Event-Stream; Charset=UTF-8");
        let (_, response, _) = streamed(spec, [labelled]).await;
        assert_eq!(response.unwrap(), whole(spec, "text").await);
    });
}

fn refuses_an_answer_that_is_not_an_event_stream_at_once(spec: Spec) {
    run(async {
        // A base_url that points at a web page.
        let page = Canned::bytes(200, "<!DOCTYPE html>\n<p>Welcome</p>\n")
            .header("content-type", "text/html; charset=utf-8");
        let (server, response, _) = streamed(spec, [page]).await;
        match response.unwrap_err() {
            ModelError::MalformedResponse { detail, .. } => assert!(
                detail.contains("`text/html; charset=utf-8`, not server-sent events"),
                "{detail}"
            ),
            other => panic!("expected MalformedResponse, got {other:?}"),
        }
        assert_eq!(server.requests().len(), 1, "not retried");
    });
}

#[test]
fn anthropic_retries_an_overloaded_error_event_as_a_529() {
    run(async {
        let spec = ANTHROPIC;
        let manual = ManualClock::new();
        let answers = [spec.events("stream_error"), spec.events("stream_text")];
        let (_server, deltas, call) = streaming(spec, answers, &manual).await;
        answers_after(&manual, 1, call, spec, "text").await;
        assert_eq!(
            deltas.joined(),
            [
                Got::Text("The order".into()),
                Got::Restart,
                Got::Text("The order C-17 shipped on Monday.".into())
            ]
        );
        // Every attempt overloaded: the error of a 529.
        let answers = vec![spec.events("stream_error"); 3];
        let (server, _, call) = streaming(spec, answers, &manual).await;
        for wait in [1, 2] {
            expect_wait(&manual, Duration::from_secs(wait), spec).await;
        }
        assert_eq!(
            call.await.unwrap().unwrap_err(),
            ModelError::Server {
                provider: spec.name.into(),
                status: 529,
                attempts: 3,
                message: "Overloaded".into(),
                url: format!("{}{}", server.base_url(), spec.path),
            }
        );
    });
}

#[test]
fn an_event_past_the_cap_is_refused_with_a_clear_error() {
    run(async {
        let content = "a".repeat(17 * 1024 * 1024);
        let delta = json!({"choices": [{"index": 0, "delta": {"content": content}}]});
        let huge = Canned::events(200, format!("data: {delta}\n\n"));
        let (server, response, deltas) = streamed(OPENAI, [huge]).await;
        match response.unwrap_err() {
            ModelError::MalformedResponse { detail, url, .. } => {
                assert!(detail.contains("longer than 16 MB"), "{detail}");
                assert_eq!(url, format!("{}{}", server.base_url(), OPENAI.path));
            }
            other => panic!("expected MalformedResponse, got {other:?}"),
        }
        assert!(deltas.all().is_empty());
        assert_eq!(server.requests().len(), 1, "not retried");
    });
}

#[test]
fn gemini_reports_a_blocked_prompt_in_a_stream_as_refused() {
    run(async {
        let spec = GEMINI;
        let blocked = format!(
            "data: {}\r\n\r\n",
            json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
                   "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7}})
        );
        let (_, response, _) = streamed(spec, [Canned::events(200, blocked)]).await;
        match response.unwrap_err() {
            ModelError::BadRequest {
                status, message, ..
            } => {
                assert_eq!(status, 200);
                assert!(message.contains("PROHIBITED_CONTENT"), "{message}");
            }
            other => panic!("expected BadRequest, got {other:?}"),
        }
    });
}
