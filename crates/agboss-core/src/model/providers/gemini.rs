//! Gemini `generateContent` (`POST {base}/models/{model}:generateContent`).

use serde_json::{Map, Value, json};

use super::Dialect;
use super::http::KeyHeader;
use super::wire::{
    arguments_object, arguments_text, count, finish_with_calls, joined, malformed, model_segment,
    push_turn, sketch, thinking_budget,
};
use crate::model::Thinking;
use crate::model::{
    ChatRequest, ChatResponse, FinishReason, Message, ModelError, Reasoning, SignedPart, ToolCall,
    ToolChoice, Usage,
};

/// `generateContent`: the model in the path, the key in `x-goog-api-key`.
pub(super) static WIRE: Dialect = Dialect {
    path: |model| format!("/models/{}:generateContent", model_segment(model)),
    key_header: KeyHeader::Named("x-goog-api-key"),
    headers: &[],
    body: |request, _| request_body(request),
    parse: parse_response,
    stream: &super::stream::gemini::STREAMING,
};

/// The request body.
fn request_body(request: &ChatRequest) -> Value {
    let mut body = Map::new();
    if !request.system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": request.system}]}),
        );
    }
    body.insert("contents".into(), Value::Array(contents(&request.messages)));
    if !request.tools.is_empty() {
        let declarations: Vec<Value> = request.tools.iter().map(|tool| tool.to_gemini()).collect();
        body.insert(
            "tools".into(),
            json!([{"functionDeclarations": declarations}]),
        );
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": tool_choice(&request.tool_choice)}),
        );
    }
    let mut generation = Map::new();
    if let Some(max) = request.max_output_tokens {
        generation.insert("maxOutputTokens".into(), json!(max));
    }
    let budget = match request.thinking {
        Thinking::Off => Some(0),
        level => thinking_budget(level),
    };
    if let Some(budget) = budget {
        generation.insert("thinkingConfig".into(), json!({"thinkingBudget": budget}));
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Value::Object(body)
}

/// The conversation as contents: consecutive messages of one role go into one content, so that
/// every tool result of a turn is in one user content. A model turn's thought signatures go
/// back on the parts they came on.
fn contents(messages: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    for message in messages {
        let (role, parts) = match message {
            Message::User { text } => ("user", text_part(text).into_iter().collect()),
            Message::Assistant {
                text,
                tool_calls,
                reasoning,
            } => {
                let text = text.as_deref().and_then(text_part).map(|mut part| {
                    sign(&mut part, reasoning, SignedPart::Text);
                    part
                });
                let calls = tool_calls.iter().enumerate().map(|(at, call)| {
                    let mut part = json!({"functionCall": {"name": call.name, "args": arguments_object(&call.arguments)}});
                    sign(&mut part, reasoning, SignedPart::Call(at));
                    part
                });
                ("model", text.into_iter().chain(calls).collect::<Vec<_>>())
            }
            Message::Tool {
                name,
                content,
                is_error,
                ..
            } => {
                let response = if *is_error {
                    json!({"error": content})
                } else {
                    match serde_json::from_str::<Value>(content) {
                        Ok(object @ Value::Object(_)) => object,
                        _ => json!({"content": content}),
                    }
                };
                (
                    "user",
                    vec![json!({"functionResponse": {"name": name, "response": response}})],
                )
            }
        };
        push_turn(&mut out, role, "parts", parts);
    }
    out
}

/// Puts the thought signature that came on `signed` back on `part`, if one did.
fn sign(part: &mut Value, reasoning: &[Reasoning], signed: SignedPart) {
    let signature = reasoning.iter().find_map(|item| match item {
        Reasoning::ThoughtSignature { part, signature } if *part == signed => Some(signature),
        _ => None,
    });
    if let Some(signature) = signature {
        part["thoughtSignature"] = json!(signature);
    }
}

/// A text part; none for empty text, which the API refuses.
fn text_part(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"text": text}))
}

fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!({"mode": "AUTO"}),
        ToolChoice::Required => json!({"mode": "ANY"}),
        ToolChoice::None => json!({"mode": "NONE"}),
        ToolChoice::Tool(name) => json!({"mode": "ANY", "allowedFunctionNames": [name]}),
    }
}

/// The answer: the first candidate's text and function calls (thought parts left out), their
/// thought signatures as [`Reasoning`], the usage (thinking counted as output) and the finish
/// reason. A prompt the API blocked is a refused request that says why.
///
/// The text parts make one text; a signature on any of them (a stream sends it on the last,
/// which may be empty) is the text's.
fn parse_response(provider: &str, body: &Value) -> Result<ChatResponse, ModelError> {
    let Some(candidate) = body
        .get("candidates")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    else {
        return Err(no_candidate(provider, body));
    };
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array);
    let mut texts = Vec::new();
    let mut tool_calls = Vec::new();
    let mut reasoning = Vec::new();
    for part in parts.into_iter().flatten() {
        let signed = if let Some(call) = part.get("functionCall") {
            tool_calls.push(function_call(provider, call)?);
            SignedPart::Call(tool_calls.len() - 1)
        } else if part.get("thought").and_then(Value::as_bool) != Some(true) {
            texts.extend(part.get("text").and_then(Value::as_str));
            SignedPart::Text
        } else {
            continue;
        };
        if let Some(signature) = part.get("thoughtSignature").and_then(Value::as_str) {
            reasoning.retain(
                |item| !matches!(item, Reasoning::ThoughtSignature { part, .. } if *part == signed),
            );
            reasoning.push(Reasoning::ThoughtSignature {
                part: signed,
                signature: signature.to_owned(),
            });
        }
    }
    let finish = match candidate.get("finishReason").and_then(Value::as_str) {
        None | Some("STOP") => FinishReason::Stop,
        Some("MAX_TOKENS") => FinishReason::Length,
        Some(
            "SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY",
        ) => FinishReason::ContentFilter,
        Some(other) => FinishReason::Other(other.to_owned()),
    };
    let usage = body.get("usageMetadata");
    Ok(ChatResponse {
        text: joined(texts),
        finish: finish_with_calls(finish, !tool_calls.is_empty()),
        tool_calls,
        usage: Usage {
            input_tokens: count(usage, "promptTokenCount")
                + count(usage, "toolUsePromptTokenCount"),
            output_tokens: count(usage, "candidatesTokenCount")
                + count(usage, "thoughtsTokenCount"),
        },
        reasoning,
    })
}

/// Why there is no candidate: the prompt was blocked (a refused request), or the body is not
/// Gemini's format.
fn no_candidate(provider: &str, body: &Value) -> ModelError {
    let feedback = body.get("promptFeedback");
    match feedback
        .and_then(|f| f.get("blockReason"))
        .and_then(Value::as_str)
    {
        Some(reason) => {
            let detail = feedback
                .and_then(|f| f.get("blockReasonMessage"))
                .and_then(Value::as_str)
                .map(|m| format!(": {m}"))
                .unwrap_or_default();
            ModelError::BadRequest {
                provider: provider.to_owned(),
                status: 200,
                message: format!(
                    "the prompt was blocked ({reason}){detail}; change the prompt or the conversation"
                ),
                url: String::new(),
            }
        }
        None => malformed(provider, format!("no `candidates` in {}", sketch(body))),
    }
}

/// A `functionCall` part as a call with no id (Gemini gives none): its args written out as
/// JSON text.
fn function_call(provider: &str, call: &Value) -> Result<ToolCall, ModelError> {
    let Some(name) = call.get("name").and_then(Value::as_str) else {
        return Err(malformed(
            provider,
            format!("a functionCall has no name: {}", sketch(call)),
        ));
    };
    Ok(ToolCall {
        provider_id: None,
        name: name.to_owned(),
        arguments: arguments_text(call.get("args")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_one_path_segment() {
        assert_eq!(model_segment("gemini-2.5-flash"), "gemini-2.5-flash");
        assert_eq!(model_segment("models/gemini-2.5-pro"), "gemini-2.5-pro");
        assert_eq!(model_segment("a/b?c"), "a%2Fb%3Fc");
    }

    #[test]
    fn a_result_that_is_not_an_object_is_wrapped() {
        let result = |content: &str, is_error| Message::Tool {
            provider_id: None,
            name: "t".into(),
            content: content.into(),
            is_error,
        };
        let contents = contents(&[
            result("3 orders", false),
            result("[1,2]", false),
            result(r#"{"n":3}"#, true),
        ]);
        let responses: Vec<&Value> = contents[0]["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|part| &part["functionResponse"]["response"])
            .collect();
        assert_eq!(
            responses,
            [
                &json!({"content": "3 orders"}),
                &json!({"content": "[1,2]"}),
                &json!({"error": r#"{"n":3}"#})
            ]
        );
    }

    #[test]
    fn a_safety_stop_without_content_is_filtered_and_thoughts_are_not_text() {
        let body = json!({"candidates": [{"finishReason": "SAFETY"}]});
        let response = parse_response("google", &body).unwrap();
        assert_eq!(response.finish, FinishReason::ContentFilter);
        assert_eq!(response.text, None);

        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "pondering", "thought": true}, {"text": "answer"}]}, "finishReason": "STOP"}]});
        assert_eq!(
            parse_response("google", &body).unwrap().text.as_deref(),
            Some("answer")
        );
        assert!(matches!(
            parse_response("google", &json!({})),
            Err(ModelError::MalformedResponse { .. })
        ));
    }
    #[test]
    fn thought_signatures_go_back_on_the_parts_they_came_on() {
        // Two calls in parallel, the first signed; streamed text whose last piece is signed.
        let body = json!({"candidates": [{"content": {"role": "model", "parts": [
            {"text": "Checking "}, {"text": "both.", "thoughtSignature": "sig-text"},
            {"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "sig-a"},
            {"functionCall": {"name": "b", "args": {"x": 1}}},
        ]}, "finishReason": "STOP"}]});
        let response = parse_response("google", &body).unwrap();
        assert_eq!(response.text.as_deref(), Some("Checking both."));
        assert_eq!(
            response.reasoning,
            [
                Reasoning::ThoughtSignature {
                    part: SignedPart::Text,
                    signature: "sig-text".into()
                },
                Reasoning::ThoughtSignature {
                    part: SignedPart::Call(0),
                    signature: "sig-a".into()
                },
            ]
        );
        let mut reasoning = response.reasoning;
        // Another vendor's items are left out.
        reasoning.push(Reasoning::Thinking {
            text: "t".into(),
            signature: "anthropic's".into(),
        });
        let turn = Message::Assistant {
            text: response.text,
            tool_calls: response.tool_calls,
            reasoning,
        };
        assert_eq!(
            contents(&[turn])[0]["parts"],
            json!([
                {"text": "Checking both.", "thoughtSignature": "sig-text"},
                {"functionCall": {"name": "a", "args": {}}, "thoughtSignature": "sig-a"},
                {"functionCall": {"name": "b", "args": {"x": 1}}},
            ])
        );
    }
}
