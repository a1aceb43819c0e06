//! [`OnCrash`]: what recovery does with a call a crash interrupted.

use std::fmt;

/// What becomes of a call whose intent was journaled and whose result was not, when its
/// execution is recovered (the process running it stopped: killed, crashed, cut off): it may
/// or may not have taken effect. `#[tool(.., on_crash = report)]` chooses; `rerun` is the
/// default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnCrash {
    /// Run it again, with the same call id, argument bytes and idempotency key: right for a
    /// tool that changes nothing, or whose service takes the key and applies each key once.
    #[default]
    Rerun,
    /// Never run it again: the model reads `Tool error: outcome unknown: ...` and decides (it
    /// can look, or ask the user). For a tool whose service takes no key.
    Report,
    /// Ask the tool's approval role whether to run it again: the question says the call was
    /// interrupted; an approval runs it again (same key), a refusal gives the model the reason.
    /// Only for a tool that names a `channel`.
    Ask,
}

impl OnCrash {
    /// Its name as `on_crash = ..` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            OnCrash::Rerun => "rerun",
            OnCrash::Report => "report",
            OnCrash::Ask => "ask",
        }
    }
}

impl fmt::Display for OnCrash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
