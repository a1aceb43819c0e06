//! Time to first token: a streamed answer from the local replay server (`wire-server`, the
//! stream fixtures of `tests/fixtures/<provider>/stream_text.sse`), timed from the request to
//! its first text, two ways in one run:
//!
//! - `framework`: `ChatModel::chat_streaming` of a provider from `providers::connect`, until its
//!   sink gets the first `ChatDelta::Text` (the request built from the `ChatRequest`, the key
//!   and headers, the retry loop, the SSE parser and the dialect's fold on the way);
//! - `raw`: the same request body POSTed with a bare reqwest client, its body read line by line
//!   until the first `data:` line whose JSON holds text (what the least a client of the API
//!   does).
//!
//! Both talk to the same server over loopback, so the difference is the framework's overhead.
//! After criterion's figures, an interleaved run (the two ways alternating, 2,000 requests
//! each) prints the medians, their difference and their ratio. docs/performance.md keeps the
//! figures ("Time to first token").

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use agboss::app::Env;
use agboss::context::Signal;
use agboss::model::providers::{ProviderSettings, connect};
use agboss::model::{ChatDelta, ChatModel, ChatRequest, Message, Thinking, ToolChoice};
use agboss::time::Clock;
use agboss::tool::WireFormat;
use criterion::Criterion;
use serde_json::Value;
use wire_server::{Canned, WireServer};

/// Requests per replay server (each answer is one of its queue).
const BATCH: u64 = 500;

/// One provider's stream, and how its raw reader finds the first text.
#[derive(Clone, Copy)]
struct Provider {
    name: &'static str,
    kind: WireFormat,
    fixtures: &'static str,
    /// The text of an event's JSON, if it holds some.
    text: fn(&Value) -> Option<&str>,
}

const PROVIDERS: [Provider; 3] = [
    Provider {
        name: "openai",
        kind: WireFormat::OpenAi,
        fixtures: "openai",
        text: |chunk| chunk.pointer("/choices/0/delta/content")?.as_str(),
    },
    Provider {
        name: "anthropic",
        kind: WireFormat::Anthropic,
        fixtures: "anthropic",
        text: |event| event.pointer("/delta/text")?.as_str(),
    },
    Provider {
        name: "gemini",
        kind: WireFormat::Gemini,
        fixtures: "gemini",
        text: |chunk| {
            chunk
                .pointer("/candidates/0/content/parts/0/text")?
                .as_str()
        },
    },
];

fn question() -> ChatRequest {
    ChatRequest {
        model: "bench-model".into(),
        system: "You answer questions about orders.".into(),
        messages: vec![Message::user("When did order C-17 ship?")],
        tools: Vec::new(),
        tool_choice: ToolChoice::Auto,
        thinking: Thinking::Default,
        max_output_tokens: None,
    }
}

/// A replay server giving streamed answers, and a model on it.
struct Bench {
    server: WireServer,
    model: std::sync::Arc<dyn ChatModel>,
}

impl Bench {
    async fn start(provider: Provider, count: u64) -> Bench {
        let body = wire_server::stream_fixture(provider.fixtures, "stream_text");
        let canned = Canned::events(200, body);
        let server = WireServer::start(vec![canned.clone(); count as usize]).await;
        let settings =
            ProviderSettings::new(provider.name, provider.kind, &server.base_url(), None);
        let model = connect(
            settings,
            &Env::from_pairs::<&str, &str>([]),
            Clock::system(),
        );
        Bench { server, model }
    }
}

/// The framework's time to first text.
async fn framework(model: &dyn ChatModel, request: &ChatRequest) -> Duration {
    let first = OnceLock::new();
    let sink = |delta: ChatDelta<'_>| {
        if let ChatDelta::Text(_) = delta {
            let _ = first.set(Instant::now());
        }
    };
    let start = Instant::now();
    let response = model
        .chat_streaming(request, &Signal::new(), &sink)
        .await
        .expect("the streamed answer");
    black_box(response);
    first.get().expect("a text delta").duration_since(start)
}

/// What the raw reader sends: the framework's own first request, as the server got it.
struct Raw {
    http: reqwest::Client,
    url: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    text: fn(&Value) -> Option<&str>,
}

impl Raw {
    async fn learn(provider: Provider, request: &ChatRequest) -> Raw {
        let bench = Bench::start(provider, 1).await;
        framework(&*bench.model, request).await;
        let sent = bench.server.requests().remove(0);
        let keep = ["content-type", "accept"];
        Raw {
            http: {
                // reqwest needs a crypto provider even for plain HTTP.
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::new()
            },
            url: sent.url,
            headers: sent
                .headers
                .into_iter()
                .filter(|(name, _)| keep.contains(&name.as_str()))
                .collect(),
            body: serde_json::to_vec(&sent.body).expect("JSON"),
            text: provider.text,
        }
    }

    /// The raw time to first text from the server at `base_url`.
    async fn first_token(&self, base_url: &str) -> Duration {
        let path = self.url.split_once("//").map_or("", |(_, rest)| rest);
        let path = &path[path.find('/').unwrap_or(path.len())..];
        let start = Instant::now();
        let mut request = self.http.post(format!("{base_url}{path}"));
        for (name, value) in &self.headers {
            request = request.header(name, value);
        }
        let mut response = request.body(self.body.clone()).send().await.expect("sent");
        let mut pending = Vec::new();
        let mut found = None;
        while let Some(chunk) = response.chunk().await.expect("a chunk") {
            if found.is_some() {
                continue;
            }
            pending.extend_from_slice(&chunk);
            while let Some(end) = pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = pending.drain(..=end).collect();
                let Some(data) = line.strip_prefix(b"data: ") else {
                    continue;
                };
                let Ok(event) = serde_json::from_slice::<Value>(data) else {
                    continue;
                };
                if (self.text)(&event).is_some_and(|t| !t.is_empty()) {
                    found = Some(start.elapsed());
                    break;
                }
            }
        }
        found.expect("a data line with text")
    }
}

/// `iters` requests of one way, on fresh servers of [`BATCH`] answers each; the sum of their
/// times to first text.
async fn measure(provider: Provider, raw: Option<&Raw>, iters: u64) -> Duration {
    let request = question();
    let mut total = Duration::ZERO;
    let mut left = iters;
    while left > 0 {
        let count = left.min(BATCH);
        let bench = Bench::start(provider, count).await;
        for _ in 0..count {
            total += match raw {
                None => framework(&*bench.model, &request).await,
                Some(raw) => raw.first_token(&bench.server.base_url()).await,
            };
        }
        left -= count;
    }
    total
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

fn benches(c: &mut Criterion) {
    let rt = runtime();
    for provider in PROVIDERS {
        let raw = rt.block_on(Raw::learn(provider, &question()));
        let mut group = c.benchmark_group(format!("first_token/{}", provider.name));
        group.bench_function("framework", |b| {
            b.iter_custom(|iters| rt.block_on(measure(provider, None, iters)));
        });
        group.bench_function("raw", |b| {
            b.iter_custom(|iters| rt.block_on(measure(provider, Some(&raw), iters)));
        });
        group.finish();
    }
}

/// The two ways alternating, `rounds` requests each: medians, difference, ratio.
fn interleaved(rounds: usize) {
    let rt = runtime();
    let request = question();
    for provider in PROVIDERS {
        let (framework_times, raw_times) = rt.block_on(async {
            let raw = Raw::learn(provider, &request).await;
            let mut framework_times = Vec::with_capacity(rounds);
            let mut raw_times = Vec::with_capacity(rounds);
            let bench = Bench::start(provider, 2 * rounds as u64).await;
            for _ in 0..rounds {
                framework_times.push(framework(&*bench.model, &request).await);
                raw_times.push(raw.first_token(&bench.server.base_url()).await);
            }
            (framework_times, raw_times)
        });
        let ours = median(framework_times);
        let theirs = median(raw_times);
        println!(
            "first_token/{:<9} interleaved x{rounds}: framework {:>7.1} µs, raw {:>7.1} µs, overhead {:>6.1} µs, ratio {:.2}",
            provider.name,
            micros(ours),
            micros(theirs),
            micros(ours) - micros(theirs),
            micros(ours) / micros(theirs),
        );
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion);
    criterion.final_summary();
    interleaved(if benching { 2000 } else { 20 });
}
