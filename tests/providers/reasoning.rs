//! A model's reasoning kept across the tool calls of a run (docs/agents.md, "Reasoning across
//! tool calls"): Anthropic's signed thinking blocks, Gemini 3's thought signatures and the
//! `reasoning_content` of Kimi's OpenAI-compatible API go back with the turn that called the
//! tools. The wire server refuses a continuing request without them, as each API does
//! (`wire_server::reasoning`, `Quirk::NeedsReasoningContent`), so a run that completes is one
//! whose second request the API would take. Whole answers and streamed ones, and a run that
//! paused for an approval and was resumed by another application over the same store.

use std::sync::Arc;

use agboss::config::Config;
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{MemoryStore, Store};
use agboss::{Application, Resume, Workflow};
use wire_server::strict::dotted;
use wire_server::{Flavour, Quirk};

use super::*;
use fixtures::run::completed;

/// Where to look.
#[dto]
pub struct City {
    /// Its name.
    pub city: String,
}

#[tool(
    name = "forecast-tool",
    description = "The forecast for a city",
    read_only = true
)]
pub struct Forecast;

impl ToolHandler for Forecast {
    type Input = City;
    type Output = PlainText;

    async fn run(&self, input: City) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("sunny in {}", input.city)))
    }
}

/// Tells the weather, thinking first.
#[agent(
    name = "forecaster",
    prompt = "../prompts/lookup.prompt.md",
    model = "anthropic/claude-sonnet-4-5",
    tools = [Forecast],
    thinking = "low",
)]
pub struct Forecaster;

/// Approves looking a city up; the thread's owner answers.
#[channel_role(
    name = "city-approval-channel",
    description = "Approves lookups",
    approves = City,
    answered_by = ThreadOwner,
)]
pub struct CityApproval;

fixtures::inbox! {
    /// Asks nobody in particular: the answer comes later, by `resume`.
    #[channel(
        name = "later-city-approval-channel",
        description = "Waits for the owner"
    )]
    pub struct Later for CityApproval;
}

#[tool(
    name = "approved-forecast-tool",
    description = "The forecast for a city, once approved",
    channel = CityApproval
)]
pub struct ApprovedForecast;

impl ToolHandler for ApprovedForecast {
    type Input = City;
    type Output = PlainText;

    async fn run(&self, input: City) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("sunny in {}", input.city)))
    }
}

/// The forecaster whose lookups wait for an approval.
#[agent(
    name = "careful-forecaster",
    prompt = "../prompts/lookup.prompt.md",
    model = "anthropic/claude-sonnet-4-5",
    tools = [ApprovedForecast],
    thinking = "low",
)]
pub struct CarefulForecaster;

const THOUGHT: &str = "The user wants Oslo's weather; the forecast tool has it.";
const SIGNATURE: &str = "EqQBCkgIBhABGAIiQGs1c2lnbmVkLXRoaW5raW5n";

/// An application whose agents' model is `model` at a server of `kind` at `server`.
fn app(server: &WireServer, kind: &str, model: &str, store: Arc<dyn Store>) -> Application {
    let config = Config::from_toml(
        "reasoning.toml",
        &format!(
            r#"
            [agents.forecaster]
            model = "wire/{model}"
            [agents.careful-forecaster]
            model = "wire/{model}"

            [models.wire]
            kind = "{kind}"
            base_url = "{}"
            api_key_env = "WIRE_KEY"
            "#,
            server.base_url()
        ),
    );
    Application::builder("reasoning")
        .workflow(Workflow::new("weather").agent::<Forecaster>())
        .workflow(Workflow::new("careful").agent::<CarefulForecaster>())
        .channel::<Later>()
        .config(config)
        .store(store)
        .env(Env::from_pairs([("WIRE_KEY", "test-key")]))
        .build()
        .unwrap()
}

/// Runs the forecaster once, watched (its model streams) or awaited; the answer's text and
/// what the server was sent, each request refused by none of its rules.
async fn forecast(
    server: WireServer,
    kind: &str,
    model: &str,
    streamed: bool,
) -> (String, Vec<Recorded>) {
    let app = app(&server, kind, model, Arc::new(MemoryStore::new()));
    let run = app.run("weather", "What is the weather in Oslo?");
    let outcome = if streamed {
        run.stream().watch(|_| {}).await
    } else {
        run.await
    };
    let requests = server.requests();
    for request in &requests {
        assert_eq!(request.problems, Vec::<String>::new(), "{:#}", request.body);
    }
    let done = outcome
        .unwrap_or_else(|e| panic!("{e}: {requests:#?}"))
        .into_completed()
        .unwrap();
    (done.text().unwrap_or_default().to_owned(), requests)
}

/// An Anthropic message of `content` blocks.
fn anthropic(content: Value, stop: &str) -> Canned {
    Canned::json(
        200,
        json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
               "content": content, "stop_reason": stop,
               "usage": {"input_tokens": 50, "output_tokens": 30}})
        .to_string(),
    )
}

/// The thinking block the first answer starts with.
fn thinking_block() -> Value {
    json!({"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE})
}

/// The same first answer as Messages streams it: the thinking in two deltas and its signature,
/// then the call's input in pieces.
fn anthropic_streamed_call() -> Canned {
    let events = [
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "stop_reason": null, "usage": {"input_tokens": 50, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": &THOUGHT[..20]}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": &THOUGHT[20..]}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": SIGNATURE}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "forecast-tool", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"city\": "}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"Oslo\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}),
        json!({"type": "message_stop"}),
    ];
    let body: String = events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect();
    Canned::events(200, body)
}

fn anthropic_answer() -> Canned {
    anthropic(
        json!([{"type": "text", "text": "Sunny in Oslo."}]),
        "end_turn",
    )
}

/// The second request's assistant turn, as Messages got it.
fn calling_turn(request: &Recorded) -> &Value {
    &request.body["messages"][1]["content"]
}

#[test]
fn anthropic_thinking_blocks_go_back_with_the_calls_they_led_to() {
    for streamed in [false, true] {
        let call = if streamed {
            anthropic_streamed_call()
        } else {
            anthropic(
                json!([thinking_block(), {"type": "tool_use", "id": "toolu_01", "name": "forecast-tool", "input": {"city": "Oslo"}}]),
                "tool_use",
            )
        };
        let (text, requests) = run(async {
            let server = WireServer::start([call, anthropic_answer()]).await;
            forecast(server, "anthropic", "claude-sonnet-4-5", streamed).await
        });
        assert_eq!(text, "Sunny in Oslo.");
        assert_eq!(requests.len(), 2);
        // Thinking stays on for the loop's next request, the block first, as it came.
        assert_eq!(
            requests[1].body["thinking"]["type"], "enabled",
            "{streamed}"
        );
        assert_eq!(
            *calling_turn(&requests[1]),
            json!([thinking_block(), {"type": "tool_use", "id": "toolu_01", "name": "forecast-tool", "input": {"city": "Oslo"}}]),
            "streamed: {streamed}"
        );
    }
}

#[test]
fn gemini_3_thought_signatures_go_back_on_their_parts() {
    let call = |streamed: bool| {
        let chunk = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "forecast-tool", "args": {"city": "Oslo"}}, "thoughtSignature": SIGNATURE},
            {"functionCall": {"name": "forecast-tool", "args": {"city": "Bergen"}}},
        ]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 40, "candidatesTokenCount": 10, "thoughtsTokenCount": 20}});
        match streamed {
            true => Canned::events(200, format!("data: {chunk}\r\n\r\n")),
            false => Canned::json(200, chunk.to_string()),
        }
    };
    let answer = |streamed: bool| {
        // A stream sends the text's signature on a last, empty part.
        let (first, last) = (
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny in both."}]}, "index": 0}]}),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": "c2lnbmVkLXRleHQ="}]}, "finishReason": "STOP", "index": 0}],
                   "usageMetadata": {"promptTokenCount": 60, "candidatesTokenCount": 5}}),
        );
        match streamed {
            true => Canned::events(200, format!("data: {first}\r\n\r\ndata: {last}\r\n\r\n")),
            false => Canned::json(
                200,
                json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny in both.", "thoughtSignature": "c2lnbmVkLXRleHQ="}]}, "finishReason": "STOP", "index": 0}]})
                .to_string(),
            ),
        }
    };
    for streamed in [false, true] {
        let (text, requests) = run(async {
            let server = WireServer::start([call(streamed), answer(streamed)]).await;
            forecast(server, "gemini", "gemini-3-pro-preview", streamed).await
        });
        assert_eq!(text, "Sunny in both.");
        assert_eq!(requests.len(), 2);
        assert_eq!(
            requests[1].body["contents"][1]["parts"],
            json!([
                {"functionCall": {"name": "forecast-tool", "args": {"city": "Oslo"}}, "thoughtSignature": SIGNATURE},
                {"functionCall": {"name": "forecast-tool", "args": {"city": "Bergen"}}},
            ]),
            "streamed: {streamed}"
        );
    }
}

#[test]
fn kimi_reasoning_content_goes_back_within_the_loop() {
    let call = |streamed: bool| {
        let call = json!({"id": "call_0", "type": "function", "function": {"name": "forecast-tool", "arguments": "{\"city\": \"Oslo\"}"}});
        if !streamed {
            return Canned::json(
                200,
                json!({"id": "c", "object": "chat.completion", "created": 1, "model": "kimi-k2-thinking",
                       "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "",
                         "reasoning_content": THOUGHT, "tool_calls": [call]}}],
                       "usage": {"prompt_tokens": 50, "completion_tokens": 30}})
                .to_string(),
            );
        }
        let chunk = |delta: Value, finish: Value| {
            json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "kimi-k2-thinking",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        };
        let mut indexed = call.clone();
        indexed["index"] = json!(0);
        let chunks = [
            chunk(
                json!({"role": "assistant", "reasoning_content": &THOUGHT[..20]}),
                Value::Null,
            ),
            chunk(json!({"reasoning_content": &THOUGHT[20..]}), Value::Null),
            chunk(json!({"tool_calls": [indexed]}), Value::Null),
            chunk(json!({}), json!("tool_calls")),
        ];
        let mut body: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        body.push_str("data: [DONE]\n\n");
        Canned::events(200, body)
    };
    let answer = Canned::json(
        200,
        json!({"id": "c", "object": "chat.completion", "created": 1, "model": "kimi-k2-thinking",
               "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Sunny in Oslo.", "reasoning_content": "Done."}}],
               "usage": {"prompt_tokens": 60, "completion_tokens": 5}})
        .to_string(),
    );
    for streamed in [false, true] {
        let (text, requests) = run(async {
            let quirks = [Quirk::NeedsReasoningContent];
            let responses = [call(streamed), answer.clone()];
            let server = WireServer::start_with(Flavour::Api, &quirks, responses).await;
            forecast(server, "openai", "kimi-k2-thinking", streamed).await
        });
        assert_eq!(text, "Sunny in Oslo.");
        assert_eq!(requests.len(), 2, "streamed: {streamed}");
        assert_eq!(
            requests[1].body["messages"][2]["reasoning_content"],
            THOUGHT
        );
    }
}

/// The journal keeps the thinking with the turn: an application that resumes the run after an
/// approval (another one over the same store, as after a restart) sends it back.
#[test]
fn thinking_survives_a_pause_and_a_resume_elsewhere() {
    let call = anthropic(
        json!([thinking_block(), {"type": "tool_use", "id": "toolu_01", "name": "approved-forecast-tool", "input": {"city": "Oslo"}}]),
        "tool_use",
    );
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (done, requests) = run(async {
        let server = WireServer::start([call, anthropic_answer()]).await;
        let first = app(&server, "anthropic", "claude-sonnet-4-5", store.clone());
        let outcome = first
            .run("careful", "What is the weather in Oslo?")
            .thread("t-1")
            .owner("u-1")
            .await
            .unwrap();
        let RunOutcome::Paused(paused) = outcome else {
            panic!("it did not pause: {outcome:?}");
        };
        let pause_id = paused.pending[0].pause_id.clone();
        drop(first);
        let second = app(&server, "anthropic", "claude-sonnet-4-5", store.clone());
        let approved = ToolCallApprovalDecision::<City>::approve();
        let done =
            completed(second.resume(Resume::decision(pause_id, approved).answered_by("u-1"))).await;
        (done, server.requests())
    });
    assert_eq!(done.text(), Some("Sunny in Oslo."));
    assert_eq!(requests.len(), 2);
    let problems: Vec<String> = requests.iter().flat_map(|r| r.problems.clone()).collect();
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(calling_turn(&requests[1])[0], thinking_block());
    assert_eq!(requests[1].body["thinking"]["type"], "enabled");
    // What a request without the block would have been told, for the record.
    let mut stripped = requests[1].body.clone();
    stripped["messages"][1]["content"]
        .as_array_mut()
        .unwrap()
        .remove(0);
    let refused = wire_server::reasoning::anthropic(&stripped);
    assert_eq!(
        refused.iter().map(|p| dotted(&p.loc)).collect::<Vec<_>>(),
        ["messages.1.content.0.type"]
    );
}
