//! [`Secret`]: a value that must not be written down (a credential, a token), which redacts
//! itself wherever it could be printed.

use std::fmt;
use std::sync::Arc;

/// A credential's value: it prints `<redacted>` in `Debug` and `Display` and has no `Serialize`,
/// so it cannot reach a log line, a trace or a journal by accident; [`expose`](Self::expose) is
/// the one way to read it. Cloning is cheap (the text is shared).
///
/// ```
/// use agboss_core::tool::Secret;
/// let token = Secret::new("ghp_123");
/// assert_eq!(format!("{token} {token:?}"), "<redacted> Secret(<redacted>)");
/// assert_eq!(token.expose(), "ghp_123");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(Arc<str>);

impl Secret {
    /// A secret holding `value`.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(Arc::from(value.into()))
    }

    /// The value itself, to hand to the system that needs it (a header, a client). Keep it out
    /// of everything that is written down.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Secret {
        Secret::new(value)
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Secret {
        Secret::new(value)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}
