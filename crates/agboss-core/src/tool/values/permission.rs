//! What a permission checker decides ([`Permission`]) and what it is told of the calls a run
//! made before ([`CallSeen`]): values the gates, the run's history and the journal pass along
//! (the checker and the gate are `gates/permission.rs`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// A call the run made before, as a checker sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSeen {
    /// The tool's name (borrowed from its descriptor; owned for a name no tool has).
    pub tool: Cow<'static, str>,
    /// Whether its result was an error.
    pub is_error: bool,
}

/// A checker's decision, with the rule that made it (journaled, traced and shown to whoever
/// answers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permission {
    /// Run, refuse, or ask a person.
    pub kind: PermissionKind,
    /// The rule that decided (`untrusted-content`, `refunds-over-limit`). A rule named by a
    /// literal is borrowed, so an allowing decision allocates nothing.
    pub rule: Cow<'static, str>,
    /// Why: for a refusal, what the model reads after `Tool error: `; for an ask, what the
    /// person reads.
    #[serde(default, skip_serializing_if = "str::is_empty")]
    pub reason: Cow<'static, str>,
}

/// What a [`Permission`] says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PermissionKind {
    /// The call runs (as far as this capability goes).
    Allow,
    /// The call does not run; the model reads the reason and may adapt.
    Deny,
    /// The call waits for a person's approval, through the tool's role or the application's
    /// check-in role.
    Ask,
}

impl Permission {
    /// Run, by rule `rule`.
    pub fn allow(rule: impl Into<Cow<'static, str>>) -> Permission {
        Permission {
            kind: PermissionKind::Allow,
            rule: rule.into(),
            reason: Cow::Borrowed(""),
        }
    }

    /// Refuse, by rule `rule`; the model reads `reason`.
    pub fn deny(
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Permission {
        Permission {
            kind: PermissionKind::Deny,
            rule: rule.into(),
            reason: reason.into(),
        }
    }

    /// Ask a person, by rule `rule`; the person reads `reason`.
    pub fn ask(
        rule: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Permission {
        Permission {
            kind: PermissionKind::Ask,
            rule: rule.into(),
            reason: reason.into(),
        }
    }
}
