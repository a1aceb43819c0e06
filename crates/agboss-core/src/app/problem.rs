//! What assembly finds wrong, all of it at once: [`AssemblyError`] and its [`Problem`]s.

use std::fmt;

use crate::deps::MissingDependency;

/// One problem found at assembly, printed `[code] message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    code: &'static str,
    message: String,
    unknown_tool: Option<UnknownAgentToolError>,
}

impl Problem {
    /// A problem with `code` (`"tool.duplicate-name"`) and its message.
    pub fn new(code: &'static str, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
            unknown_tool: None,
        }
    }

    /// Its code, without brackets.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// What is wrong and how to fix it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The details, if the problem is an agent listing a tool no `#[tool]` is named.
    pub fn as_unknown_agent_tool(&self) -> Option<&UnknownAgentToolError> {
        self.unknown_tool.as_ref()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code, self.message)
    }
}

impl From<UnknownAgentToolError> for Problem {
    fn from(error: UnknownAgentToolError) -> Problem {
        Problem {
            code: UnknownAgentToolError::CODE,
            message: error.to_string(),
            unknown_tool: Some(error),
        }
    }
}

/// The problem of a missing provider, in the workflow where it is missing.
pub(crate) fn missing_implementation(workflow: &str, missing: &MissingDependency) -> Problem {
    Problem::new(
        MissingDependency::CODE,
        format!(
            "workflow `{workflow}`: tool `{}` field `{}` needs `{}`, which neither the workflow nor the application provides (provide `{}`)",
            missing.tool, missing.field, missing.type_written, missing.provided_type
        ),
    )
}

/// An agent lists a tool by a name no `#[tool]` in the program has (configuration names tools
/// by name; `tools = [..]` in `#[agent]` names types and is checked by the compiler).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "UnknownAgentToolError: agent `{agent}` (workflow `{workflow}`) lists the tool `{tool}`, but no #[tool] in this program is named so{}",
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
)]
pub struct UnknownAgentToolError {
    /// The workflow.
    pub workflow: String,
    /// The agent.
    pub agent: String,
    /// The name it lists.
    pub tool: String,
    /// A registered name close to it.
    pub suggestion: Option<String>,
}

impl UnknownAgentToolError {
    /// Its code.
    pub const CODE: &'static str = "agent.unknown-tool";
}

/// Every problem assembly found, one per line. Nothing runs until there are none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssemblyError {
    application: String,
    problems: Vec<Problem>,
}

impl AssemblyError {
    pub(crate) fn new(application: String, problems: Vec<Problem>) -> AssemblyError {
        AssemblyError {
            application,
            problems,
        }
    }

    /// The problems, in the order assembly found them.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The codes of the problems, in order.
    pub fn codes(&self) -> Vec<&'static str> {
        self.problems.iter().map(Problem::code).collect()
    }
}

impl fmt::Display for AssemblyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.problems.len();
        write!(
            f,
            "application `{}` cannot start: {n} problem{}",
            self.application,
            if n == 1 { "" } else { "s" }
        )?;
        for problem in &self.problems {
            write!(f, "\n{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for AssemblyError {}
