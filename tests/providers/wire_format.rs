//! What each provider sends: the key's header, where the system prompt goes, the roles of a
//! conversation with an assistant tool-call turn and its results, the tool declarations (each
//! API's lowering of the definitions) and the four tool choices.

use super::*;

/// Two tools, with what the lowerings drop or rewrite (`$schema`, `title`, a `null` union).
fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "lookup-customer-tool".into(),
            description: "Looks a customer up by id".into(),
            input_schema: json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "CustomerQuery",
                "type": "object",
                "properties": {"id": {"type": "string", "description": "the customer's id"}},
                "required": ["id"]
            }),
        },
        ToolDefinition {
            name: "list-orders-tool".into(),
            description: "Lists a customer's orders".into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "customer": {"type": "string"},
                    "limit": {"type": ["integer", "null"]}
                },
                "required": ["customer"]
            }),
        },
    ]
}

const QUESTION: &str = "When did order C-17 ship, and what else did they order?";
const FAILED: &str = "Tool error: the orders service did not answer within 10 s";

/// A tool loop in progress: a question, an assistant turn with text and two calls (with the ids
/// `ids`), and both results, the second a failure.
fn conversation(spec: Spec, ids: [Option<&str>; 2]) -> ChatRequest {
    ChatRequest {
        model: spec.model.into(),
        system: "You answer questions about orders.".into(),
        messages: vec![
            Message::user(QUESTION),
            Message::Assistant {
                text: Some("Let me look that up.".into()),
                tool_calls: vec![
                    call(ids[0], "lookup-customer-tool", r#"{"id":"C-17"}"#),
                    call(
                        ids[1],
                        "list-orders-tool",
                        r#"{"customer":"C-17","limit":5}"#,
                    ),
                ],
                reasoning: Vec::new(),
            },
            Message::Tool {
                provider_id: ids[0].map(Into::into),
                name: "lookup-customer-tool".into(),
                content: r#"{"name":"Ada"}"#.into(),
                is_error: false,
            },
            Message::Tool {
                provider_id: ids[1].map(Into::into),
                name: "list-orders-tool".into(),
                content: FAILED.into(),
                is_error: true,
            },
        ],
        tools: tools(),
        tool_choice: ToolChoice::Auto,
        thinking: Thinking::Medium,
        max_output_tokens: Some(1000),
    }
}

/// `body` without `key`, which the test checks apart.
fn without(body: &Value, key: &str) -> Value {
    let mut body = body.clone();
    if let Some(object) = body.as_object_mut() {
        object.remove(key);
    }
    body
}

/// The body of each request sent with `tool_choice` set to auto, required, none and one tool,
/// then of one without tools.
async fn bodies_per_tool_choice(spec: Spec) -> Vec<Value> {
    let choices = [
        ToolChoice::Auto,
        ToolChoice::Required,
        ToolChoice::None,
        ToolChoice::Tool("list-orders-tool".into()),
    ];
    let mut requests: Vec<ChatRequest> = choices
        .into_iter()
        .map(|choice| ChatRequest {
            tools: tools(),
            tool_choice: choice,
            ..spec.question()
        })
        .collect();
    requests.push(ChatRequest {
        tool_choice: ToolChoice::Required,
        ..spec.question()
    });
    bodies(spec, &requests).await
}

/// What `spec` sends for the tool choices auto, required, none and one tool (read at
/// `pointer`); a request without tools sends neither tools nor `field`.
async fn sent_choices(spec: Spec, pointer: &str, field: &str) -> Vec<Value> {
    let bodies = bodies_per_tool_choice(spec).await;
    assert_eq!(bodies[4].get("tools"), None);
    assert_eq!(bodies[4].get(field), None);
    bodies[..4]
        .iter()
        .map(|b| b.pointer(pointer).cloned().unwrap_or_default())
        .collect()
}

/// The tools as `lowering` writes them for an API.
fn lowered(lowering: fn(&ToolDefinition) -> Value) -> Value {
    json!(tools().iter().map(lowering).collect::<Vec<_>>())
}

#[test]
fn openai_sends_the_conversation_as_chat_messages() {
    run(async {
        let with_ids = conversation(OPENAI, [Some("call_A"), Some("call_B")]);
        // Calls that came from Gemini have no ids: made-up ones pair them with their results.
        let without_ids = conversation(OPENAI, [None, None]);
        let requests = sent(OPENAI, &[with_ids, without_ids]).await;
        let request = &requests[0];
        assert_eq!(request.path, "/chat/completions");
        assert_eq!(
            request.header("authorization"),
            Some(&*format!("Bearer {KEY}"))
        );
        assert_eq!(request.body["tools"], lowered(ToolDefinition::to_openai));
        let expected = |ids: [&str; 2]| {
            json!({
                "model": "gpt-5-mini",
                "messages": [
                    {"role": "system", "content": "You answer questions about orders."},
                    {"role": "user", "content": QUESTION},
                    {"role": "assistant", "content": "Let me look that up.", "tool_calls": [
                        {"id": ids[0], "type": "function",
                         "function": {"name": "lookup-customer-tool", "arguments": "{\"id\":\"C-17\"}"}},
                        {"id": ids[1], "type": "function",
                         "function": {"name": "list-orders-tool", "arguments": "{\"customer\":\"C-17\",\"limit\":5}"}},
                    ]},
                    {"role": "tool", "tool_call_id": ids[0], "content": "{\"name\":\"Ada\"}"},
                    {"role": "tool", "tool_call_id": ids[1], "content": FAILED},
                ],
                "tool_choice": "auto",
                "max_completion_tokens": 1000,
                "reasoning_effort": "medium",
            })
        };
        assert_eq!(
            without(&request.body, "tools"),
            expected(["call_A", "call_B"])
        );
        assert_eq!(
            without(&requests[1].body, "tools"),
            expected(["call_0", "call_1"])
        );
    });
}

/// An assistant turn with calls and no text: `content` is an empty string, never `null`, which
/// servers that type it as a string refuse (docs/decisions/0004).
#[test]
fn openai_sends_empty_content_beside_calls_without_text() {
    run(async {
        let mut request = conversation(OPENAI, [Some("call_A"), Some("call_B")]);
        if let Message::Assistant { text, .. } = &mut request.messages[1] {
            *text = None;
        }
        let requests = sent(OPENAI, &[request]).await;
        let assistant = &requests[0].body["messages"][2];
        assert_eq!(assistant["role"], "assistant");
        assert_eq!(assistant["content"], json!(""));
        assert_eq!(assistant["tool_calls"].as_array().map(Vec::len), Some(2));
        assert_eq!(requests[0].problems, Vec::<String>::new());
    });
}

#[test]
fn anthropic_sends_the_conversation_as_content_blocks() {
    run(async {
        let requests = sent(
            ANTHROPIC,
            &[conversation(ANTHROPIC, [Some("toolu_A"), Some("toolu_B")])],
        )
        .await;
        let request = &requests[0];
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
        assert_eq!(request.header("authorization"), None);
        assert_eq!(request.body["tools"], lowered(ToolDefinition::to_anthropic));
        // In a tool loop the API wants the turn's thinking blocks back, which the history does not
        // keep: thinking stays off, and max_tokens is the answer's cap alone.
        let expected = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1000,
            "system": "You answer questions about orders.",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": QUESTION}]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Let me look that up."},
                    {"type": "tool_use", "id": "toolu_A", "name": "lookup-customer-tool", "input": {"id": "C-17"}},
                    {"type": "tool_use", "id": "toolu_B", "name": "list-orders-tool",
                     "input": {"customer": "C-17", "limit": 5}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_A", "content": "{\"name\":\"Ada\"}", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "toolu_B", "content": FAILED, "is_error": true},
                ]},
            ],
            "tool_choice": {"type": "auto"},
        });
        assert_eq!(without(&request.body, "tools"), expected);
    });
}

#[test]
fn gemini_sends_the_conversation_as_contents() {
    run(async {
        let requests = sent(GEMINI, &[conversation(GEMINI, [None, None])]).await;
        let request = &requests[0];
        assert_eq!(request.path, "/models/gemini-2.5-flash:generateContent");
        assert_eq!(request.header("x-goog-api-key"), Some(KEY));
        assert_eq!(request.header("authorization"), None);
        assert_eq!(
            request.body["tools"],
            json!([{"functionDeclarations": lowered(ToolDefinition::to_gemini)}])
        );
        let expected = json!({
            "systemInstruction": {"parts": [{"text": "You answer questions about orders."}]},
            "contents": [
                {"role": "user", "parts": [{"text": QUESTION}]},
                {"role": "model", "parts": [
                    {"text": "Let me look that up."},
                    {"functionCall": {"name": "lookup-customer-tool", "args": {"id": "C-17"}}},
                    {"functionCall": {"name": "list-orders-tool", "args": {"customer": "C-17", "limit": 5}}},
                ]},
                {"role": "user", "parts": [
                    {"functionResponse": {"name": "lookup-customer-tool", "response": {"name": "Ada"}}},
                    {"functionResponse": {"name": "list-orders-tool", "response": {"error": FAILED}}},
                ]},
            ],
            "toolConfig": {"functionCallingConfig": {"mode": "AUTO"}},
            "generationConfig": {"maxOutputTokens": 1000, "thinkingConfig": {"thinkingBudget": 4096}},
        });
        assert_eq!(without(&request.body, "tools"), expected);
    });
}

#[test]
fn openai_maps_each_tool_choice() {
    run(async {
        assert_eq!(
            sent_choices(OPENAI, "/tool_choice", "tool_choice").await,
            [
                json!("auto"),
                json!("required"),
                json!("none"),
                json!({"type": "function", "function": {"name": "list-orders-tool"}}),
            ]
        );
    });
}

#[test]
fn anthropic_maps_each_tool_choice() {
    run(async {
        assert_eq!(
            sent_choices(ANTHROPIC, "/tool_choice", "tool_choice").await,
            [
                json!({"type": "auto"}),
                json!({"type": "any"}),
                json!({"type": "none"}),
                json!({"type": "tool", "name": "list-orders-tool"}),
            ]
        );
    });
}

#[test]
fn gemini_maps_each_tool_choice() {
    run(async {
        let pointer = "/toolConfig/functionCallingConfig";
        assert_eq!(
            sent_choices(GEMINI, pointer, "toolConfig").await,
            [
                json!({"mode": "AUTO"}),
                json!({"mode": "ANY"}),
                json!({"mode": "NONE"}),
                json!({"mode": "ANY", "allowedFunctionNames": ["list-orders-tool"]}),
            ]
        );
    });
}
