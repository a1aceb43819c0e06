//! [`CheckIn`]: a tool's demand that a person consents before a call runs, on every call or
//! when a predicate of the call's input says so, as its descriptor holds it (the `check-in` gate
//! that asks is `gates/check_in.rs`).

use std::fmt;

use crate::context::ExecutionContext;

/// A check-in predicate, typed by the tool's input; `#[tool]` erases it to this: the call's
/// argument bytes in, whether to ask (or why the input could not be read) out.
pub type CheckInFn = fn(&str, &ExecutionContext) -> Result<bool, String>;

/// A tool's evidence text, erased like [`CheckInFn`]: what the person reads beside the call.
pub type EvidenceFn = fn(&str) -> Result<String, String>;

/// When a person is asked before a call runs.
#[derive(Clone, Copy)]
pub enum CheckIn {
    /// Before every call.
    Always,
    /// When the predicate says so; with its name as written (`over_1000`).
    When(CheckInFn, &'static str),
}

impl CheckIn {
    /// Whether the call with `arguments` trips it.
    pub fn trips(&self, arguments: &str, context: &ExecutionContext) -> Result<bool, String> {
        match self {
            CheckIn::Always => Ok(true),
            CheckIn::When(predicate, _) => predicate(arguments, context),
        }
    }
}

impl CheckIn {
    /// `always`, or the predicate's name: what `describe` prints.
    pub fn describe(&self) -> &'static str {
        match self {
            CheckIn::Always => "always",
            CheckIn::When(_, name) => name,
        }
    }
}

impl fmt::Debug for CheckIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckIn::Always => f.write_str("Always"),
            CheckIn::When(_, name) => write!(f, "When({name})"),
        }
    }
}
