//! [`ToolError`] (what a tool raises) and [`ToolFailure`] (why a call failed).

use std::error::Error as StdError;
use std::fmt;

use serde_json::Value;

use agboss_rules::codes;

use crate::component::DependencyError;
use crate::context::AbortReason;
use crate::tool::{Issues, SchemaError};
use crate::units::TimeSpan;

/// The result of a call: the output's JSON value, or why the call failed.
pub type ToolResult = Result<Value, ToolFailure>;

/// An error a tool's `run` returns. Its message is what the model reads after `Tool error: `.
///
/// Any error type converts with `?`; the message is the error's text followed by its sources'
/// texts, joined with `: `.
///
/// ```
/// use agboss_core::tool::ToolError;
/// let from_io: ToolError = std::io::Error::other("disk full").into();
/// assert_eq!(from_io.message(), "disk full");
/// assert_eq!(ToolError::new("no such issue").to_string(), "no such issue");
/// ```
pub struct ToolError {
    message: String,
    source: Option<Box<dyn StdError + Send + Sync + 'static>>,
}

impl ToolError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            source: None,
        }
    }

    /// The text the model reads.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error it was made from, if any.
    pub fn source(&self) -> Option<&(dyn StdError + Send + Sync + 'static)> {
        self.source.as_deref()
    }
}

impl<E: StdError + Send + Sync + 'static> From<E> for ToolError {
    fn from(error: E) -> ToolError {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            let text = cause.to_string();
            // Many errors repeat their source's text in their own; say it once.
            if !message.contains(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            source = cause.source();
        }
        ToolError {
            message,
            source: Some(Box::new(error)),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolError")
            .field("message", &self.message)
            .field("source", &self.source)
            .finish()
    }
}

/// Why a tool call failed. Its text is what follows `Tool error: ` in what the model reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ToolFailure {
    /// The arguments do not match the input schema; `run` was not called.
    #[error("invalid input: {0}")]
    InvalidInput(Issues),
    /// The execution was cancelled before the call started or while it ran.
    #[error("{0}")]
    Aborted(AbortReason),
    /// The call ran longer than the tool's timeout.
    #[error("timed out after {0}")]
    TimedOut(TimeSpan),
    /// `run` returned an error.
    #[error("{0}")]
    Raised(ToolError),
    /// `run` panicked.
    #[error("the tool panicked: {0}")]
    Panicked(String),
    /// The output does not match the output schema: a bug of the tool.
    #[error("invalid output: {0}")]
    InvalidOutput(Issues),
    /// A field of the tool has no value: nothing provides it, or its provider failed.
    #[error("{0}")]
    Dependency(DependencyError),
    /// The tool's schemas could not be compiled.
    #[error("{0}")]
    Schema(SchemaError),
    /// The rendered output was longer than the tool's `result_ceiling`: refused, its text
    /// dropped (`[tool.result-over-ceiling]`).
    #[error("{}", ceiling.refusal(*bytes))]
    OverCeiling {
        /// The length of the rendered output, in bytes.
        bytes: usize,
        /// The tool's ceiling and hint.
        ceiling: crate::tool::ResultCeiling,
    },
    /// A reference passed to a `wants` argument is not a live artifact of the execution of
    /// the wanted kind (`[tool.artifact-refused]`: the text lists the live ones); `run` was not
    /// called.
    #[error("{0}")]
    ArtifactRefused(String),
    /// The store of artifacts failed while a reference was redeemed or a result kept.
    #[error("the artifact store failed: {0}")]
    ArtifactStore(String),
    /// A credential the tool `needs` was not available for the call's execution (the provider
    /// has none, failed, or there is no provider); the tool did not run
    /// (`[tool.credential-missing]`).
    #[error("{}", codes::TOOL_CREDENTIAL_MISSING.fill(&[("name", name)]))]
    MissingCredential {
        /// The credential's name.
        name: &'static str,
    },
}

impl ToolFailure {
    /// The error the tool raised, if that is why the call failed.
    pub fn as_raised(&self) -> Option<&ToolError> {
        match self {
            ToolFailure::Raised(error) => Some(error),
            _ => None,
        }
    }

    /// What the model reads: `Tool error: <message>`.
    pub fn for_model(&self) -> String {
        format!("Tool error: {self}")
    }
}
