//! [`Setting`]: a value in effect and where it came from, and the one rule that picks it: the
//! thing's own value, else each level's default in order, else the framework's.

use std::fmt;

/// Where an effective setting came from: the thing itself, configuration, its workflow, its
/// application, its model's context window, or the framework.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// Set on the tool or agent itself.
    Own,
    /// Set for the agent by configuration (`[agents.<name>]`), over what it declares.
    Configuration,
    /// The workflow's `defaults.tools` (its name).
    Workflow(String),
    /// The application's `defaults.tools` (its name).
    Application(String),
    /// Made from the context window of the agent's model, in tokens (a `[models.<name>]`
    /// section's `context_window`, or `ModelRouter::context_window`).
    ContextWindow(u32),
    /// Nothing set: the framework's default.
    BuiltIn,
}

impl fmt::Display for Source {
    /// `own`, `configuration`, the workflow's or application's name, `context window of 2048
    /// tokens`, or `built-in`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Own => f.write_str("own"),
            Source::Configuration => f.write_str("configuration"),
            Source::ContextWindow(tokens) => write!(f, "context window of {tokens} tokens"),
            Source::Workflow(name) | Source::Application(name) => f.write_str(name),
            Source::BuiltIn => f.write_str("built-in"),
        }
    }
}

/// An effective setting and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting<T> {
    /// The value in effect.
    pub value: T,
    /// Where it came from.
    pub source: Source,
}

impl<T: fmt::Display> fmt::Display for Setting<T> {
    /// `64 KB (desk-application)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.value, self.source)
    }
}

impl<T> Setting<T> {
    /// The framework's default.
    pub fn built_in(value: T) -> Setting<T> {
        Setting {
            value,
            source: Source::BuiltIn,
        }
    }

    /// The first of: `own`, each level's value in order (with its source), `built_in`.
    ///
    /// ```
    /// use agboss_core::base::{Setting, Source};
    ///
    /// let levels = [(None, Source::Workflow("desk".into())), (Some(64), Source::Application("app".into()))];
    /// let bound = Setting::first_of(None, levels, 128);
    /// assert_eq!(bound, Setting { value: 64, source: Source::Application("app".into()) });
    /// assert_eq!(Setting::first_of(Some(8), [], 128).source, Source::Own);
    /// ```
    pub fn first_of(
        own: Option<T>,
        levels: impl IntoIterator<Item = (Option<T>, Source)>,
        built_in: T,
    ) -> Setting<T> {
        if let Some(value) = own {
            return Setting {
                value,
                source: Source::Own,
            };
        }
        levels
            .into_iter()
            .find_map(|(value, source)| value.map(|value| Setting { value, source }))
            .unwrap_or_else(|| Setting::built_in(built_in))
    }
}
