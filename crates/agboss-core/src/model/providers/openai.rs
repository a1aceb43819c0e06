//! OpenAI Chat Completions (`POST {base}/chat/completions`), which OpenRouter, vLLM, Ollama and
//! llama.cpp's server speak too.

use serde_json::{Map, Value, json};

use super::http::KeyHeader;
use super::strict::strict_schema;
use super::wire::{CallIds, arguments_text, count, finish_with_calls, joined, malformed, sketch};
use super::{BodyOptions, Dialect};
use crate::model::Thinking;
use crate::model::ToolDefinition;
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, Message, ModelError, Reasoning, ToolCall, ToolChoice,
    Usage,
};

/// Chat Completions: the key as a bearer token.
pub(super) static WIRE: Dialect = Dialect {
    path: |_| "/chat/completions".into(),
    key_header: KeyHeader::Bearer,
    headers: &[],
    body: request_body,
    parse: parse_response,
    stream: &super::stream::openai::STREAMING,
};

/// The request body.
fn request_body(request: &ChatRequest, options: BodyOptions) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(request.model));
    body.insert("messages".into(), Value::Array(messages(request)));
    if !request.tools.is_empty() {
        let tools = request
            .tools
            .iter()
            .map(|tool| declaration(tool, options.strict_tools))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        body.insert("tool_choice".into(), tool_choice(&request.tool_choice));
    }
    if let Some(max) = request.max_output_tokens {
        body.insert("max_completion_tokens".into(), json!(max));
    }
    let effort = match request.thinking {
        Thinking::Low => Some("low"),
        Thinking::Medium => Some("medium"),
        Thinking::High => Some("high"),
        Thinking::Default | Thinking::Off => None,
    };
    if let Some(effort) = effort {
        body.insert("reasoning_effort".into(), json!(effort));
    }
    Value::Object(body)
}

/// One `tools[]` entry; in strict mode with `"strict": true` and its parameters lowered to
/// what strict mode accepts, unless they have no such form (a map with arbitrary keys, say):
/// then as without strict mode.
fn declaration(tool: &ToolDefinition, strict: bool) -> Value {
    let mut wire = tool.to_openai();
    if !strict {
        return wire;
    }
    match strict_schema(&wire["function"]["parameters"]) {
        Ok(parameters) => {
            wire["function"]["parameters"] = parameters;
            wire["function"]["strict"] = json!(true);
        }
        Err(why) => tracing::debug!(
            tool = %tool.name,
            %why,
            "tool sent without strict mode: its schema has no strict form"
        ),
    }
    wire
}

/// The system prompt, then the conversation, one wire message per message. The assistant
/// turns of the tool loop in progress (after the last user message) carry their
/// `reasoning_content` back, as the servers of reasoning models that send it want (Kimi's, and
/// DeepSeek's in thinking mode); earlier turns go without, as those servers ask.
fn messages(request: &ChatRequest) -> Vec<Value> {
    let mut out = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        out.push(json!({"role": "system", "content": request.system}));
    }
    let mut ids = CallIds::default();
    let loop_starts = request
        .messages
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .map_or(0, |at| at + 1);
    for (at, message) in request.messages.iter().enumerate() {
        out.push(match message {
            Message::User { text } => json!({"role": "user", "content": text}),
            Message::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                let ids = ids.for_turn(tool_calls);
                // Always a string, empty when the model wrote no text: the API lets `content`
                // be null beside tool calls, but servers that type it as a string (llama-cpp-python
                // refuses null with a 500) all take "" (docs/decisions/0004).
                let content = json!(text.as_deref().unwrap_or_default());
                let mut wire = Map::new();
                wire.insert("role".into(), json!("assistant"));
                wire.insert("content".into(), content);
                let said = reasoning.iter().find_map(|item| match item {
                    Reasoning::ReasoningContent { text } => Some(text),
                    _ => None,
                });
                if let Some(said) = said.filter(|_| at >= loop_starts) {
                    wire.insert("reasoning_content".into(), json!(said));
                }
                if !tool_calls.is_empty() {
                    let calls = tool_calls
                        .iter()
                        .zip(ids)
                        .map(|(call, id)| {
                            json!({
                                "id": id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": call.arguments},
                            })
                        })
                        .collect();
                    wire.insert("tool_calls".into(), Value::Array(calls));
                }
                Value::Object(wire)
            }
            Message::Tool {
                provider_id,
                name,
                content,
                is_error: _,
            } => json!({
                "role": "tool",
                "tool_call_id": ids.for_result(provider_id.as_deref(), name),
                "content": content,
            }),
        });
    }
    out
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::Required => json!("required"),
        ToolChoice::None => json!("none"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

/// The answer: the first choice's message, the usage and the finish reason.
fn parse_response(provider: &str, body: &Value) -> Result<ChatResponse, ModelError> {
    let Some(choice) = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        let detail = match body.pointer("/error/message").and_then(Value::as_str) {
            Some(message) => format!("no `choices`; the API says: {message}"),
            None => format!("no `choices` in {}", sketch(body)),
        };
        return Err(malformed(provider, detail));
    };
    let Some(message) = choice.get("message").filter(|m| m.is_object()) else {
        return Err(malformed(
            provider,
            format!("the choice has no `message`: {}", sketch(choice)),
        ));
    };
    let tool_calls = match message.get("tool_calls") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(calls)) => calls
            .iter()
            .map(|call| tool_call(provider, call))
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(malformed(
                provider,
                format!("`tool_calls` is not a list: {}", sketch(other)),
            ));
        }
    };
    let text = text(message.get("content")).or_else(|| text(message.get("refusal")));
    let reasoning = message
        .get("reasoning_content")
        .and_then(Value::as_str)
        .filter(|said| !said.is_empty())
        .map(|said| Reasoning::ReasoningContent {
            text: said.to_owned(),
        });
    let finish = match choice.get("finish_reason").and_then(Value::as_str) {
        None | Some("stop") => FinishReason::Stop,
        Some("tool_calls" | "function_call") => FinishReason::ToolCalls,
        Some("length") => FinishReason::Length,
        Some("content_filter") => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    };
    let usage = body.get("usage");
    Ok(ChatResponse {
        text,
        finish: finish_with_calls(finish, !tool_calls.is_empty()),
        tool_calls,
        usage: Usage {
            input_tokens: count(usage, "prompt_tokens"),
            output_tokens: count(usage, "completion_tokens"),
        },
        reasoning: reasoning.into_iter().collect(),
    })
}

/// `content` as text: a string, or (some compatible servers) a list of text parts.
fn text(content: Option<&Value>) -> Option<String> {
    match content? {
        Value::String(text) => joined(vec![text]),
        Value::Array(parts) => joined(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// One `tool_calls[]` entry. The arguments stay the text the model wrote; a server that sends
/// them as an object gets them written out as JSON.
fn tool_call(provider: &str, call: &Value) -> Result<ToolCall, ModelError> {
    let function = call.get("function");
    let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str) else {
        return Err(malformed(
            provider,
            format!("a tool call has no function name: {}", sketch(call)),
        ));
    };
    Ok(ToolCall {
        provider_id: call.get("id").and_then(Value::as_str).map(str::to_owned),
        name: name.to_owned(),
        arguments: arguments_text(function.and_then(|f| f.get("arguments"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_without_choices_is_malformed_and_quotes_the_api() {
        let error = parse_response(
            "openrouter",
            &json!({"error": {"message": "upstream failed"}}),
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "openrouter answered with a body that is not its format: no `choices`; the API says: upstream failed"
        );
        assert!(matches!(
            parse_response("x", &json!({"choices": []})),
            Err(ModelError::MalformedResponse { .. })
        ));
        assert!(matches!(
            parse_response(
                "x",
                &json!({"choices": [{"message": {"tool_calls": [{"function": {}}]}}]})
            ),
            Err(ModelError::MalformedResponse { .. })
        ));
    }

    #[test]
    fn lenient_where_compatible_servers_differ() {
        let body = json!({"choices": [{
            "message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                        "tool_calls": [{"function": {"name": "t", "arguments": {"q": 1}}}]},
            "finish_reason": "stop"
        }]});
        let response = parse_response("ollama", &body).unwrap();
        assert_eq!(response.text.as_deref(), Some("ab"));
        assert_eq!(response.tool_calls[0].arguments, r#"{"q":1}"#);
        assert_eq!(response.tool_calls[0].provider_id, None);
        assert_eq!(response.finish, FinishReason::ToolCalls);
        assert_eq!(response.usage, Usage::default());
    }

    #[test]
    fn reasoning_content_goes_back_within_the_tool_loop_only() {
        let body = json!({"choices": [{
            "message": {"content": null, "reasoning_content": "Need the weather.",
                        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
            "finish_reason": "tool_calls"
        }]});
        let response = parse_response("kimi", &body).unwrap();
        let thought = Reasoning::ReasoningContent {
            text: "Need the weather.".into(),
        };
        assert_eq!(response.reasoning, std::slice::from_ref(&thought));
        let turn = |reasoning| Message::Assistant {
            text: None,
            tool_calls: response.tool_calls.clone(),
            reasoning,
        };
        let result = Message::Tool {
            provider_id: Some("c1".into()),
            name: "t".into(),
            content: "sunny".into(),
            is_error: false,
        };
        let mut request = ChatRequest {
            model: "kimi-k2".into(),
            system: String::new(),
            messages: vec![
                Message::user("weather?"),
                turn(vec![thought.clone()]),
                result.clone(),
            ],
            tools: Vec::new(),
            tool_choice: ToolChoice::Auto,
            thinking: Thinking::Default,
            max_output_tokens: None,
        };
        assert_eq!(
            messages(&request)[1]["reasoning_content"],
            "Need the weather."
        );
        // Once the user speaks again, the earlier loop's reasoning stays out.
        request.messages.push(Message::user("and tomorrow?"));
        assert_eq!(messages(&request)[1].get("reasoning_content"), None);
    }
}
