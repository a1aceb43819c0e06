//! OpenTelemetry over OTLP/HTTP (feature `otel`): a run with two tool calls side by side, one of
//! which asks a model of its own, exported to a local receiver that decodes what arrives as the
//! collector does. The span tree (names, parents, kinds, attributes) and the metrics are checked.
//!
//! The run happens in a child process (this binary again) whose `OTEL_*` variables point at the
//! receiver in this one: the exporter is configured the way a deployment configures it, and the
//! global subscriber it installs is the child's alone. gRPC is checked as far as its HTTP/2
//! preface, in the clear and inside TLS to an `https` endpoint.

use std::collections::HashMap;
use std::sync::Arc;

use agboss::model::{
    ChatRequest, ModelClient, ModelRouter, Prices, ScriptedModel, ToolChoice, Turn,
};
use agboss::prelude::*;
use agboss::telemetry::{Otel, field};
use agboss::units::usd;
use agboss::{Application, Workflow};
use opentelemetry_proto::tonic::common::v1::KeyValue;
use opentelemetry_proto::tonic::common::v1::any_value::Value as AnyValue;
use opentelemetry_proto::tonic::metrics::v1::metric::Data;
use opentelemetry_proto::tonic::metrics::v1::number_data_point::Value as Number;
use opentelemetry_proto::tonic::trace::v1::Span;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use serde_json::json;

#[path = "otel/receiver.rs"]
mod receiver;

/// Both tools wait here: each starts only once the other has (they run side by side, or the
/// run times out).
static SIDE_BY_SIDE: std::sync::LazyLock<tokio::sync::Barrier> =
    std::sync::LazyLock::new(|| tokio::sync::Barrier::new(2));

#[dto]
pub struct Text {
    /// The text.
    pub text: String,
}

/// Looks a word up.
#[tool(
    name = "lookup-tool",
    description = "Looks a word up",
    read_only = true
)]
pub struct Lookup;

impl ToolHandler for Lookup {
    type Input = Text;
    type Output = Text;

    async fn run(&self, input: Text) -> Result<Text, ToolError> {
        SIDE_BY_SIDE.wait().await;
        Ok(Text {
            text: format!("{}: a word", input.text),
        })
    }
}

/// Summarizes with a model of its own.
#[tool(
    name = "summarize-tool",
    description = "Summarizes a text",
    read_only = true
)]
pub struct Summarize {
    models: ModelClient,
}

impl ToolHandler for Summarize {
    type Input = Text;
    type Output = Text;

    async fn run(&self, input: Text) -> Result<Text, ToolError> {
        SIDE_BY_SIDE.wait().await;
        let request = ChatRequest {
            model: String::new(),
            system: "Summarize.".into(),
            messages: vec![agboss::model::Message::user(input.text)],
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            thinking: Default::default(),
            max_output_tokens: None,
        };
        let answer = self
            .models
            .chat("openai/gpt-5-nano", request)
            .await
            .map_err(|e| ToolError::new(e.to_string()))?;
        Ok(Text {
            text: answer.text.unwrap_or_default(),
        })
    }
}

#[agent(
    name = "reader",
    description = "Reads",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Lookup, Summarize],
)]
pub struct Reader;

fn app(model: ScriptedModel) -> Application {
    let price = |dollars| Prices {
        input_per_million: usd(dollars),
        output_per_million: usd(dollars),
    };
    let router = ModelRouter::new()
        .route("*", "scripted", Arc::new(model), false)
        .price("openai/gpt-5-mini", price("1"))
        .price("openai/gpt-5-nano", price("100"));
    Application::builder("observed")
        .workflow(Workflow::new("desk").agent::<Reader>())
        .router(router)
        .build()
        .unwrap()
}

/// An attribute's value as text.
fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    let value = attributes.iter().find(|kv| kv.key == key)?.value.as_ref()?;
    Some(match value.value.as_ref()? {
        AnyValue::StringValue(s) => s.clone(),
        AnyValue::IntValue(i) => i.to_string(),
        AnyValue::BoolValue(b) => b.to_string(),
        AnyValue::DoubleValue(d) => d.to_string(),
        other => format!("{other:?}"),
    })
}

/// The run, in a process of its own whose `OTEL_*` variables say where to export.
async fn run_in_child() {
    {
        let otel = Otel::from_env()
            .service_name("otel-test")
            .install()
            .unwrap();
        let model = ScriptedModel::new([
            Turn::calls([
                ("lookup-tool", json!({"text": "otter"})),
                ("summarize-tool", json!({"text": "a long text"})),
            ])
            .usage(1_000, 10),
            Turn::text("Short.").usage(2_000, 1_000),
            Turn::text("Done.").usage(10, 0),
        ]);
        let outcome = app(model)
            .run("desk", "read")
            .execution_id("e-otel")
            .await
            .unwrap();
        assert_eq!(outcome.text(), Some("Done."));
        tokio::task::spawn_blocking(move || otel.shutdown())
            .await
            .unwrap();
    }
}

/// Runs test `name` again in a child process with `variables` set, and returns its output.
async fn child(name: &str, variables: &[(&str, &str)]) -> std::process::Output {
    let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
    command
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env("AGBOSS_OTEL_CHILD", "1")
        .env_remove("OTEL_SERVICE_NAME")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        .env_remove("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL");
    for (name, value) in variables {
        command.env(name, value);
    }
    let output = command.output().await.unwrap();
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Runs the test `name` again in a child process, with `variables` set, from a test that is not
/// async itself.
fn in_a_child(name: &str, variables: &[(&str, &str)]) {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(child(name, variables));
}

/// Why installing from the environment is refused.
fn install_refused() -> String {
    Otel::from_env().install().unwrap_err().to_string()
}

fn in_child() -> bool {
    std::env::var_os("AGBOSS_OTEL_CHILD").is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_arrives_as_a_span_tree_and_metrics_over_otlp_http() {
    if in_child() {
        return run_in_child().await;
    }
    let (endpoint, received) = receiver::start().await;
    child(
        "a_run_arrives_as_a_span_tree_and_metrics_over_otlp_http",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf"),
        ],
    )
    .await;

    let received = received.lock().unwrap();
    assert!(received.other.is_empty(), "{:?}", received.other);
    let resource = received.traces[0].resource_spans[0]
        .resource
        .as_ref()
        .unwrap();
    assert_eq!(
        attribute(&resource.attributes, "service.name").as_deref(),
        Some("otel-test")
    );
    let spans: Vec<&Span> = received
        .traces
        .iter()
        .flat_map(|t| &t.resource_spans)
        .flat_map(|r| &r.scope_spans)
        .flat_map(|s| &s.spans)
        .collect();
    let named =
        |name: &str| -> Vec<&Span> { spans.iter().copied().filter(|s| s.name == name).collect() };
    let by_id: HashMap<&[u8], &Span> = spans.iter().map(|s| (&s.span_id[..], *s)).collect();
    let parent = |span: &Span| by_id.get(&span.parent_span_id[..]).map(|p| p.name.clone());

    // The execution: the root.
    let root = named("invoke_agent reader");
    assert_eq!(
        root.len(),
        1,
        "{:?}",
        spans.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let root = root[0];
    assert!(root.parent_span_id.is_empty());
    let at = |span: &Span, key: &str| attribute(&span.attributes, key);
    assert_eq!(at(root, field::OPERATION).as_deref(), Some("invoke_agent"));
    assert_eq!(at(root, field::AGENT_NAME).as_deref(), Some("reader"));
    assert_eq!(at(root, field::EXECUTION_ID).as_deref(), Some("e-otel"));

    // The agent's two model calls, children of the execution, clients.
    let chats = named("chat openai/gpt-5-mini");
    assert_eq!(chats.len(), 2);
    for chat in &chats {
        assert_eq!(parent(chat).as_deref(), Some("invoke_agent reader"));
        assert_eq!(chat.kind, SpanKind::Client as i32);
        assert_eq!(
            at(chat, field::REQUEST_MODEL).as_deref(),
            Some("openai/gpt-5-mini")
        );
        assert_eq!(at(chat, field::PROVIDER).as_deref(), Some("openai"));
        assert_eq!(at(chat, field::INPUT_MESSAGES), None, "content is off");
    }
    let first = chats
        .iter()
        .find(|c| at(c, field::TURN).as_deref() == Some("1"))
        .unwrap();
    assert_eq!(at(first, field::INPUT_TOKENS).as_deref(), Some("1000"));
    assert_eq!(at(first, field::OUTPUT_TOKENS).as_deref(), Some("10"));

    // The two tool calls side by side: children of the execution, overlapping in time.
    let lookup = named("execute_tool lookup-tool");
    let summarize = named("execute_tool summarize-tool");
    assert_eq!((lookup.len(), summarize.len()), (1, 1));
    let (lookup, summarize) = (lookup[0], summarize[0]);
    for (call, tool, id) in [
        (lookup, "lookup-tool", "call_0"),
        (summarize, "summarize-tool", "call_1"),
    ] {
        assert_eq!(parent(call).as_deref(), Some("invoke_agent reader"));
        assert_eq!(at(call, field::OPERATION).as_deref(), Some("execute_tool"));
        assert_eq!(at(call, field::TOOL_NAME).as_deref(), Some(tool));
        assert_eq!(at(call, field::TOOL_CALL_ID).as_deref(), Some(id));
        assert_eq!(at(call, field::TOOL_SOURCE).as_deref(), Some("local"));
        assert_eq!(at(call, field::TOOL_OUTCOME).as_deref(), Some("ok"));
        assert_eq!(at(call, field::RESULT_TRUNCATED).as_deref(), Some("false"));
        let key = at(call, field::IDEMPOTENCY_KEY).unwrap();
        assert!(key.starts_with("e-otel:") && key.ends_with(id), "{key}");
    }
    assert!(
        lookup.start_time_unix_nano < summarize.end_time_unix_nano
            && summarize.start_time_unix_nano < lookup.end_time_unix_nano,
        "the calls ran side by side"
    );
    // The summarizer's own model call, a child of its tool call.
    let own = named("chat openai/gpt-5-nano");
    assert_eq!(own.len(), 1);
    assert_eq!(
        parent(own[0]).as_deref(),
        Some("execute_tool summarize-tool")
    );
    assert_eq!(at(own[0], field::INPUT_TOKENS).as_deref(), Some("2000"));

    // Metrics: calls per tool, tokens per model, cost charged to the tool that spent it.
    // Sums are cumulative: the last export holds the totals.
    let metrics: Vec<_> = received
        .metrics
        .last()
        .into_iter()
        .flat_map(|m| &m.resource_metrics)
        .flat_map(|r| &r.scope_metrics)
        .flat_map(|s| &s.metrics)
        .collect();
    let sum = |name: &str, key: &str, value: &str| -> f64 {
        metrics
            .iter()
            .filter(|m| m.name == name)
            .filter_map(|m| match &m.data {
                Some(Data::Sum(sum)) => Some(&sum.data_points),
                _ => None,
            })
            .flatten()
            .filter(|p| attribute(&p.attributes, key).as_deref() == Some(value))
            .map(|p| match p.value {
                Some(Number::AsInt(i)) => i as f64,
                Some(Number::AsDouble(d)) => d,
                None => 0.0,
            })
            .fold(0.0, |a, b| a + b)
    };
    for (metric, key, value, expected) in [
        ("agboss.tool.calls", field::TOOL_NAME, "lookup-tool", 1.0),
        ("agboss.tool.calls", field::TOOL_NAME, "summarize-tool", 1.0),
        ("agboss.tool.errors", field::TOOL_NAME, "lookup-tool", 0.0),
        (
            "agboss.tokens",
            field::REQUEST_MODEL,
            "openai/gpt-5-mini",
            1_020.0,
        ),
        ("agboss.tokens", field::TOOL_NAME, "summarize-tool", 3_000.0),
    ] {
        assert_eq!(sum(metric, key, value), expected, "{metric} of {value}");
    }
    // 3,000 tokens at $100 per million, charged to the tool; 1,020 at $1 to the agent's turns.
    let tool_cost = sum("agboss.cost", field::TOOL_NAME, "summarize-tool");
    assert!((tool_cost - 0.3).abs() < 1e-9, "{tool_cost}");
    let all_cost = sum("agboss.cost", field::AGENT_NAME, "reader");
    // $0.30102, in millionths of a dollar.
    assert_eq!((all_cost * 1e6).round(), 301_020.0, "{all_cost}");
    assert!(
        metrics
            .iter()
            .any(|m| m.name == "gen_ai.client.operation.duration")
    );
    assert!(
        metrics
            .iter()
            .any(|m| m.name == "gen_ai.client.token.usage")
    );
}

/// `grpc` sends over HTTP/2 (the connection's preface arrives where the endpoint says); the
/// run is not slowed by a collector that never answers beyond the export timeout set.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_is_spoken_when_the_protocol_variable_says_so() {
    if in_child() {
        return run_in_child().await;
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let preface = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let mut first = [0u8; 24];
        tokio::io::AsyncReadExt::read_exact(&mut stream, &mut first)
            .await
            .unwrap();
        first
    });
    child(
        "grpc_is_spoken_when_the_protocol_variable_says_so",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "500"),
        ],
    )
    .await;
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), preface)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&first, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
}

/// A TLS server on 127.0.0.1 for `localhost`, with a certificate made for the test, asking
/// for HTTP/2; the PEM file of its certificate (which is its own CA) in `dir`.
fn tls_receiver(dir: &std::path::Path) -> (tokio_rustls::TlsAcceptor, std::path::PathBuf) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let ca = dir.join("collector-ca.pem");
    std::fs::write(&ca, made.cert.pem()).unwrap();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(made.signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![made.cert.der().clone()], key)
        .unwrap();
    config.alpn_protocols = vec![b"h2".to_vec()];
    (tokio_rustls::TlsAcceptor::from(Arc::new(config)), ca)
}

/// gRPC to an `https` endpoint goes over TLS: trusting the collector's CA from
/// `OTEL_EXPORTER_OTLP_CERTIFICATE`, the handshake succeeds with HTTP/2 agreed (ALPN `h2`) and
/// the HTTP/2 preface arrives inside it; without that variable the platform's roots do not know
/// the certificate and the handshake fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grpc_to_an_https_endpoint_goes_over_tls_trusting_the_given_ca() {
    if in_child() {
        return run_in_child().await;
    }
    let dir = tempfile::tempdir().unwrap();
    let (acceptor, ca) = tls_receiver(dir.path());
    for trusted in [true, false] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let endpoint = format!(
            "https://localhost:{}",
            listener.local_addr().unwrap().port()
        );
        let acceptor = acceptor.clone();
        let received = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut tls = acceptor.accept(stream).await?;
            let alpn = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
            let mut first = [0u8; 24];
            tokio::io::AsyncReadExt::read_exact(&mut tls, &mut first).await?;
            Ok::<_, std::io::Error>((alpn, first))
        });
        let mut variables = vec![
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint.as_str()),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "500"),
        ];
        let ca = ca.to_str().unwrap();
        if trusted {
            variables.push(("OTEL_EXPORTER_OTLP_CERTIFICATE", ca));
        }
        child(
            "grpc_to_an_https_endpoint_goes_over_tls_trusting_the_given_ca",
            &variables,
        )
        .await;
        let got = tokio::time::timeout(std::time::Duration::from_secs(10), received)
            .await
            .unwrap()
            .unwrap();
        if trusted {
            let (alpn, first) = got.unwrap();
            assert_eq!(alpn.as_deref(), Some(&b"h2"[..]));
            assert_eq!(&first, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        } else {
            let refused = got.unwrap_err().to_string();
            assert!(refused.contains("UnknownCA"), "{refused}");
        }
    }
}

/// A client certificate without its key is refused, naming both variables.
#[test]
fn a_client_certificate_without_its_key_is_refused() {
    if in_child() {
        assert_eq!(
            install_refused(),
            "the OTLP traces exporter could not be built: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE is set without OTEL_EXPORTER_OTLP_CLIENT_KEY: a client certificate needs both"
        );
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (_, ca) = tls_receiver(dir.path());
    in_a_child(
        "a_client_certificate_without_its_key_is_refused",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://localhost:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            (
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
                ca.to_str().unwrap(),
            ),
        ],
    );
}

/// A second `install` in one process is refused, saying to add the layer instead; the first
/// keeps exporting.
#[test]
fn a_second_install_is_refused_saying_to_add_the_layer() {
    if in_child() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _inside = runtime.enter();
        let first = Otel::from_env().install().unwrap();
        assert_eq!(
            install_refused(),
            "a tracing subscriber is already installed: add `Otel::layer` to it instead of `install`"
        );
        first.shutdown();
        return;
    }
    in_a_child(
        "a_second_install_is_refused_saying_to_add_the_layer",
        // Nowhere to export to: nothing is sent (no span is made).
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")],
    );
}

/// A protocol agboss does not export with is refused by name, before anything runs.
#[test]
fn an_unknown_protocol_is_refused_saying_which_variable() {
    if in_child() {
        assert_eq!(
            install_refused(),
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=\"http/json\" is not a protocol agboss exports with: use `http/protobuf` (the default) or `grpc`"
        );
        return;
    }
    in_a_child(
        "an_unknown_protocol_is_refused_saying_which_variable",
        &[("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json")],
    );
}
