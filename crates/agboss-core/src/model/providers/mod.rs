//! Model providers over HTTP: OpenAI-compatible Chat Completions (OpenAI, OpenRouter, vLLM,
//! Ollama, llama.cpp's server), Anthropic Messages, Gemini `generateContent`; each answers
//! whole or streamed over server-sent events
//! ([`chat_streaming`](super::ChatModel::chat_streaming), docs/streaming.md).
//!
//! Every provider: reads its key from the environment variable its settings NAME (never logs
//! it), times requests out on the application's [`Clock`], retries 429 and 5xx with backoff
//! (honouring `Retry-After`), maps 401/403 to an error naming the variable, 400 to the
//! provider's own message, and a body that is not its format to
//! [`ModelError::MalformedResponse`]. Tool schemas go
//! out through the per-provider lowering of [`ToolDefinition`](crate::model::ToolDefinition).

#[cfg(feature = "anthropic")]
mod anthropic;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod chat;
#[cfg(feature = "gemini")]
mod gemini;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub(crate) mod http;
#[cfg(feature = "openai")]
mod openai;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod stream;
#[cfg(feature = "openai")]
mod strict;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
mod wire;

use std::sync::Arc;

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
use serde_json::Value;

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
use super::ChatResponse;
use super::{ChatFuture, ChatModel, ChatRequest, ModelError};
use crate::base::Env;
use crate::context::Signal;
pub use crate::model::WireFormat;
use crate::time::Clock;
use crate::units::{TimeSpan, millis, seconds};
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
use chat::HttpChat;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
use http::KeyHeader;

/// How a failed request is retried: 429 and 5xx, up to `max_attempts` in all, waiting
/// `first_backoff` then doubling up to `max_backoff`, or what the API's `Retry-After` says
/// (capped at `max_backoff`). Waits run on the application's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included.
    pub max_attempts: u32,
    /// The first wait.
    pub first_backoff: TimeSpan,
    /// The longest wait.
    pub max_backoff: TimeSpan,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: 4,
            first_backoff: millis(500),
            max_backoff: seconds(30),
        }
    }
}

/// Where a provider is and how to talk to it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProviderSettings {
    /// Its name in errors and configuration: `openai`, `anthropic`, `google`, `openrouter`,
    /// `local`...
    pub name: String,
    /// Its wire format.
    pub kind: WireFormat,
    /// The API's base URL, such as `https://api.openai.com/v1`.
    pub base_url: String,
    /// The NAME of the environment variable holding its key; `None` for servers without keys.
    pub key_env: Option<String>,
    /// How long one call may take: every attempt and every wait between attempts.
    pub request_timeout: TimeSpan,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
    /// Whether OpenAI-format tools go out in strict mode (`"strict": true`, their schemas
    /// lowered to what it accepts); `None` leaves it to
    /// [`sends_strict_tools`](Self::sends_strict_tools): on for OpenAI's own API only. The other
    /// wire formats ignore it.
    pub strict_tools: Option<bool>,
}

impl ProviderSettings {
    /// OpenAI's API, key in `OPENAI_API_KEY`.
    pub fn openai() -> ProviderSettings {
        ProviderSettings::new(
            "openai",
            WireFormat::OpenAi,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
        )
    }

    /// OpenRouter, key in `OPENROUTER_API_KEY`; model ids go whole (`moonshotai/kimi-k2.6`).
    pub fn openrouter() -> ProviderSettings {
        ProviderSettings::new(
            "openrouter",
            WireFormat::OpenAi,
            "https://openrouter.ai/api/v1",
            Some("OPENROUTER_API_KEY"),
        )
    }

    /// Anthropic's API, key in `ANTHROPIC_API_KEY`.
    pub fn anthropic() -> ProviderSettings {
        ProviderSettings::new(
            "anthropic",
            WireFormat::Anthropic,
            "https://api.anthropic.com/v1",
            Some("ANTHROPIC_API_KEY"),
        )
    }

    /// Gemini's API, key in `GEMINI_API_KEY`.
    pub fn gemini() -> ProviderSettings {
        ProviderSettings::new(
            "google",
            WireFormat::Gemini,
            "https://generativelanguage.googleapis.com/v1beta",
            Some("GEMINI_API_KEY"),
        )
    }

    /// A provider named `name` speaking `kind` at `base_url`, its key in `key_env`.
    pub fn new(
        name: &str,
        kind: WireFormat,
        base_url: &str,
        key_env: Option<&str>,
    ) -> ProviderSettings {
        ProviderSettings {
            name: name.into(),
            kind,
            base_url: base_url.trim_end_matches('/').into(),
            key_env: key_env.map(Into::into),
            request_timeout: seconds(120),
            retry: RetryPolicy::default(),
            strict_tools: None,
        }
    }

    /// The same settings with tools sent in OpenAI's strict mode (`true`) or not (`false`),
    /// whatever the base URL.
    pub fn with_strict_tools(mut self, strict: bool) -> ProviderSettings {
        self.strict_tools = Some(strict);
        self
    }

    /// Whether tools go out in OpenAI's strict mode: as [`strict_tools`](Self::strict_tools)
    /// says, else only for the OpenAI wire format at `api.openai.com`, whose tool-calling
    /// models take it. Compatible servers (OpenRouter, vLLM, Ollama, llama.cpp) differ in what
    /// they make of it, so they get it only when asked.
    ///
    /// ```
    /// use agboss_core::model::providers::{ProviderSettings, WireFormat};
    ///
    /// assert!(ProviderSettings::openai().sends_strict_tools());
    /// let local = ProviderSettings::new("local", WireFormat::OpenAi, "http://127.0.0.1:8080/v1", None);
    /// assert!(!local.sends_strict_tools());
    /// assert!(local.with_strict_tools(true).sends_strict_tools());
    /// ```
    pub fn sends_strict_tools(&self) -> bool {
        self.strict_tools.unwrap_or_else(|| {
            let host = self.base_url.split_once("://").map_or("", |(_, rest)| rest);
            let host = host.split(['/', ':']).next().unwrap_or_default();
            self.kind == WireFormat::OpenAi && host.eq_ignore_ascii_case("api.openai.com")
        })
    }
}

/// The provider `settings` describe, reading its key from `env` now (a missing key is the error
/// of its first call, so that assembly and `describe` never need keys). A wire format whose
/// feature this build leaves out gives a model whose every call says which feature to enable.
///
/// Anthropic's base URL may be given with or without its `/v1` (`https://api.anthropic.com`,
/// a proxy's root): requests go to `<base>/v1/messages` either way.
pub fn connect(mut settings: ProviderSettings, env: &Env, clock: Clock) -> Arc<dyn ChatModel> {
    settings.base_url = normalized_base_url(settings.kind, &settings.base_url);
    #[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
    if let Some(wire) = dialect(settings.kind) {
        let key = settings.key_env.as_deref().and_then(|name| env.get(name));
        let options = BodyOptions {
            strict_tools: settings.sends_strict_tools(),
        };
        return Arc::new(HttpChat::new(
            http::Client::new(settings, key, clock),
            wire,
            options,
        ));
    }
    let _ = (env, clock);
    Arc::new(Unavailable {
        kind: settings.kind,
        settings,
    })
}

/// `base_url` without a trailing `/`, and for Anthropic with the `/v1` its paths hang under.
pub(crate) fn normalized_base_url(kind: WireFormat, base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    match kind {
        WireFormat::Anthropic if !base.is_empty() && !base.ends_with("/v1") => format!("{base}/v1"),
        _ => base.to_owned(),
    }
}

/// The dialect of `kind`, if this build has it.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
fn dialect(kind: WireFormat) -> Option<&'static Dialect> {
    match kind {
        #[cfg(feature = "openai")]
        WireFormat::OpenAi => Some(&openai::WIRE),
        #[cfg(feature = "anthropic")]
        WireFormat::Anthropic => Some(&anthropic::WIRE),
        #[cfg(feature = "gemini")]
        WireFormat::Gemini => Some(&gemini::WIRE),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// A provider whose wire format this build leaves out: every call fails, naming the feature.
#[derive(Debug)]
struct Unavailable {
    kind: WireFormat,
    settings: ProviderSettings,
}

impl ChatModel for Unavailable {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _signal: &'a Signal) -> ChatFuture<'a> {
        let feature = match self.kind {
            WireFormat::OpenAi => "openai",
            WireFormat::Anthropic => "anthropic",
            WireFormat::Gemini => "gemini",
        };
        let error = ModelError::NoRoute {
            model: request.model.clone(),
            reason: format!(
                "provider `{}` speaks the {feature} wire format, which this build of agboss leaves out: enable the `{feature}` feature",
                self.settings.name
            ),
        };
        Box::pin(std::future::ready(Err(error)))
    }
}

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
/// What sets one API apart: where a request goes, where its key goes, and how a request is
/// written and an answer read.
#[derive(Debug)]
struct Dialect {
    /// The path after the base URL for a model: `/chat/completions`.
    path: fn(model: &str) -> String,
    /// Where the key goes.
    key_header: KeyHeader,
    /// Headers every request carries (`anthropic-version`).
    headers: &'static [(&'static str, &'static str)],
    /// The request's body.
    body: fn(&ChatRequest, BodyOptions) -> Value,
    /// The answer, from the JSON of a successful response; errors name `provider`.
    parse: fn(provider: &str, answer: &Value) -> Result<ChatResponse, ModelError>,
    /// How it streams an answer.
    stream: &'static stream::Streaming,
}

#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
/// What a request's body depends on besides the request: the provider's settings.
#[derive(Clone, Copy, Debug)]
struct BodyOptions {
    /// Tools in OpenAI's strict mode.
    #[cfg_attr(not(feature = "openai"), allow(dead_code))]
    strict_tools: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_vendor_has_its_key_variable_a_120_s_timeout_and_four_attempts() {
        let keys: Vec<_> = [
            ProviderSettings::openai(),
            ProviderSettings::anthropic(),
            ProviderSettings::gemini(),
            ProviderSettings::openrouter(),
        ]
        .into_iter()
        .map(|s| {
            assert_eq!(s.request_timeout, seconds(120), "{}", s.name);
            assert_eq!(s.retry, RetryPolicy::default(), "{}", s.name);
            (s.name, s.key_env.unwrap_or_default())
        })
        .collect();
        assert_eq!(
            keys,
            [
                ("openai".into(), "OPENAI_API_KEY".into()),
                ("anthropic".into(), "ANTHROPIC_API_KEY".into()),
                ("google".into(), "GEMINI_API_KEY".into()),
                ("openrouter".into(), "OPENROUTER_API_KEY".into()),
            ]
        );
        assert_eq!(
            RetryPolicy::default(),
            RetryPolicy {
                max_attempts: 4,
                first_backoff: millis(500),
                max_backoff: seconds(30),
            }
        );
        let local = ProviderSettings::new("local", WireFormat::OpenAi, "http://h:8080/v1/", None);
        assert_eq!(local.base_url, "http://h:8080/v1");
    }
}
