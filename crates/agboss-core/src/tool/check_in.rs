//! [`CheckIn`]: a tool's demand that a person consents before a call runs, on every call or
//! when a predicate of the call's input says so (`#[tool(check_in = always)]`,
//! `#[tool(check_in = refunds_over_1000)]`), with the evidence text the person reads.

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
    /// When the predicate says so.
    When(CheckInFn),
}

impl CheckIn {
    /// Whether the call with `arguments` trips it.
    pub fn trips(&self, arguments: &str, context: &ExecutionContext) -> Result<bool, String> {
        match self {
            CheckIn::Always => Ok(true),
            CheckIn::When(predicate) => predicate(arguments, context),
        }
    }
}

impl fmt::Debug for CheckIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckIn::Always => f.write_str("Always"),
            CheckIn::When(_) => f.write_str("When(..)"),
        }
    }
}

/// What `#[tool(check_in = predicate)]` emits: `predicate`, typed by the tool's input `I`, run
/// on the call's arguments. A predicate of another signature fails to compile at its path.
#[doc(hidden)]
pub fn check_in_with<I: serde::de::DeserializeOwned>(
    arguments: &str,
    context: &ExecutionContext,
    predicate: fn(&I, &ExecutionContext) -> bool,
) -> Result<bool, String> {
    let input: I = serde_json::from_str(arguments).map_err(|e| e.to_string())?;
    Ok(predicate(&input, context))
}

/// What `#[tool(check_in_evidence = function)]` emits: `function`, typed by the tool's input
/// `I`, run on the call's arguments.
#[doc(hidden)]
pub fn evidence_with<I: serde::de::DeserializeOwned>(
    arguments: &str,
    evidence: fn(&I) -> String,
) -> Result<String, String> {
    let input: I = serde_json::from_str(arguments).map_err(|e| e.to_string())?;
    Ok(evidence(&input))
}
