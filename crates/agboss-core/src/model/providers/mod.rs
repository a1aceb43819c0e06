//! Model providers over HTTP: OpenAI-compatible Chat Completions (OpenAI, OpenRouter, vLLM,
//! Ollama, llama.cpp's server), Anthropic Messages, Gemini `generateContent`.
//!
//! Every provider: reads its key from the environment variable its settings NAME (never logs
//! it), times requests out on the application's [`Clock`], retries 429 and 5xx with backoff
//! (honouring `Retry-After`), maps 401/403 to an error naming the variable, 400 to the
//! provider's own message, and a body that is not its format to
//! [`ModelError::MalformedResponse`](super::ModelError::MalformedResponse). Tool schemas go
//! out through the per-provider lowering of [`ToolDefinition`](crate::tool::ToolDefinition).

mod anthropic;
mod gemini;
pub(crate) mod http;
mod openai;
mod wire;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::ChatModel;
use crate::app::Env;
use crate::time::Clock;
use crate::units::{TimeSpan, millis, seconds};

/// The wire format a provider speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// OpenAI Chat Completions, and every server compatible with it.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Gemini `generateContent`.
    Gemini,
}

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
    pub kind: ProviderKind,
    /// The API's base URL, such as `https://api.openai.com/v1`.
    pub base_url: String,
    /// The NAME of the environment variable holding its key; `None` for servers without keys.
    pub key_env: Option<String>,
    /// How long one call may take: every attempt and every wait between attempts.
    pub request_timeout: TimeSpan,
    /// How failed requests are retried.
    pub retry: RetryPolicy,
}

impl ProviderSettings {
    /// OpenAI's API, key in `OPENAI_API_KEY`.
    pub fn openai() -> ProviderSettings {
        ProviderSettings::new(
            "openai",
            ProviderKind::OpenAi,
            "https://api.openai.com/v1",
            Some("OPENAI_API_KEY"),
        )
    }

    /// OpenRouter, key in `OPENROUTER_API_KEY`; model ids go whole (`moonshotai/kimi-k2.6`).
    pub fn openrouter() -> ProviderSettings {
        ProviderSettings::new(
            "openrouter",
            ProviderKind::OpenAi,
            "https://openrouter.ai/api/v1",
            Some("OPENROUTER_API_KEY"),
        )
    }

    /// Anthropic's API, key in `ANTHROPIC_API_KEY`.
    pub fn anthropic() -> ProviderSettings {
        ProviderSettings::new(
            "anthropic",
            ProviderKind::Anthropic,
            "https://api.anthropic.com/v1",
            Some("ANTHROPIC_API_KEY"),
        )
    }

    /// Gemini's API, key in `GEMINI_API_KEY`.
    pub fn gemini() -> ProviderSettings {
        ProviderSettings::new(
            "google",
            ProviderKind::Gemini,
            "https://generativelanguage.googleapis.com/v1beta",
            Some("GEMINI_API_KEY"),
        )
    }

    /// A provider named `name` speaking `kind` at `base_url`, its key in `key_env`.
    pub fn new(
        name: &str,
        kind: ProviderKind,
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
        }
    }
}

/// The provider `settings` describe, reading its key from `env` now (a missing key is the error
/// of its first call, so that assembly and `describe` never need keys).
pub fn connect(settings: ProviderSettings, env: &Env, clock: Clock) -> Arc<dyn ChatModel> {
    let key = settings.key_env.as_deref().and_then(|name| env.get(name));
    let client = http::Client::new(settings, key, clock);
    match client.settings().kind {
        ProviderKind::OpenAi => Arc::new(openai::OpenAiChat::new(client)),
        ProviderKind::Anthropic => Arc::new(anthropic::AnthropicChat::new(client)),
        ProviderKind::Gemini => Arc::new(gemini::GeminiChat::new(client)),
    }
}

static FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Forbids (or allows again) every real model request in this process: each fails with
/// [`ModelError::Forbidden`](super::ModelError::Forbidden). Tests call it so that a forgotten
/// scripted model never reaches an API. The variable `AGBOSS_FORBID_REAL_MODELS=1` does the
/// same for a whole test run.
pub fn forbid_real_requests(forbidden: bool) {
    FORBIDDEN.store(forbidden, Ordering::SeqCst);
}

/// Whether real model requests are forbidden now.
pub fn real_requests_forbidden() -> bool {
    FORBIDDEN.load(Ordering::SeqCst)
        || std::env::var("AGBOSS_FORBID_REAL_MODELS").is_ok_and(|v| v == "1" || v == "true")
}
