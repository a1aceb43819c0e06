//! What a failed status means, with the provider's own words for it.

use reqwest::StatusCode;
use serde_json::Value;

use super::{Answer, Client};
use crate::model::ModelError;

/// The error a failed answer (`attempt` being the number of attempts made) reports.
pub(super) fn map(client: &Client, url: &str, answer: &Answer, attempts: u32) -> ModelError {
    let provider = client.provider().to_owned();
    let status = answer.status.as_u16();
    let unauthorized = || ModelError::Unauthorized {
        provider: client.provider().to_owned(),
        status,
        key_env: client
            .settings
            .key_env
            .clone()
            .unwrap_or_else(|| "(none: no key is configured for this provider)".to_owned()),
    };
    match answer.status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => unauthorized(),
        // Gemini answers a key it does not know with 400 and this reason.
        StatusCode::BAD_REQUEST if key_invalid(&answer.body) => unauthorized(),
        StatusCode::TOO_MANY_REQUESTS => ModelError::RateLimited { provider, attempts },
        s if s.is_server_error() => ModelError::Server {
            provider,
            status,
            attempts,
            message: client.redact(&message(answer, url)),
        },
        s if s.is_redirection() => ModelError::BadRequest {
            provider,
            status,
            message: format!(
                "the API redirects POST {url} to {}: set base_url to the API's own address",
                answer.location.as_deref().unwrap_or("another address")
            ),
        },
        _ => ModelError::BadRequest {
            provider,
            status,
            message: client.redact(&message(answer, url)),
        },
    }
}

/// The provider's message for a failed answer, else the start of its body.
fn message(answer: &Answer, url: &str) -> String {
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
            format!("{reason} (POST {url}): check base_url and the model's name")
        }
        (true, _) => format!("{reason}, with an empty body"),
        (false, StatusCode::NOT_FOUND) => {
            format!("{text} (POST {url}): check base_url and the model's name")
        }
        (false, _) => text,
    }
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
