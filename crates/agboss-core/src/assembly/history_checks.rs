//! An agent's bound on the history it reads of its thread: configuration's, else its own, else
//! a quarter of its model's context window, else the built-in 32 KB.

use std::collections::BTreeMap;
use std::sync::Arc;

use agboss_rules::codes;

use super::defaults::{DEFAULT_HISTORY_MAX_SIZE, history_max_size_for_window, parse_size};
use crate::base::{Problem, Setting, Source};
use crate::model::{ModelRouter, ModelSettings};
use crate::units::ByteSize;

/// Where the context windows of models are known: the program's router, or the configuration's
/// `[models.*]` sections that the router will be made from (read without connecting anything).
pub(super) enum ContextWindows {
    /// The router the program gave.
    Router(Arc<ModelRouter>),
    /// The sections of configuration.
    Configured(BTreeMap<String, ModelSettings>),
}

impl ContextWindows {
    /// The context window of `model_id` in tokens, if known.
    pub(super) fn of(&self, model_id: &str) -> Option<u32> {
        match self {
            ContextWindows::Router(router) => router.context_window_of(model_id),
            ContextWindows::Configured(models) => {
                ModelRouter::configured_context_window(models, model_id)
            }
        }
    }
}

/// What one agent's history bound is resolved from.
pub(super) struct HistoryBound<'a> {
    /// `agent `notes` (workflow `desk`)`, for its problems.
    pub(super) subject: &'a str,
    /// Its name, for the configuration key a problem names.
    pub(super) agent: &'a str,
    /// `[agents.<name>] history_max_size`, as written.
    pub(super) configured: Option<&'a str>,
    /// Its own `history_max_size`.
    pub(super) own: Option<ByteSize>,
    /// Its model in effect.
    pub(super) model: &'a str,
}

impl HistoryBound<'_> {
    /// The bound in effect and where it came from; `[agent.history-max-size-invalid]` for a
    /// configured text that is not a size, an own bound of 0 bytes, or a window of 0 tokens
    /// (each then falls through to the next level, so the setting stays usable).
    pub(super) fn resolve(
        &self,
        windows: &ContextWindows,
        problems: &mut Vec<Problem>,
    ) -> Setting<ByteSize> {
        let mut invalid = |reason: String| {
            problems.push(
                codes::AGENT_HISTORY_MAX_SIZE_INVALID
                    .finding(&[("owner", &self.subject), ("reason", &reason)])
                    .into(),
            );
        };
        if let Some(written) = self.configured {
            match parse_size(written) {
                Ok(value) => {
                    return Setting {
                        value,
                        source: Source::Configuration,
                    };
                }
                Err(reason) => invalid(format!("agents.{}.history_max_size: {reason}", self.agent)),
            }
        }
        match self.own {
            Some(value) if value.get() > 0 => {
                return Setting {
                    value,
                    source: Source::Own,
                };
            }
            Some(_) => {
                invalid("history_max_size 0 bytes keeps nothing: give at least 1 byte".into())
            }
            None => {}
        }
        match windows.of(self.model) {
            Some(0) => invalid(format!(
                "the context window of `{}` is 0 tokens, which leaves no room for its history: give the model's window in tokens, or the agent a history_max_size",
                self.model
            )),
            Some(tokens) => {
                return Setting {
                    value: history_max_size_for_window(tokens),
                    source: Source::ContextWindow(tokens),
                };
            }
            None => {}
        }
        Setting::built_in(DEFAULT_HISTORY_MAX_SIZE)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{bytes, kilobytes};

    fn bound(
        configured: Option<&str>,
        own: Option<ByteSize>,
        window: Option<u32>,
    ) -> (Setting<ByteSize>, Vec<String>) {
        let mut models = BTreeMap::new();
        if let Some(tokens) = window {
            let local = ModelSettings {
                context_window: Some(tokens),
                ..ModelSettings::default()
            };
            models.insert("local".to_owned(), local);
        }
        let history = HistoryBound {
            subject: "agent `notes` (workflow `desk`)",
            agent: "notes",
            configured,
            own,
            model: "local/gemma-3-270m",
        };
        let mut problems = Vec::new();
        let setting = history.resolve(&ContextWindows::Configured(models), &mut problems);
        (setting, problems.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn configuration_over_own_over_the_window_over_the_built_in() {
        let all = bound(Some("8 KB"), Some(kilobytes(4)), Some(2048));
        assert_eq!(all.0.to_string(), "8 KB (configuration)");
        let own = bound(None, Some(kilobytes(4)), Some(2048));
        assert_eq!(own.0.to_string(), "4 KB (own)");
        let window = bound(None, None, Some(2048));
        assert_eq!(window.0.value, bytes(2048));
        assert_eq!(window.0.source, Source::ContextWindow(2048));
        assert_eq!(window.0.to_string(), "2 KB (context window of 2048 tokens)");
        assert_eq!(bound(None, None, None).0.to_string(), "32 KB (built-in)");
        assert!(
            [all, own, window]
                .iter()
                .all(|(_, problems)| problems.is_empty())
        );
    }

    #[test]
    fn what_keeps_nothing_or_is_not_a_size_is_refused_with_its_code() {
        let (setting, problems) = bound(Some("8"), None, Some(2048));
        assert_eq!(
            problems,
            [
                "[agent.history-max-size-invalid] agent `notes` (workflow `desk`): agents.notes.history_max_size: \"8\" has no unit: write \"8 KB\" or \"8 bytes\""
            ]
        );
        assert_eq!(setting.source, Source::ContextWindow(2048));
        let (_, problems) = bound(Some("0 KB"), None, None);
        assert_eq!(
            problems,
            [
                "[agent.history-max-size-invalid] agent `notes` (workflow `desk`): agents.notes.history_max_size: \"0 KB\" keeps nothing: a bound keeps at least 1 byte"
            ]
        );
        let (_, problems) = bound(None, Some(bytes(0)), None);
        assert_eq!(
            problems,
            [
                "[agent.history-max-size-invalid] agent `notes` (workflow `desk`): history_max_size 0 bytes keeps nothing: give at least 1 byte"
            ]
        );
        let (setting, problems) = bound(None, None, Some(0));
        assert_eq!(
            problems,
            [
                "[agent.history-max-size-invalid] agent `notes` (workflow `desk`): the context window of `local/gemma-3-270m` is 0 tokens, which leaves no room for its history: give the model's window in tokens, or the agent a history_max_size"
            ]
        );
        assert_eq!(setting.source, Source::BuiltIn);
    }
}
