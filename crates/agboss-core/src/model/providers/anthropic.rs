//! Anthropic Messages (`POST {base}/messages`).

use serde_json::{Map, Value, json};

use super::Dialect;
use super::http::KeyHeader;
use super::wire::{
    CallIds, arguments_object, arguments_text, count, finish_with_calls, joined, malformed,
    push_turn, sketch, thinking_budget as budget_of,
};
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, Message, ModelError, Reasoning, ToolCall, ToolChoice,
    Usage,
};

/// The answer's cap when the request sets none: the API requires one.
const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Messages: the key in `x-api-key`, the API's version in every request.
pub(super) static WIRE: Dialect = Dialect {
    path: |_| "/messages".into(),
    key_header: KeyHeader::Named("x-api-key"),
    headers: &[("anthropic-version", "2023-06-01")],
    body: |request, _| request_body(request),
    parse: parse_response,
    stream: &super::stream::anthropic::STREAMING,
};

/// The request body.
fn request_body(request: &ChatRequest) -> Value {
    let answer_cap = request
        .max_output_tokens
        .unwrap_or(DEFAULT_MAX_TOKENS)
        .max(1);
    let budget = thinking_budget(request);
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    // The thinking budget counts against max_tokens, which must exceed it.
    body.insert(
        "max_tokens".into(),
        json!(answer_cap.saturating_add(budget.unwrap_or(0))),
    );
    if !request.system.is_empty() {
        body.insert("system".into(), json!(request.system));
    }
    body.insert(
        "messages".into(),
        Value::Array(messages(&request.messages, budget.is_some())),
    );
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| tool.to_anthropic())
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(&request.tool_choice));
    }
    if let Some(budget) = budget {
        body.insert(
            "thinking".into(),
            json!({"type": "enabled", "budget_tokens": budget}),
        );
    }
    Value::Object(body)
}

/// The thinking budget, when the request asks for thinking and the API can take it.
///
/// Two cases go without, because the API refuses them with thinking on: a forced tool choice,
/// and a tool loop in progress (the latest assistant turn called tools and nothing the user
/// said came after it) whose turn has no thinking block to send back: one answered with
/// thinking off, or by another vendor's model before a fallback.
fn thinking_budget(request: &ChatRequest) -> Option<u32> {
    let budget = budget_of(request.thinking)?;
    let forced = !request.tools.is_empty()
        && matches!(
            request.tool_choice,
            ToolChoice::Required | ToolChoice::Tool(_)
        );
    let in_tool_loop = request
        .messages
        .iter()
        .rev()
        .find(|m| !matches!(m, Message::Tool { .. }))
        .is_some_and(|m| {
            matches!(m, Message::Assistant { tool_calls, reasoning, .. }
                if !tool_calls.is_empty() && !reasoning.iter().any(Reasoning::is_anthropic))
        });
    if forced || in_tool_loop {
        tracing::debug!(
            forced,
            in_tool_loop,
            "thinking left out of this Anthropic request"
        );
        return None;
    }
    Some(budget)
}

/// The conversation as Messages turns: consecutive messages of one role go into one turn, so
/// that every tool result of a turn is in one user message. With `thinking` on, an assistant
/// turn starts with its thinking blocks, as the API gave them; with it off they stay out.
fn messages(messages: &[Message], thinking: bool) -> Vec<Value> {
    let mut out = Vec::new();
    let mut ids = CallIds::default();
    for message in messages {
        let (role, blocks) = match message {
            Message::User { text } => ("user", text_block(text).into_iter().collect()),
            Message::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                let ids = ids.for_turn(tool_calls);
                let thoughts = reasoning
                    .iter()
                    .filter(|_| thinking)
                    .filter_map(thinking_block);
                let text = text.as_deref().and_then(text_block);
                let calls = tool_calls.iter().zip(ids).map(|(call, id)| {
                    json!({"type": "tool_use", "id": id, "name": call.name, "input": arguments_object(&call.arguments)})
                });
                let blocks = thoughts.chain(text).chain(calls).collect::<Vec<_>>();
                ("assistant", blocks)
            }
            Message::Tool {
                provider_id,
                name,
                content,
                is_error,
            } => (
                "user",
                vec![json!({
                    "type": "tool_result",
                    "tool_use_id": ids.for_result(provider_id.as_deref(), name),
                    "content": content,
                    "is_error": is_error,
                })],
            ),
        };
        push_turn(&mut out, role, "content", blocks);
    }
    out
}

/// A reasoning item as the block it was read from; none for another vendor's.
fn thinking_block(item: &Reasoning) -> Option<Value> {
    match item {
        Reasoning::Thinking { text, signature } => {
            Some(json!({"type": "thinking", "thinking": text, "signature": signature}))
        }
        Reasoning::RedactedThinking { data } => {
            Some(json!({"type": "redacted_thinking", "data": data}))
        }
        _ => None,
    }
}

/// A text block; none for empty text, which the API refuses.
fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"type": "auto"}),
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::None => json!({"type": "none"}),
        ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
    }
}

/// The answer: its text and tool-use blocks in order, its thinking blocks as [`Reasoning`], the
/// usage and the stop reason.
fn parse_response(provider: &str, body: &Value) -> Result<ChatResponse, ModelError> {
    let Some(content) = body.get("content").and_then(Value::as_array) else {
        return Err(malformed(
            provider,
            format!("no `content` list in {}", sketch(body)),
        ));
    };
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    let mut reasoning = Vec::new();
    for block in content {
        let field = |key| block.get(key).and_then(Value::as_str);
        match field("type") {
            Some("text") => texts.extend(field("text")),
            Some("tool_use") => tool_calls.push(tool_use(provider, block)?),
            Some("thinking") => reasoning.push(Reasoning::Thinking {
                text: field("thinking").unwrap_or_default().to_owned(),
                signature: field("signature").unwrap_or_default().to_owned(),
            }),
            Some("redacted_thinking") => reasoning.push(Reasoning::RedactedThinking {
                data: field("data").unwrap_or_default().to_owned(),
            }),
            _ => {}
        }
    }
    let finish = match body.get("stop_reason").and_then(Value::as_str) {
        None | Some("end_turn" | "stop_sequence") => FinishReason::Stop,
        Some("tool_use") => FinishReason::ToolCalls,
        Some("max_tokens") => FinishReason::Length,
        Some("refusal") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    };
    let usage = body.get("usage");
    Ok(ChatResponse {
        text: joined(texts),
        finish: finish_with_calls(finish, !tool_calls.is_empty()),
        tool_calls,
        usage: Usage {
            // Tokens read from or written to the prompt cache are read too.
            input_tokens: count(usage, "input_tokens")
                + count(usage, "cache_creation_input_tokens")
                + count(usage, "cache_read_input_tokens"),
            output_tokens: count(usage, "output_tokens"),
        },
        reasoning,
    })
}

/// A `tool_use` block as a call: its input written out as JSON text.
fn tool_use(provider: &str, block: &Value) -> Result<ToolCall, ModelError> {
    let Some(name) = block.get("name").and_then(Value::as_str) else {
        return Err(malformed(
            provider,
            format!("a tool_use block has no name: {}", sketch(block)),
        ));
    };
    Ok(ToolCall {
        provider_id: block.get("id").and_then(Value::as_str).map(str::to_owned),
        name: name.to_owned(),
        arguments: arguments_text(block.get("input")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Thinking;
    use crate::model::ToolDefinition;

    fn request(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            model: "claude-x".into(),
            system: String::new(),
            messages,
            tools: vec![ToolDefinition {
                name: "t".into(),
                description: "d".into(),
                input_schema: json!({"type": "object"}),
            }],
            tool_choice: ToolChoice::Auto,
            thinking: Thinking::Low,
            max_output_tokens: None,
        }
    }

    #[test]
    fn thinking_stays_out_of_forced_choices_and_of_a_tool_loop_without_its_blocks() {
        let call = ToolCall {
            provider_id: Some("toolu_1".into()),
            name: "t".into(),
            arguments: "{}".into(),
        };
        let asked = request(vec![Message::user("hi")]);
        assert_eq!(request_body(&asked)["thinking"]["budget_tokens"], 1024);
        assert_eq!(request_body(&asked)["max_tokens"], 4096 + 1024);

        let mut forced = asked.clone();
        forced.tool_choice = ToolChoice::Required;
        assert_eq!(request_body(&forced).get("thinking"), None);

        let looping = request(vec![
            Message::user("hi"),
            Message::Assistant {
                text: None,
                tool_calls: vec![call],
                reasoning: Vec::new(),
            },
            Message::Tool {
                provider_id: Some("toolu_1".into()),
                name: "t".into(),
                content: "ok".into(),
                is_error: false,
            },
        ]);
        assert_eq!(request_body(&looping).get("thinking"), None);
        let mut next_question = looping.clone();
        next_question.messages.push(Message::user("and now?"));
        assert_eq!(
            request_body(&next_question)["thinking"]["budget_tokens"],
            1024
        );

        // With the turn's thinking blocks kept, the loop goes on thinking, blocks first.
        let mut kept = looping.clone();
        let Message::Assistant { reasoning, .. } = &mut kept.messages[1] else {
            unreachable!()
        };
        reasoning.extend([
            Reasoning::Thinking {
                text: "look it up".into(),
                signature: "sig".into(),
            },
            Reasoning::RedactedThinking { data: "enc".into() },
            Reasoning::ReasoningContent {
                text: "not Anthropic's".into(),
            },
        ]);
        let body = request_body(&kept);
        assert_eq!(body["thinking"]["budget_tokens"], 1024);
        assert_eq!(
            body["messages"][1]["content"],
            json!([
                {"type": "thinking", "thinking": "look it up", "signature": "sig"},
                {"type": "redacted_thinking", "data": "enc"},
                {"type": "tool_use", "id": "toolu_1", "name": "t", "input": {}},
            ])
        );
        // Without thinking (a forced tool), the blocks stay out.
        kept.tool_choice = ToolChoice::Required;
        let body = request_body(&kept);
        assert_eq!(body.get("thinking"), None);
        assert_eq!(body["messages"][1]["content"][0]["type"], "tool_use");
    }

    #[test]
    fn keeps_thinking_blocks_apart_from_the_text_and_counts_cached_input() {
        let body = json!({
            "content": [
                {"type": "thinking", "thinking": "hm", "signature": "s"},
                {"type": "redacted_thinking", "data": "d"},
                {"type": "text", "text": "hi"},
            ],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 2, "output_tokens": 3}
        });
        let response = parse_response("anthropic", &body).unwrap();
        assert_eq!(response.text.as_deref(), Some("hi"));
        assert_eq!(
            response.reasoning,
            [
                Reasoning::Thinking {
                    text: "hm".into(),
                    signature: "s".into()
                },
                Reasoning::RedactedThinking { data: "d".into() },
            ]
        );
        assert_eq!(
            response.usage,
            Usage {
                input_tokens: 17,
                output_tokens: 3
            }
        );
        assert!(matches!(
            parse_response("anthropic", &json!({})),
            Err(ModelError::MalformedResponse { .. })
        ));
    }
}
