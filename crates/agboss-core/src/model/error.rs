//! [`ModelError`]: why a model call failed, said so that the reader knows what to do.

use std::fmt;

use agboss_rules::codes;

use super::ToolChoice;
use crate::context::AbortReason;
use crate::units::TimeSpan;

/// Why a model call failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The API key's variable is not set.
    #[error(
        "{provider}: the environment variable {key_env} is not set: set it to an API key for {provider}"
    )]
    MissingKey {
        /// The provider (`openai`, `anthropic`, `google`, `openrouter`, ...).
        provider: String,
        /// The variable that should hold the key.
        key_env: String,
    },
    /// The API refused the key (401/403).
    #[error(
        "{provider} refused the API key ({status}): check the environment variable {key_env}{}",
        at(.url)
    )]
    Unauthorized {
        /// The provider.
        provider: String,
        /// 401 or 403.
        status: u16,
        /// The variable the key came from.
        key_env: String,
        /// The URL the request went to.
        url: String,
    },
    /// The API refused the request itself (400, 404, 422..., or a 5xx whose body says the
    /// request is invalid, which is not retried): its first message says why, on one line.
    #[error("{provider} refused the request ({status}): {message}{}", at(.url))]
    BadRequest {
        /// The provider.
        provider: String,
        /// The status.
        status: u16,
        /// The provider's own message (the first, when it gives several).
        message: String,
        /// The URL the request went to.
        url: String,
    },
    /// Still rate-limited (429) after every retry.
    #[error("{provider} kept rate-limiting (429) after {attempts} attempts{}", at(.url))]
    RateLimited {
        /// The provider.
        provider: String,
        /// Attempts made.
        attempts: u32,
        /// The URL the requests went to.
        url: String,
    },
    /// The API failed (5xx) after every retry.
    #[error("{provider} failed ({status}) after {attempts} attempts: {message}{}", at(.url))]
    Server {
        /// The provider.
        provider: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The provider's message, if any.
        message: String,
        /// The URL the requests went to.
        url: String,
    },
    /// A request that forced a tool choice (`required`, or a tool's name) got a 500 on every
    /// attempt made, two at most: some servers fail every request that forces a choice in a
    /// form they do not take (llama-cpp-python 0.3.36 serving Gemma 3 answers `required` so,
    /// with an empty message). The message names the setting to change and what to set it to
    /// (docs/decisions/0008).
    #[error("{0}")]
    ToolChoiceFailed(Box<ToolChoiceFailure>),
    /// The API answered with something that is not its documented format.
    #[error("{provider} answered with a body that is not its format: {detail}{}", at(.url))]
    MalformedResponse {
        /// The provider.
        provider: String,
        /// What was wrong.
        detail: String,
        /// The URL that answered (empty when the body was read apart from its request).
        url: String,
    },
    /// No answer within the request timeout (on the application's clock).
    #[error("{provider}: no answer within {after}{}", at(.url))]
    Timeout {
        /// The provider.
        provider: String,
        /// The timeout.
        after: TimeSpan,
        /// The URL the request went to.
        url: String,
    },
    /// The request never reached the API, or the connection broke; `detail` names the URL
    /// when a request was tried.
    #[error("{provider}: {detail}")]
    Transport {
        /// The provider.
        provider: String,
        /// What happened.
        detail: String,
    },
    /// Real model requests are forbidden (tests).
    #[error(
        "a real model request was made while they are forbidden (tests): {model}; use a ScriptedModel"
    )]
    Forbidden {
        /// The model asked for.
        model: String,
    },
    /// No provider is configured for the model id.
    #[error("no provider for the model `{model}`: {reason}")]
    NoRoute {
        /// The model id.
        model: String,
        /// Why.
        reason: String,
    },
    /// The call was cancelled.
    #[error("{0}")]
    Aborted(AbortReason),
    /// A scripted model's script ran out or did not match.
    #[error("scripted model: {0}")]
    Script(String),
}

impl ModelError {
    /// Its code in `agboss_rules::codes`, which a run that fails with it keeps:
    /// `model.tool-choice` for [`ToolChoiceFailed`](Self::ToolChoiceFailed), else `model`.
    pub fn code(&self) -> &'static str {
        match self {
            ModelError::ToolChoiceFailed(_) => codes::MODEL_TOOL_CHOICE.id(),
            _ => codes::MODEL.id(),
        }
    }

    /// The same error, naming `url` as the one its request went to (for an answer read apart
    /// from its request, as a provider's parser reads it).
    #[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
    pub(crate) fn at_url(mut self, to: &str) -> ModelError {
        match &mut self {
            ModelError::Unauthorized { url, .. }
            | ModelError::BadRequest { url, .. }
            | ModelError::RateLimited { url, .. }
            | ModelError::Server { url, .. }
            | ModelError::MalformedResponse { url, .. }
            | ModelError::Timeout { url, .. }
                if url.is_empty() =>
            {
                to.clone_into(url);
            }
            ModelError::ToolChoiceFailed(failure) if failure.url.is_empty() => {
                to.clone_into(&mut failure.url);
            }
            _ => {}
        }
        self
    }
}

/// A 500 to a request that forced a tool choice, on every attempt made
/// ([`ModelError::ToolChoiceFailed`]); its `Display` says what failed and the setting to change.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolChoiceFailure {
    /// The provider.
    pub provider: String,
    /// The last status.
    pub status: u16,
    /// Attempts made.
    pub attempts: u32,
    /// The choice the request forced.
    pub choice: ToolChoice,
    /// The provider's message; empty when it gave none.
    pub message: String,
    /// A tool of the request, named in the advice.
    pub tool: Option<String>,
    /// The URL the requests went to.
    pub url: String,
}

impl fmt::Display for ToolChoiceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let attempts = match self.attempts {
            1 => "1 attempt".to_owned(),
            n => format!("{n} attempts"),
        };
        let said = if self.message.is_empty() {
            "with an empty message".to_owned()
        } else {
            format!("saying {:?}", self.message)
        };
        let (choice, instead) = match &self.choice {
            ToolChoice::Tool(name) => (format!("{name:?}"), "\"required\" or \"auto\"".to_owned()),
            _ => (
                "\"required\"".to_owned(),
                match &self.tool {
                    Some(tool) => {
                        format!("one of its tools' names, such as {tool:?}, or to \"auto\"")
                    }
                    None => "one of its tools' names, or to \"auto\"".to_owned(),
                },
            ),
        };
        let text = codes::MODEL_TOOL_CHOICE.fill(&[
            ("provider", &self.provider),
            ("status", &self.status),
            ("attempts", &attempts),
            ("choice", &choice),
            ("said", &said),
            ("instead", &instead),
        ]);
        write!(f, "{text}{}", at(&self.url))
    }
}

/// ` (POST <url>)`, or nothing when the URL is not known.
fn at(url: &str) -> String {
    if url.is_empty() {
        String::new()
    } else {
        format!(" (POST {url})")
    }
}
