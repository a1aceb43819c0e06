//! [`ModelError`]: why a model call failed, said so that the reader knows what to do.

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
            _ => {}
        }
        self
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
