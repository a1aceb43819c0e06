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
    #[error("{provider} refused the API key ({status}): check the environment variable {key_env}")]
    Unauthorized {
        /// The provider.
        provider: String,
        /// 401 or 403.
        status: u16,
        /// The variable the key came from.
        key_env: String,
    },
    /// The API refused the request itself (400, 404, 422...): its message says why.
    #[error("{provider} refused the request ({status}): {message}")]
    BadRequest {
        /// The provider.
        provider: String,
        /// The status.
        status: u16,
        /// The provider's own message.
        message: String,
    },
    /// Still rate-limited (429) after every retry.
    #[error("{provider} kept rate-limiting (429) after {attempts} attempts")]
    RateLimited {
        /// The provider.
        provider: String,
        /// Attempts made.
        attempts: u32,
    },
    /// The API failed (5xx) after every retry.
    #[error("{provider} failed ({status}) after {attempts} attempts: {message}")]
    Server {
        /// The provider.
        provider: String,
        /// The last status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The provider's message, if any.
        message: String,
    },
    /// The API answered with something that is not its documented format.
    #[error("{provider} answered with a body that is not its format: {detail}")]
    MalformedResponse {
        /// The provider.
        provider: String,
        /// What was wrong.
        detail: String,
    },
    /// No answer within the request timeout (on the application's clock).
    #[error("{provider}: no answer within {after}")]
    Timeout {
        /// The provider.
        provider: String,
        /// The timeout.
        after: TimeSpan,
    },
    /// The request never reached the API, or the connection broke.
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
