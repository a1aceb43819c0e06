//! The checks an answer to a pause goes through: who answers, for which execution and
//! arguments, until when, and whether the answer is of the role's type.

use serde_json::Value;

use agboss_rules::codes;

use super::{Answer, Resume, ResumeError};
use crate::app::Application;
use crate::channel::{InterpretContext, PauseAnswerer, ReplyReading};
use crate::journal::{PauseRecord, PauseResolution};
use crate::run::millis_since_epoch;

impl Application {
    /// The checks that need no answer: who, which execution, which arguments, until when.
    pub(super) fn check(&self, resume: &Resume, record: &PauseRecord) -> Result<(), ResumeError> {
        let pause_id = record.pause_id();
        match &record.resolution {
            Some(PauseResolution::Cancelled { .. }) => {
                return Err(ResumeError::of(
                    &codes::PAUSE_EXECUTION_CANCELLED,
                    &[("pause_id", &pause_id)],
                ));
            }
            Some(_) => {
                return Err(ResumeError::of(
                    &codes::PAUSE_ALREADY_ANSWERED,
                    &[("pause_id", &pause_id)],
                ));
            }
            None => {}
        }
        if let Some(asked) = &resume.execution
            && *asked != record.execution_id
        {
            return Err(ResumeError::of(
                &codes::PAUSE_OTHER_EXECUTION,
                &[
                    ("pause_id", &pause_id),
                    ("execution", &record.execution_id),
                    ("asked", asked),
                ],
            ));
        }
        if record.opened.answered_by == PauseAnswerer::ThreadOwner {
            let owner = record.opened.owner.as_deref();
            if owner.is_none() || resume.by.as_deref() != owner {
                let by = resume.by.as_deref().map_or_else(
                    || "an answer that says nobody".to_owned(),
                    |b| format!("`{b}`"),
                );
                return Err(ResumeError::of(
                    &codes::PAUSE_WRONG_ANSWERER,
                    &[
                        ("pause_id", &pause_id),
                        ("owner", &owner.unwrap_or("(no owner: the run had none)")),
                        ("by", &by),
                    ],
                ));
            }
        }
        if let Some(until) = record.opened.expires_at_ms {
            let now = millis_since_epoch(self.clock().wall_time());
            if now > until {
                return Err(ResumeError::of(
                    &codes::PAUSE_EXPIRED,
                    &[("pause_id", &pause_id), ("until", &format!("{until} ms"))],
                ));
            }
        }
        if let Some(given) = &resume.arguments_digest
            && *given != record.opened.arguments_digest
        {
            return Err(ResumeError::of(
                &codes::PAUSE_ARGUMENTS_CHANGED,
                &[
                    ("pause_id", &pause_id),
                    ("given", given),
                    ("actual", &record.opened.arguments_digest),
                ],
            ));
        }
        Ok(())
    }

    /// The answer, as the role's answer type checked: the decision given, or the reply read by
    /// the role's interpreter.
    /// A model that reads a reply records what it spent in `reading`.
    pub(super) async fn answer_of(
        &self,
        resume: &Resume,
        record: &PauseRecord,
        reading: &mut Option<ReplyReading>,
    ) -> Result<Value, ResumeError> {
        let pause_id = record.pause_id();
        let role_name = record.opened.role.as_str();
        let invalid = |issues: &dyn std::fmt::Display| {
            ResumeError::of(
                &codes::PAUSE_INVALID_ANSWER,
                &[
                    ("pause_id", &pause_id),
                    ("role", &role_name),
                    ("issues", issues),
                ],
            )
        };
        let answer = match &resume.answer {
            Answer::Decision(Ok(value)) => value.clone(),
            Answer::Decision(Err(why)) => {
                return Err(invalid(&format!("it has no JSON form: {why}")));
            }
            Answer::Reply(text) => {
                let role = self.assembly.approvals().role(role_name);
                let Some(interpreter) = role.and_then(|r| r.interpreter()) else {
                    return Err(ResumeError::of(
                        &codes::PAUSE_NO_INTERPRETER,
                        &[("pause_id", &pause_id), ("role", &role_name)],
                    ));
                };
                let mut context = InterpretContext::new(
                    self.router().ok(),
                    resume.signal.clone().unwrap_or_default(),
                );
                if let Some(spent) = self.budget_spent(&record.execution_id).await {
                    context = context.without_models(spent);
                }
                let read = (interpreter.interpret())(&record.opened.question, text, &context).await;
                *reading = context.reading();
                read.map_err(|why| {
                    ResumeError::of(
                        &codes::PAUSE_REPLY_UNCLEAR,
                        &[("pause_id", &pause_id), ("why", &why)],
                    )
                })?
            }
        };
        self.assembly
            .approvals()
            .check_answer(role_name, &answer)
            .map_err(|issues| invalid(&issues))?;
        Ok(answer)
    }

    /// Why no model may read a reply to a pause of `execution_id`: its budget is spent, as the
    /// run's next model call would find it. `None` when a budget is left, or when the journal
    /// cannot be read (the run's own check stops it then).
    async fn budget_spent(&self, execution_id: &str) -> Option<String> {
        let (_, state) = self.journal_of(execution_id).await.ok()?;
        let exceeded = state
            .budgets
            .exceeded(state.usage.total(), state.model_cost + state.tool_spend)?;
        Some(format!(
            "no model reads it, as the execution's budget is spent ([{}] {exceeded}): answer with a decision instead",
            exceeded.code()
        ))
    }
}
