//! [`Questions`]: what a tool asks its question roles through while it runs, and
//! [`QuestionError`], what an ask gives instead of an answer.
//!
//! An ask that waits pauses the run: the question is journaled, the call stops, and once the
//! pause is answered the call runs again from its start (same call id, same idempotency key);
//! each ask already answered then returns its journaled answer at once. docs/pauses.md tells
//! what a tool that asks must make idempotent.

use std::fmt;
use std::sync::Arc;

use super::{Asked, ChannelRole};
use crate::component::Requirement;
use crate::deps::Unresolved;
use crate::tool::{AskFailure, Asker, Dependency, Scope, ToolDescriptor};

/// What a tool asks its question roles through: a field of the tool (`questions: Questions`),
/// resolved for each call. The roles it may ask are declared on the tool
/// (`#[tool(.., asks = [ShippingAddressRole])]`).
#[derive(Clone)]
pub struct Questions {
    asker: Option<Arc<dyn Asker>>,
    tool: &'static ToolDescriptor,
}

impl Questions {
    /// Asks role `R` `question` and returns its answer.
    ///
    /// When the answer comes later, this returns [`QuestionError::Waiting`]: return it (`?`)
    /// and the call stops; it runs again from its start once the pause is answered, and this
    /// same ask then returns the answer. Asks are matched by their order in the call, so a
    /// call must ask the same questions in the same order every time it runs.
    pub async fn ask<R: Asked>(&self, question: R::Question) -> Result<R::Answer, QuestionError> {
        let role = R::DESCRIPTOR.name();
        if !self.tool.asks().iter().any(|r| r.role() == role) {
            return Err(QuestionError::NotDeclared {
                role,
                tool: self.tool.name(),
                rust_type: R::DESCRIPTOR.rust_type(),
            });
        }
        let Some(asker) = &self.asker else {
            return Err(QuestionError::NoRun { role });
        };
        let question = serde_json::to_value(&question)
            .map_err(|e| QuestionError::Failed(format!("the question has no JSON form: {e}")))?;
        let answer = asker
            .ask(role, question)
            .await
            .map_err(|failure| match failure {
                AskFailure::Waiting { role, pause_id } => QuestionError::Waiting { role, pause_id },
                AskFailure::Failed(message) => QuestionError::Failed(message),
            })?;
        serde_json::from_value::<<R as ChannelRole>::Answer>(answer).map_err(|e| {
            QuestionError::Failed(format!(
                "the answer of role `{role}` is not of its answer type: {e}"
            ))
        })
    }
}

impl fmt::Debug for Questions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Questions")
            .field("tool", &self.tool.name())
            .field("in_a_run", &self.asker.is_some())
            .finish()
    }
}

impl Dependency for Questions {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        Ok(Questions {
            asker: scope.asker(),
            tool: scope.descriptor(),
        })
    }
}

/// What an ask gives instead of an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QuestionError {
    /// The answer comes later: the run pauses. Return it from `run` (`?`).
    #[error("the call waits for an answer of role `{role}` (pause {pause_id})")]
    Waiting {
        /// The role asked.
        role: String,
        /// The pause that waits.
        pause_id: String,
    },
    /// The tool asked a role it does not declare.
    #[error(
        "tool `{tool}` asks role `{role}`, which it does not declare: add `asks = [{rust_type}]` to its #[tool]"
    )]
    NotDeclared {
        /// The role.
        role: &'static str,
        /// The tool.
        tool: &'static str,
        /// The role's Rust type, as written.
        rust_type: &'static str,
    },
    /// The call is not part of an agent's run (a test harness, `Application::tool`), so there
    /// is no journal to pause in.
    #[error(
        "role `{role}` cannot be asked here: questions are asked by calls an agent's run makes, which can pause"
    )]
    NoRun {
        /// The role.
        role: &'static str,
    },
    /// The question could not be answered: its channel failed, the pause was cancelled or
    /// expired unanswered, or the call asked something else than what the journal holds at
    /// this place.
    #[error("{0}")]
    Failed(String),
}
