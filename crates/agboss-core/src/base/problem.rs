//! What assembly finds wrong, all of it at once: [`AssemblyError`] and its [`Problem`]s.

use std::fmt;

use agboss_rules::codes::{self, Code, Finding};

/// One problem found at assembly, printed `[code] message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    code: &'static Code,
    message: String,
    // Boxed: a problem is mostly its code and message, and errors that carry one stay small.
    unknown_tool: Option<Box<UnknownAgentToolError>>,
}

impl Problem {
    /// A problem with `code` (from the catalogue, [`agboss_rules::codes`]) and its message.
    pub fn new(code: &'static Code, message: impl Into<String>) -> Problem {
        Problem {
            code,
            message: message.into(),
            unknown_tool: None,
        }
    }

    /// Its code's id, without brackets: `tool.duplicate-name`.
    pub fn code(&self) -> &'static str {
        self.code.id()
    }

    /// What is wrong and how to fix it.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The details, if the problem is an agent listing a tool no `#[tool]` is named.
    pub fn as_unknown_agent_tool(&self) -> Option<&UnknownAgentToolError> {
        self.unknown_tool.as_deref()
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code.id(), self.message)
    }
}

impl From<Finding> for Problem {
    fn from(finding: Finding) -> Problem {
        Problem::new(finding.code, finding.message)
    }
}

impl From<UnknownAgentToolError> for Problem {
    fn from(error: UnknownAgentToolError) -> Problem {
        Problem {
            code: &codes::AGENT_UNKNOWN_TOOL,
            message: error.to_string(),
            unknown_tool: Some(Box::new(error)),
        }
    }
}

/// An agent lists a tool by a name no `#[tool]` in the program has (configuration names tools
/// by name; `tools = [..]` in `#[agent]` names types and is checked by the compiler).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
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
    pub const CODE: &'static str = codes::AGENT_UNKNOWN_TOOL.id();

    fn message(&self) -> String {
        let hint = self
            .suggestion
            .as_ref()
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        codes::AGENT_UNKNOWN_TOOL.fill(&[
            ("agent", &self.agent),
            ("workflow", &self.workflow),
            ("tool", &self.tool),
            ("hint", &hint),
        ])
    }
}

/// Every problem assembly found, one per line. Nothing runs until there are none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AssemblyError {
    application: String,
    problems: Vec<Problem>,
}

impl AssemblyError {
    /// The problems of application `application`.
    pub fn new(application: String, problems: Vec<Problem>) -> AssemblyError {
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
