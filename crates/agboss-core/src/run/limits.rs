//! Budgets and limits of a run, and the errors a run ends with.

use std::time::Duration;

use agboss_rules::codes;

use crate::base::Problem;
use crate::context::AbortReason;
use crate::journal::JournalError;
use crate::model::ModelError;
use crate::spend::BudgetExceededError;
use crate::store::StoreError;
use crate::units::{TimeSpan, millis};

/// An agent asked for more tool calls than its limit allows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", codes::LIMITS_TOOL_CALLS.fill(&[("agent", agent), ("requested", requested), ("limit", limit)]))]
pub struct LimitExceededError {
    /// The agent.
    pub agent: String,
    /// Its limit.
    pub limit: u32,
    /// The number the model's last answer would have reached.
    pub requested: u32,
}

impl LimitExceededError {
    /// `agents.<name>.limits.toolCalls`.
    pub fn code(&self) -> String {
        codes::LIMITS_TOOL_CALLS.id_for(&[("name", &self.agent)])
    }
}

/// A run reached its agent's cap of model turns without an answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct TurnLimitError {
    /// The agent.
    pub agent: String,
    /// Its cap of model turns per run.
    pub limit: u32,
    /// Where the cap came from: `own`, a workflow's or the application's name, `built-in`.
    pub set_by: String,
}

impl TurnLimitError {
    /// `agents.<name>.limits.turns`.
    pub fn code(&self) -> String {
        codes::LIMITS_TURNS.id_for(&[("name", &self.agent)])
    }

    fn message(&self) -> String {
        codes::LIMITS_TURNS.fill(&[
            ("agent", &self.agent),
            ("limit", &self.limit),
            ("from", &self.set_by),
        ])
    }
}

/// A run took longer than its agent's time budget.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.message())]
pub struct DurationLimitError {
    /// The agent.
    pub agent: String,
    /// Its time budget.
    pub limit: TimeSpan,
    /// Where the budget came from: `own` or `configuration`.
    pub set_by: String,
    /// How long the run had taken when it was stopped.
    pub elapsed: Duration,
    /// Where it was stopped: `before model call <n>`, or `while its tools ran`.
    pub when: String,
}

impl DurationLimitError {
    /// `agents.<name>.limits.duration`.
    pub fn code(&self) -> String {
        codes::LIMITS_DURATION.id_for(&[("name", &self.agent)])
    }

    fn message(&self) -> String {
        codes::LIMITS_DURATION.fill(&[
            ("agent", &self.agent),
            (
                "elapsed",
                &millis(u64::try_from(self.elapsed.as_millis()).unwrap_or(u64::MAX)),
            ),
            ("limit", &self.limit),
            ("from", &self.set_by),
            ("when", &self.when),
        ])
    }
}

/// Why a run did not answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// Too many tool calls.
    #[error("{0}")]
    LimitExceeded(LimitExceededError),
    /// A budget is spent.
    #[error("{0}")]
    BudgetExceeded(BudgetExceededError),
    /// The model call failed.
    #[error("model call failed: {0}")]
    Model(ModelError),
    /// The execution was cancelled.
    #[error("cancelled: {0}")]
    Aborted(AbortReason),
    /// Too many model turns.
    #[error("{0}")]
    TurnLimit(TurnLimitError),
    /// The model broke the agent's contract (answered in text where a structured answer is due).
    #[error("{0}")]
    Contract(String),
    /// The model kept giving structured answers the agent's schema refuses, more often than its
    /// answer retries allow (`answer.invalid`).
    #[error("{0}")]
    InvalidAnswer(String),
    /// The model answered with neither text nor a tool call (`answer.empty`).
    #[error("{0}")]
    EmptyAnswer(String),
    /// The run took longer than its agent's time budget (`agents.<name>.limits.duration`).
    #[error("{0}")]
    DurationLimit(DurationLimitError),
    /// The execution had already failed when it was resumed: its journaled code and message.
    #[error("[{code}] {message}")]
    Ended {
        /// The code the run failed with (`budgets.usd`, `agents.<name>.limits.toolCalls`, ...).
        code: String,
        /// Its message.
        message: String,
    },
    /// No such workflow, agent or execution.
    #[error("{0}")]
    NotFound(String),
    /// The run was refused, or could not go on, for a reason with its own catalogued code
    /// (`run.owner-required` before anything ran; `random.unavailable` when the system gave no
    /// random bytes for an id; `resume.config-changed` when a workflow that refuses it would
    /// resume an execution under another configuration): the problem, with its code and what
    /// to do.
    #[error("{}", .0.message())]
    Refused(Problem),
    /// The store failed; the run stopped where its journal ends.
    #[error("{0}")]
    Store(StoreError),
    /// The journal cannot be folded by this build (a newer layout); nothing was run.
    #[error("{0}")]
    Journal(JournalError),
    /// This instance lost the execution's lease mid-run: it stopped, started nothing more and
    /// wrote nothing more; the instance holding the lease now goes on with the execution.
    #[error("{0}")]
    LeaseLost(super::ExecutionLeaseLostError),
    /// Another instance holds the execution's lease, so this one cannot act on it now.
    #[error("{}", codes::LEASE_HELD.fill(&[("execution", execution_id), ("holder", holder)]))]
    HeldElsewhere {
        /// The execution.
        execution_id: String,
        /// Who holds it.
        holder: String,
    },
    /// A tool failed with an error it said is fatal (`ToolError::fatal`): the run ended with
    /// the tool's own code once the call's result was journaled.
    #[error("[{code}] {message}")]
    ToolFailed {
        /// The tool.
        tool: String,
        /// The call.
        call_id: String,
        /// The tool's code (`billing.account-closed`).
        code: String,
        /// What happened.
        message: String,
    },
}

impl RunError {
    /// A store's refusal as the run's error: a start in a thread of another owner is refused
    /// with `[thread.owner-mismatch]` (the store's detail is that code's message); any other
    /// failure is the store's.
    pub fn from_store(error: StoreError) -> RunError {
        if error.is_owner_mismatch() {
            return RunError::Refused(Problem::new(&codes::THREAD_OWNER_MISMATCH, error.detail));
        }
        RunError::Store(error)
    }

    /// The code a journal's `failed` event carries.
    pub fn code(&self) -> String {
        match self {
            RunError::LimitExceeded(e) => e.code(),
            RunError::BudgetExceeded(e) => e.code().into(),
            RunError::Model(e) => e.code().into(),
            RunError::Aborted(_) => codes::CANCELLED.id().into(),
            RunError::TurnLimit(e) => e.code(),
            RunError::DurationLimit(e) => e.code(),
            RunError::Contract(_) => codes::ANSWER_MISSING.id().into(),
            RunError::InvalidAnswer(_) => codes::ANSWER_INVALID.id().into(),
            RunError::EmptyAnswer(_) => codes::ANSWER_EMPTY.id().into(),
            RunError::Ended { code, .. } => code.clone(),
            RunError::NotFound(_) => codes::NOT_FOUND.id().into(),
            RunError::Refused(problem) => problem.code().into(),
            RunError::Store(_) => codes::STORE.id().into(),
            RunError::Journal(_) => codes::JOURNAL.id().into(),
            RunError::LeaseLost(e) => e.code().into(),
            RunError::HeldElsewhere { .. } => codes::LEASE_HELD.id().into(),
            RunError::ToolFailed { code, .. } => code.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spend::Budgets;
    use crate::units::usd;

    #[test]
    fn each_error_has_the_code_its_failed_event_carries() {
        let limit = LimitExceededError {
            agent: "notes".into(),
            limit: 20,
            requested: 21,
        };
        let tokens = BudgetExceededError::Tokens {
            limit: 1_000,
            used: 1_100,
        };
        let money = BudgetExceededError::Usd {
            limit: usd("0.50"),
            spent: usd("0.80"),
        };
        let store = StoreError::new("memory", crate::store::StoreErrorKind::Unavailable, "full");
        let codes: Vec<String> = [
            RunError::LimitExceeded(limit),
            RunError::BudgetExceeded(tokens),
            RunError::BudgetExceeded(money),
            RunError::Model(ModelError::Script("no turn left".into())),
            RunError::Aborted(AbortReason::cancelled("the user left")),
            RunError::Contract("answered in text".into()),
            RunError::TurnLimit(TurnLimitError {
                agent: "judge".into(),
                limit: 30,
                set_by: "built-in".into(),
            }),
            RunError::InvalidAnswer("three invalid answers".into()),
            RunError::EmptyAnswer("nothing".into()),
            RunError::Store(store),
        ]
        .iter()
        .map(RunError::code)
        .collect();
        assert_eq!(
            codes,
            [
                "agents.notes.limits.toolCalls",
                "budgets.tokens",
                "budgets.usd",
                "model",
                "cancelled",
                "answer.missing",
                "agents.judge.limits.turns",
                "answer.invalid",
                "answer.empty",
                "store",
            ]
        );
    }

    #[test]
    fn budgets_start_without_limits() {
        assert_eq!(
            Budgets::none(),
            Budgets {
                max_tokens: None,
                max_usd: None
            }
        );
        let both = Budgets::none().tokens(200_000).usd(usd("0.50"));
        assert_eq!(both.max_tokens, Some(200_000));
        assert_eq!(both.max_usd, Some(usd("0.50")));
    }
}
