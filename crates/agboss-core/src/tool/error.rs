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
    kind: ErrorKind,
}

/// What kind of failure a tool says it met: what the loop does about it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum ErrorKind {
    /// The model reads it and goes on.
    #[default]
    Plain,
    /// Trying again may help (a service that timed out, a rate limit): a tool with `retries`
    /// runs again, with the same idempotency key, before the model reads it.
    Transient,
    /// Nothing the model does can help: the run ends with this code.
    Fatal(String),
}

impl ToolError {
    /// An error with `message`.
    pub fn new(message: impl Into<String>) -> ToolError {
        ToolError {
            message: message.into(),
            source: None,
            kind: ErrorKind::Plain,
        }
    }

    /// An error trying again may mend (a timeout, a rate limit, a service that is restarting):
    /// a tool with `#[tool(retries = 2)]` runs again after a backoff on the application's clock,
    /// with the same idempotency key, before the model reads it. Without retries it is an
    /// error like any other.
    ///
    /// ```
    /// use agboss_core::tool::ToolError;
    /// let busy = ToolError::transient("the geocoder answered 503");
    /// assert!(busy.is_transient());
    /// ```
    pub fn transient(message: impl Into<String>) -> ToolError {
        ToolError {
            kind: ErrorKind::Transient,
            ..ToolError::new(message)
        }
    }

    /// An error the model cannot mend by anything it does (an account closed, a contract
    /// broken): the run ends with `code` and `message` instead of the model reading it. Write
    /// the code as the catalogue writes its own, lower-case words joined by `.` and `-`
    /// (`billing.card-blocked`), so whoever reads the failed run can tell it from the
    /// framework's.
    ///
    /// ```
    /// use agboss_core::tool::ToolError;
    /// let closed = ToolError::fatal("billing.account-closed", "the account was closed");
    /// assert_eq!(closed.fatal_code(), Some("billing.account-closed"));
    /// ```
    pub fn fatal(code: impl Into<String>, message: impl Into<String>) -> ToolError {
        ToolError {
            kind: ErrorKind::Fatal(code.into()),
            ..ToolError::new(message)
        }
    }

    /// The same error, said to be transient (see [`transient`](Self::transient)): for an
    /// error converted with `?` from a client's error type.
    pub fn into_transient(mut self) -> ToolError {
        self.kind = ErrorKind::Transient;
        self
    }

    /// Whether trying again may mend it.
    pub fn is_transient(&self) -> bool {
        self.kind == ErrorKind::Transient
    }

    /// The code the run ends with, for a fatal error.
    pub fn fatal_code(&self) -> Option<&str> {
        match &self.kind {
            ErrorKind::Fatal(code) => Some(code),
            _ => None,
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
            kind: ErrorKind::Plain,
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
            .field("kind", &self.kind)
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
    /// A gate refused the call (a permission checker's denial, the application's middleware):
    /// the text says why; `run` was not called.
    #[error("{0}")]
    Refused(String),
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
