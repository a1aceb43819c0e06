//! DTOs the framework itself defines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A plain text result: the one field `text`. The output of tools (and MCP server tools) that
/// answer with text.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlainText {
    /// The text.
    pub text: String,
}

impl PlainText {
    /// `text` as a `PlainText`.
    pub fn new(text: impl Into<String>) -> PlainText {
        PlainText { text: text.into() }
    }
}

impl From<String> for PlainText {
    fn from(text: String) -> PlainText {
        PlainText { text }
    }
}

impl From<&str> for PlainText {
    fn from(text: &str) -> PlainText {
        PlainText { text: text.into() }
    }
}
