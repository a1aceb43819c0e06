//! What a failed status means, with the provider's own words for it.

use reqwest::StatusCode;
use serde_json::Value;

use super::{Answer, Client, Forced};

use crate::model::{ModelError, ToolChoiceFailure};

/// The error a failed answer (`attempt` being the number of attempts made) reports; `forced`
/// is the tool choice the request forced, if it forced one.
///
/// A 5xx whose body says the request itself is invalid ([`invalid_request`]) is a
/// [`ModelError::BadRequest`], which the client does not retry: such a request fails the same
/// way every time (llama-cpp-python answers its validation errors with a 500). Any other 500
/// to a request that forced a tool choice is a [`ModelError::ToolChoiceFailed`], which the
/// client tries once more only.
pub(super) fn map(
    client: &Client,
    url: &str,
    answer: &Answer,
    attempts: u32,
    forced: Option<Forced<'_>>,
) -> ModelError {
    let provider = client.provider().to_owned();
    let status = answer.status.as_u16();
    let url = url.to_owned();
    let unauthorized = |url: String| ModelError::Unauthorized {
        provider: client.provider().to_owned(),
        status,
        key_env: client
            .settings
            .key_env
            .clone()
            .unwrap_or_else(|| "(none: no key is configured for this provider)".to_owned()),
        url,
    };
    match answer.status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => unauthorized(url),
        // Gemini answers a key it does not know with 400 and this reason.
        StatusCode::BAD_REQUEST if key_invalid(&answer.body) => unauthorized(url),
        StatusCode::TOO_MANY_REQUESTS => ModelError::RateLimited {
            provider,
            attempts,
            url,
        },
        s if s.is_server_error() => match (invalid_request(&answer.body), forced) {
            (Some(first), _) => ModelError::BadRequest {
                provider,
                status,
                message: client.redact(&first),
                url,
            },
            (None, Some(forced)) if s == StatusCode::INTERNAL_SERVER_ERROR => {
                ModelError::ToolChoiceFailed(Box::new(ToolChoiceFailure {
                    provider,
                    status,
                    attempts,
                    choice: forced.choice.clone(),
                    message: client.redact(&said(answer)),
                    tool: forced.tool.map(str::to_owned),
                    url,
                }))
            }
            (None, _) => ModelError::Server {
                provider,
                status,
                attempts,
                message: client.redact(&message(answer)),
                url,
            },
        },
        s if s.is_redirection() => ModelError::BadRequest {
            provider,
            status,
            message: format!(
                "the API redirects to {}: set base_url to the API's own address",
                answer.location.as_deref().unwrap_or("another address")
            ),
            url,
        },
        _ => ModelError::BadRequest {
            provider,
            status,
            message: client.redact(&message(answer)),
            url,
        },
    }
}

/// The provider's message for a failed answer (the first of a list of validation errors), else
/// the start of its body.
fn message(answer: &Answer) -> String {
    if let Some(first) = invalid_request(&answer.body) {
        return first;
    }
    if let Some(message) = provider_message(&answer.body) {
        return snippet(&message, 1000);
    }
    let text = snippet(&String::from_utf8_lossy(&answer.body), 300);
    let reason = answer
        .status
        .canonical_reason()
        .unwrap_or("no reason given");
    match (text.is_empty(), answer.status) {
        (true, StatusCode::NOT_FOUND) => {
            format!("{reason}: check base_url and the model's name")
        }
        (true, _) => format!("{reason}, with an empty body"),
        (false, StatusCode::NOT_FOUND) => {
            format!("{text}: check base_url and the model's name")
        }
        (false, _) => text,
    }
}

/// What a failed answer said, on one line: the provider's message, else the start of a body
/// that is not JSON; empty when it said nothing (llama-cpp-python's `{"error": {"message": ""}}`).
fn said(answer: &Answer) -> String {
    if let Some(message) = provider_message(&answer.body) {
        return snippet(&message, 300);
    }
    match serde_json::from_slice::<Value>(&answer.body) {
        Ok(_) => String::new(),
        Err(_) => snippet(&String::from_utf8_lossy(&answer.body), 300),
    }
}

/// When `body` says the request itself is invalid, its first problem on one line
/// (`messages.2.content: Input should be a valid string`), with how many more it lists.
///
/// What counts: a list of validation errors, as FastAPI writes it (`{"detail": [{"loc", "msg"}]}`)
/// or as its message text (the Python form of that list, which llama-cpp-python's server puts in
/// `error.message` with a 500), or pydantic's own text (`2 validation errors for Request`); and
/// an error whose type or status says the request is invalid (`invalid_request_error`,
/// `validation_error`, `BadRequestError`, `INVALID_ARGUMENT`).
pub(super) fn invalid_request(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    if let Some(Value::Array(details)) = value.get("detail") {
        let problems: Vec<String> = details
            .iter()
            .filter_map(|d| {
                let msg = d.get("msg")?.as_str()?;
                let loc = d
                    .get("loc")
                    .and_then(Value::as_array)
                    .map_or_else(Vec::new, |loc| {
                        loc.iter()
                            .map(|step| match step {
                                Value::String(key) => key.clone(),
                                other => other.to_string(),
                            })
                            .collect()
                    });
                Some(located(&loc, msg))
            })
            .collect();
        return first_of(problems.len(), problems.into_iter().next());
    }
    let message = provider_message(body);
    if let Some(text) = &message {
        if let Some(found) = python_validation_errors(text) {
            return Some(found);
        }
        if let Some(found) = pydantic_validation_error(text) {
            return Some(found);
        }
    }
    let error = value.get("error");
    let says_invalid = ["type", "code", "status"].iter().any(|key| {
        error
            .and_then(|e| e.get(*key))
            .and_then(Value::as_str)
            .is_some_and(|kind| {
                matches!(
                    kind,
                    "invalid_request_error"
                        | "invalid_request"
                        | "validation_error"
                        | "BadRequestError"
                        | "INVALID_ARGUMENT"
                )
            })
    });
    says_invalid.then(|| snippet(message.as_deref().unwrap_or("the request is invalid"), 300))
}

/// `loc: msg`, the location without FastAPI's leading `body`.
fn located(loc: &[String], msg: &str) -> String {
    let loc: Vec<&str> = loc
        .iter()
        .map(String::as_str)
        .skip_while(|step| *step == "body")
        .collect();
    if loc.is_empty() {
        snippet(msg, 300)
    } else {
        snippet(&format!("{}: {msg}", loc.join(".")), 300)
    }
}

/// `first`, followed by how many more problems there are when `count` is more than one.
fn first_of(count: usize, first: Option<String>) -> Option<String> {
    let first = first?;
    Some(match count {
        0 | 1 => first,
        2 => format!("{first}, and 1 more problem"),
        n => format!("{first}, and {} more problems", n - 1),
    })
}

/// The first of a list of validation errors written as Python writes it:
/// `{'type': 'string_type', 'loc': ('body', 'messages', 2, 'content'), 'msg': 'Input should be a
/// valid string', 'input': None}`, one per error.
fn python_validation_errors(text: &str) -> Option<String> {
    const LOC: &str = "'loc': (";
    const MSG: &str = "'msg': ";
    let count = text.matches(LOC).count();
    let at = text.find(LOC)? + LOC.len();
    let rest = &text[at..];
    let loc_text = &rest[..rest.find(')')?];
    let loc: Vec<String> = loc_text
        .split(',')
        .map(|step| step.trim().trim_matches(['\'', '"']).to_owned())
        .filter(|step| !step.is_empty())
        .collect();
    let after = &rest[rest.find(MSG)? + MSG.len()..];
    let quote = after.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let mut msg = String::new();
    let mut chars = after[1..].chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => msg.extend(chars.next()),
            c if c == quote => return first_of(count, Some(located(&loc, &msg))),
            c => msg.push(c),
        }
    }
    None
}

/// The first error of pydantic's own text:
/// `2 validation errors for Request\nmessages.2.content\n  Input should be a valid string [type=..`.
fn pydantic_validation_error(text: &str) -> Option<String> {
    let mut lines = text.lines();
    let head = lines.next()?.trim();
    let (count, rest) = head.split_once(' ')?;
    let count: usize = count.parse().ok()?;
    if !(rest.starts_with("validation error for ") || rest.starts_with("validation errors for ")) {
        return None;
    }
    let loc = lines.next()?.trim();
    let msg = lines.next()?.trim();
    let msg = msg.split(" [type=").next().unwrap_or(msg);
    first_of(count, Some(located(&[loc.to_owned()], msg)))
}

/// The message in an error body: `{"error": {"message"}}` (OpenAI, Anthropic's
/// `{"type": "error", "error": {...}}`, Gemini), `{"error": "..."}` (Ollama, llama.cpp),
/// `{"message"}` or `{"detail"}` (vLLM).
fn provider_message(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    let error = value.get("error");
    error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| error.and_then(Value::as_str))
        .or_else(|| value.get("message").and_then(Value::as_str))
        .or_else(|| value.get("detail").and_then(Value::as_str))
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
}

/// Whether a Gemini error says the key is not valid.
fn key_invalid(body: &[u8]) -> bool {
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    value
        .pointer("/error/details")
        .and_then(Value::as_array)
        .is_some_and(|details| {
            details
                .iter()
                .any(|d| d.get("reason").and_then(Value::as_str) == Some("API_KEY_INVALID"))
        })
}

/// `text` on one line, cut to `max_chars` characters.
pub(super) fn snippet(text: &str, max_chars: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(max_chars) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_each_providers_message() {
        let openai =
            br#"{"error":{"message":"Invalid 'messages'","type":"invalid_request_error"}}"#;
        let anthropic = br#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: required"}}"#;
        let ollama = br#"{"error":"model 'llama9' not found"}"#;
        let vllm = br#"{"detail":"Not Found"}"#;
        assert_eq!(
            provider_message(openai).as_deref(),
            Some("Invalid 'messages'")
        );
        assert_eq!(
            provider_message(anthropic).as_deref(),
            Some("max_tokens: required")
        );
        assert_eq!(
            provider_message(ollama).as_deref(),
            Some("model 'llama9' not found")
        );
        assert_eq!(provider_message(vllm).as_deref(), Some("Not Found"));
        assert_eq!(provider_message(b"<html>502</html>"), None);
        assert_eq!(provider_message(br#"{"error":{"message":"  "}}"#), None);
    }

    #[test]
    fn finds_the_first_of_a_list_of_validation_errors() {
        // llama-cpp-python: FastAPI's errors in the message of a 500.
        let llama = br#"{"error": {"message": "2 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'messages', 2, 'content'), 'msg': 'Input should be a valid string', 'input': None}\n  {'type': 'missing', 'loc': ('body', 'model'), 'msg': \"Field 'model' required\", 'input': {}}\n", "type": "internal_server_error", "param": null, "code": null}}"#;
        assert_eq!(
            invalid_request(llama).as_deref(),
            Some("messages.2.content: Input should be a valid string, and 1 more problem")
        );
        // FastAPI's own 422.
        let fastapi = br#"{"detail": [{"type": "string_type", "loc": ["body", "messages", 0, "content"], "msg": "Input should be a valid string", "input": null}]}"#;
        assert_eq!(
            invalid_request(fastapi).as_deref(),
            Some("messages.0.content: Input should be a valid string")
        );
        // pydantic's text, and a double-quoted message.
        let pydantic = br#"{"error": "3 validation errors for ChatRequest\nmessages.1.role\n  Input should be 'user' [type=literal_error, input_value='bot', input_type=str]\n"}"#;
        assert_eq!(
            invalid_request(pydantic).as_deref(),
            Some("messages.1.role: Input should be 'user', and 2 more problems")
        );
        let quoted = br#"{"error": {"message": "[{'loc': ('body', 'tools', 0), 'msg': \"Value error, can't read it\"}]"}}"#;
        assert_eq!(
            invalid_request(quoted).as_deref(),
            Some("tools.0: Value error, can't read it")
        );
        // An error whose type says so.
        let typed = br#"{"error": {"message": "tool_choice names no tool", "type": "invalid_request_error"}}"#;
        assert_eq!(
            invalid_request(typed).as_deref(),
            Some("tool_choice names no tool")
        );
        // A server that failed is not one of them.
        let failed =
            br#"{"error": {"message": "The server had an error", "type": "server_error"}}"#;
        assert_eq!(invalid_request(failed), None);
        assert_eq!(invalid_request(b"<html>502 Bad Gateway</html>"), None);
    }

    #[test]
    fn cuts_long_text_on_a_character_boundary() {
        assert_eq!(snippet("a  b\n\tc", 10), "a b c");
        assert_eq!(snippet(&"é".repeat(400), 300).chars().count(), 301);
    }

    #[test]
    fn recognizes_geminis_invalid_key() {
        let body = br#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}"#;
        assert!(key_invalid(body));
        assert!(!key_invalid(br#"{"error":{"code":400,"message":"bad"}}"#));
    }
}
