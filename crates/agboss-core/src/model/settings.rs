//! [`ModelSettings`]: how a configuration file describes a model provider, read by the
//! [`ModelRouter`](super::ModelRouter).

use std::collections::BTreeMap;

use serde::Deserialize;

/// A model provider's settings: where it is and which variable holds its key.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The wire format: `openai` (and every compatible server), `anthropic` or `gemini`.
    /// Defaults to the section's own name for `openai`, `anthropic`, `google`, `openrouter`.
    pub kind: Option<String>,
    /// The vendors (the part of a model id before `/`) routed here; defaults to the section's
    /// name (`google` for Gemini, every other vendor for `openrouter`).
    #[serde(default)]
    pub vendors: Vec<String>,
    /// Whether the model id goes to the API without its vendor (`local/qwen2.5` → `qwen2.5`).
    /// Defaults to true, except for OpenRouter, which takes ids whole.
    pub strip_vendor: Option<bool>,
    /// The API's base URL.
    pub base_url: Option<String>,
    /// The NAME of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// The context window of its models, in tokens: a local server's `--ctx-size`. An agent
    /// of one of its models reads at most about a quarter of it of its thread's history,
    /// unless the agent sets its own `history_max_size`.
    pub context_window: Option<u32>,
    /// Whether tools go out in OpenAI's strict mode (every property required, objects closed,
    /// optional fields nullable). Defaults to on for the OpenAI wire format at
    /// `api.openai.com`, off for every other server.
    pub strict_tools: Option<bool>,
    /// Prices per million tokens, in dollars as text (`"0.15"`), by model id.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceSettings>,
}

/// A model's prices per million tokens, as decimal dollar texts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceSettings {
    /// Dollars per million input tokens.
    pub input: String,
    /// Dollars per million output tokens.
    pub output: String,
}
